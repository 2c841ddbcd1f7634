//! Waking the publisher after a tick that pushed a sample: the loop's hand-off stage,
//! measured apart from the job's compute ([`super::Job::hand_off`]).

use std::thread::Thread;

/// The publisher thread a loop job wakes (none until [`HandOff::to`]), and whether its
/// last tick pushed a sample.
#[derive(Clone, Debug, Default)]
pub struct HandOff {
    publisher: Option<Thread>,
    pending: bool,
}

impl HandOff {
    /// Wakes `publisher` from now on.
    pub fn to(&mut self, publisher: Thread) {
        self.publisher = Some(publisher);
    }

    /// This tick pushed a sample (or tried to: a full ring wakes the publisher too).
    pub fn sample_pushed(&mut self) {
        self.pending = true;
    }

    /// Unparks the publisher if this tick pushed a sample.
    pub fn wake(&mut self) {
        if std::mem::take(&mut self.pending)
            && let Some(p) = &self.publisher
        {
            p.unpark();
        }
    }
}

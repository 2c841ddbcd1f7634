//! The foundation's loop job: the robot's joints held at the configured posture.
//!
//! It exercises the whole real-time path the simulator will use (command mailbox →
//! watchdog → state → output ring → publisher wake-up) with a plant that does not move:
//! positions stay at the initial posture, velocities are zero, and the effort field
//! reports the effort command currently applied (zero when it is stale or never came).
//! The time-stepping simulator replaces the plant; the exchanges stay.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::Thread;
use std::time::Duration;

use crate::runtime::{
    Counters, EffortCommand, Freshness, Job, JointStateSample, MailboxReader, SampleProducer, Tick, Watchdog,
};

/// Holds a posture, applies the latest fresh effort command, emits one sample per tick.
pub struct HoldPostureJob {
    commands: MailboxReader<EffortCommand>,
    samples: SampleProducer<JointStateSample>,
    watchdog: Watchdog,
    counters: Arc<Counters>,
    positions: Vec<f64>,
    applied_effort: Vec<f64>,
    sim_time_ns: u64,
    publisher: Option<Thread>,
}

impl HoldPostureJob {
    /// A job for `initial_positions.len()` joints. Commands older than `stale_after` are
    /// replaced by zero effort. `publisher`, if given, is unparked after each sample.
    pub fn new(
        initial_positions: Vec<f64>,
        commands: MailboxReader<EffortCommand>,
        samples: SampleProducer<JointStateSample>,
        stale_after: Duration,
        counters: Arc<Counters>,
        publisher: Option<Thread>,
    ) -> Self {
        let n = initial_positions.len();
        Self {
            commands,
            samples,
            watchdog: Watchdog::new(stale_after),
            counters,
            positions: initial_positions,
            applied_effort: vec![0.0; n],
            sim_time_ns: 0,
            publisher,
        }
    }

    /// Freshness of the effort command at the last tick.
    pub fn command_freshness(&self) -> Freshness {
        self.watchdog.state()
    }
}

impl Job for HoldPostureJob {
    fn tick(&mut self, tick: &Tick) {
        let command = self.commands.latest();
        let received = (command.sequence > 0).then_some(command.stamp);
        let before = (self.watchdog.stale_events(), self.watchdog.state());
        let freshness = self.watchdog.check(received, tick.wake);
        match freshness {
            // The I/O side only publishes commands of the right length.
            Freshness::Fresh if command.value.effort.len() == self.applied_effort.len() => {
                self.applied_effort.copy_from_slice(&command.value.effort)
            }
            _ => self.applied_effort.fill(0.0),
        }
        if self.watchdog.stale_events() > before.0 {
            Counters::bump(&self.counters.commands_stale_events);
        }
        if freshness != before.1 {
            self.counters.set_command_freshness(freshness);
        }

        self.sim_time_ns += tick.period.as_nanos() as u64;
        let (t, q, tau) = (self.sim_time_ns, &self.positions, &self.applied_effort);
        let pushed = self.samples.push_with(|s| {
            s.sim_time_ns = t;
            s.position.copy_from_slice(q);
            s.velocity.fill(0.0);
            s.effort.copy_from_slice(tau);
        });
        if !pushed {
            self.counters.samples_dropped.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(p) = &self.publisher {
            p.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{MonotonicTime, mailbox, sample_ring};

    fn tick(index: u64, wake_ms: u64) -> Tick {
        let t = MonotonicTime::from_nanos(wake_ms * 1_000_000);
        Tick { index, deadline: t, wake: t, period: Duration::from_millis(1) }
    }

    #[test]
    fn applies_fresh_commands_and_zero_when_stale() {
        let (mut cmd_w, cmd_r) = mailbox(EffortCommand { effort: vec![0.0; 2] });
        let (prod, mut cons) = sample_ring(8, &JointStateSample::zeros(2));
        let counters = Arc::new(Counters::default());
        let mut job =
            HoldPostureJob::new(vec![0.1, -0.2], cmd_r, prod, Duration::from_millis(10), counters.clone(), None);

        let now_ms = MonotonicTime::now().as_nanos() / 1_000_000;
        job.tick(&tick(0, now_ms));
        assert_eq!(job.command_freshness(), Freshness::NeverReceived);
        cmd_w.write_with(|c| c.effort.copy_from_slice(&[3.0, 4.0]));
        job.tick(&tick(1, now_ms + 1));
        job.tick(&tick(2, now_ms + 1000)); // far past the stamp: stale

        let mut samples = vec![];
        while cons.pop_with(|s| samples.push(s.clone())) {}
        assert_eq!(samples.len(), 3);
        assert_eq!(samples[0].effort, [0.0, 0.0]);
        assert_eq!(samples[1].effort, [3.0, 4.0]);
        assert_eq!(samples[2].effort, [0.0, 0.0]);
        assert!(samples.iter().all(|s| s.position == [0.1, -0.2] && s.velocity == [0.0, 0.0]));
        let times: Vec<u64> = samples.iter().map(|s| s.sim_time_ns).collect();
        assert_eq!(times, [1_000_000, 2_000_000, 3_000_000]);
        assert_eq!(counters.snapshot().commands_stale_events, 1);
    }

    #[test]
    fn a_full_ring_drops_and_counts() {
        let (_w, cmd_r) = mailbox(EffortCommand { effort: vec![] });
        let (prod, _cons) = sample_ring(2, &JointStateSample::zeros(0));
        let counters = Arc::new(Counters::default());
        let mut job = HoldPostureJob::new(vec![], cmd_r, prod, Duration::from_millis(10), counters.clone(), None);
        for k in 0..5 {
            job.tick(&tick(k, k));
        }
        assert_eq!(counters.snapshot().samples_dropped, 3);
    }
}

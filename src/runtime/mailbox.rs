//! Latest-value mailboxes between the real-time loop and the I/O side.
//!
//! One writer, one reader. A newer value replaces an older one that was not read yet (an
//! old command must never be applied late), and neither side ever waits for the other:
//! the exchange is a triple buffer, three preallocated slots swapped by one atomic.
//! Values are written in place into a slot ([`MailboxWriter::write_with`]), so a
//! `Vec<f64>` of fixed length is exchanged without allocating.

use super::clock::MonotonicTime;

/// A value with the time it was written and its sequence number (1 for the first write;
/// 0 means "never written", the initial value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamped<T> {
    /// The payload.
    pub value: T,
    /// When the writer published it.
    pub stamp: MonotonicTime,
    /// Number of writes up to and including this one.
    pub sequence: u64,
}

/// Writing end of a mailbox.
pub struct MailboxWriter<T: Send> {
    input: triple_buffer::Input<Stamped<T>>,
    sequence: u64,
}

/// Reading end of a mailbox.
pub struct MailboxReader<T: Send> {
    output: triple_buffer::Output<Stamped<T>>,
}

/// A mailbox holding `initial` (with sequence 0) until the first write.
pub fn mailbox<T: Clone + Send>(initial: T) -> (MailboxWriter<T>, MailboxReader<T>) {
    let (input, output) =
        triple_buffer::triple_buffer(&Stamped { value: initial, stamp: MonotonicTime::default(), sequence: 0 });
    (MailboxWriter { input, sequence: 0 }, MailboxReader { output })
}

impl<T: Send> MailboxWriter<T> {
    /// Fills a free slot in place and publishes it. The slot holds an older value: `fill`
    /// must overwrite all of it. Wait-free; allocates only if `fill` does.
    pub fn write_with(&mut self, fill: impl FnOnce(&mut T)) {
        self.sequence += 1;
        let slot = self.input.input_buffer_mut();
        fill(&mut slot.value);
        slot.stamp = MonotonicTime::now();
        slot.sequence = self.sequence;
        self.input.publish();
    }

    /// Number of values written so far.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }
}

impl<T: Send> MailboxReader<T> {
    /// The newest published value (the same as last time if nothing new arrived).
    /// Wait-free, never allocates.
    pub fn latest(&mut self) -> &Stamped<T> {
        self.output.update();
        self.output.output_buffer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_sees_the_initial_value_then_only_the_newest() {
        let (mut w, mut r) = mailbox(vec![0.0; 3]);
        assert_eq!(r.latest().sequence, 0);
        assert_eq!(r.latest().value, vec![0.0; 3]);
        for k in 1..=5 {
            w.write_with(|v| v.copy_from_slice(&[k as f64; 3]));
        }
        let latest = r.latest();
        assert_eq!(latest.sequence, 5);
        assert_eq!(latest.value, vec![5.0; 3]);
        // Nothing new: the same value again.
        assert_eq!(r.latest().sequence, 5);
        assert_eq!(w.sequence(), 5);
    }

    #[test]
    fn concurrent_writes_are_never_torn() {
        let (mut w, mut r) = mailbox(vec![0u64; 64]);
        let writer = std::thread::spawn(move || {
            for k in 1..=200_000u64 {
                w.write_with(|v| v.fill(k));
            }
        });
        let mut last = 0;
        while last < 200_000 {
            let s = r.latest();
            let first = s.value[0];
            assert!(s.value.iter().all(|&x| x == first), "torn read");
            assert_eq!(first, s.sequence);
            assert!(s.sequence >= last, "went back in time");
            last = s.sequence;
        }
        writer.join().unwrap();
    }
}

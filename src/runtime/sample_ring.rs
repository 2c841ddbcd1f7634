//! A single-producer single-consumer ring of preallocated slots, for the loop's output
//! samples.
//!
//! Inputs to the loop are latest-value ([`super::mailbox`]); outputs are different: every
//! sample of /joint_states or a contact wrench belongs in a recording, and the publishing
//! thread can be descheduled for a few periods. The loop fills a slot in place
//! ([`SampleProducer::push_with`], wait-free, no allocation) and never waits: when the ring
//! is full the sample is dropped and counted, the publisher catches up later.

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

struct Ring<T> {
    slots: Box<[UnsafeCell<T>]>,
    /// Total number of pushes (producer-owned; the next slot to write is `head % len`).
    head: AtomicUsize,
    /// Total number of pops (consumer-owned).
    tail: AtomicUsize,
    dropped: AtomicU64,
}

// SAFETY: a slot is accessed by the producer only while it is free (head - tail < len) and
// by the consumer only while it is filled (tail < head); the Release/Acquire pairs on
// head and tail hand each slot over between the two threads.
unsafe impl<T: Send> Sync for Ring<T> {}
unsafe impl<T: Send> Send for Ring<T> {}

/// The loop's end: fills slots.
pub struct SampleProducer<T> {
    ring: Arc<Ring<T>>,
}

/// The I/O side's end: drains slots.
pub struct SampleConsumer<T> {
    ring: Arc<Ring<T>>,
}

/// A ring of `capacity` slots, each a clone of `prototype` (so a sample's vectors have
/// their final length from the start).
pub fn sample_ring<T: Clone + Send>(capacity: usize, prototype: &T) -> (SampleProducer<T>, SampleConsumer<T>) {
    let capacity = capacity.max(1);
    let ring = Arc::new(Ring {
        slots: (0..capacity).map(|_| UnsafeCell::new(prototype.clone())).collect(),
        head: AtomicUsize::new(0),
        tail: AtomicUsize::new(0),
        dropped: AtomicU64::new(0),
    });
    (SampleProducer { ring: ring.clone() }, SampleConsumer { ring })
}

impl<T: Send> SampleProducer<T> {
    /// Fills the next free slot in place and makes it visible to the consumer. The slot
    /// holds an old sample: `fill` must overwrite all of it. Returns false (and counts a
    /// drop) if the ring is full. Wait-free; allocates only if `fill` does.
    pub fn push_with(&mut self, fill: impl FnOnce(&mut T)) -> bool {
        let ring = &*self.ring;
        let head = ring.head.load(Ordering::Relaxed);
        let tail = ring.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) >= ring.slots.len() {
            ring.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        // SAFETY: the slot is free (see the Sync impl); only this producer writes it.
        fill(unsafe { &mut *ring.slots[head % ring.slots.len()].get() });
        ring.head.store(head.wrapping_add(1), Ordering::Release);
        true
    }

    /// Samples dropped because the ring was full.
    pub fn dropped(&self) -> u64 {
        self.ring.dropped.load(Ordering::Relaxed)
    }
}

impl<T: Send> SampleConsumer<T> {
    /// Hands the oldest sample to `read`, then frees its slot. False if the ring is empty.
    pub fn pop_with(&mut self, read: impl FnOnce(&T)) -> bool {
        let ring = &*self.ring;
        let tail = ring.tail.load(Ordering::Relaxed);
        let head = ring.head.load(Ordering::Acquire);
        if tail == head {
            return false;
        }
        // SAFETY: the slot is filled (see the Sync impl); the producer does not touch it.
        read(unsafe { &*ring.slots[tail % ring.slots.len()].get() });
        ring.tail.store(tail.wrapping_add(1), Ordering::Release);
        true
    }

    /// Samples waiting.
    pub fn len(&self) -> usize {
        let head = self.ring.head.load(Ordering::Acquire);
        head.wrapping_sub(self.ring.tail.load(Ordering::Relaxed))
    }

    /// True when no sample is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Samples the producer dropped because the ring was full.
    pub fn dropped(&self) -> u64 {
        self.ring.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_order_and_drops_when_full() {
        let (mut p, mut c) = sample_ring(3, &0u32);
        for k in 1..=4 {
            let accepted = p.push_with(|s| *s = k);
            assert_eq!(accepted, k <= 3);
        }
        assert_eq!(p.dropped(), 1);
        assert_eq!(c.len(), 3);
        let mut got = vec![];
        while c.pop_with(|s| got.push(*s)) {}
        assert_eq!(got, vec![1, 2, 3]);
        assert!(c.is_empty());
        assert!(p.push_with(|s| *s = 5));
        assert!(c.pop_with(|s| assert_eq!(*s, 5)));
    }

    #[test]
    fn every_sample_crosses_threads_intact_and_in_order() {
        const N: u64 = 300_000;
        let (mut p, mut c) = sample_ring(16, &vec![0u64; 32]);
        let producer = std::thread::spawn(move || {
            let mut k = 1;
            while k <= N {
                if p.push_with(|s| s.fill(k)) {
                    k += 1;
                } else {
                    std::hint::spin_loop();
                }
            }
        });
        let mut expected = 1;
        while expected <= N {
            c.pop_with(|s| {
                assert!(s.iter().all(|&x| x == expected), "torn or reordered sample");
                expected += 1;
            });
        }
        producer.join().unwrap();
        assert!(c.is_empty());
    }
}

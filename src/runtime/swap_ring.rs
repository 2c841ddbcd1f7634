//! Orders that carry owned values (a spawned body's model and shape) from the I/O side into
//! the loop and back, without the loop allocating, freeing or waiting.
//!
//! A single-producer single-consumer ring of preallocated `Option<T>` slots with three
//! counters: the I/O side `send`s an order into a free slot; the loop `serve`s the pending
//! ones in order, each in place (it swaps what the order carries with what it replaces, so
//! the slot then holds the old contents); the I/O side `reclaim`s served slots and drops
//! their contents there. Slots in `[reclaimed, served)` and `[head, reclaimed + capacity)`
//! belong to the I/O side, those in `[served, head)` to the loop. The served count is the
//! generation an order waits for: order `k` (its [`Ticket`]) is applied once `served > k`.

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

struct Ring<T> {
    slots: Box<[UnsafeCell<Option<T>>]>,
    /// Orders sent (written by the sender).
    head: AtomicU64,
    /// Orders served (written by the loop).
    served: AtomicU64,
}

// head and served hand each slot over between the two threads (see the module's doc).
unsafe impl<T: Send> Sync for Ring<T> {}
unsafe impl<T: Send> Send for Ring<T> {}

/// An order sent; applied once [`SwapSender::applied`] says so.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket(u64);

/// The I/O side's end: sends orders and drops what the loop handed back.
pub struct SwapSender<T> {
    ring: Arc<Ring<T>>,
    reclaimed: u64,
}

/// The loop's end: serves the pending orders in place.
pub struct SwapServer<T> {
    ring: Arc<Ring<T>>,
}

/// A ring of `capacity` orders in flight (at least 1).
pub fn swap_ring<T: Send>(capacity: usize) -> (SwapSender<T>, SwapServer<T>) {
    let ring = Arc::new(Ring {
        slots: (0..capacity.max(1)).map(|_| UnsafeCell::new(None)).collect(),
        head: AtomicU64::new(0),
        served: AtomicU64::new(0),
    });
    (SwapSender { ring: ring.clone(), reclaimed: 0 }, SwapServer { ring })
}

impl<T: Send> SwapSender<T> {
    /// Sends `order` (after dropping what served orders handed back); gives it back when
    /// every slot is in flight.
    pub fn send(&mut self, order: T) -> Result<Ticket, T> {
        self.reclaim();
        let ring = &*self.ring;
        let head = ring.head.load(Ordering::Relaxed);
        if head - self.reclaimed >= ring.slots.len() as u64 {
            return Err(order);
        }
        // SAFETY: slot `head` lies in [head, reclaimed + capacity): the sender's alone.
        unsafe { *ring.slots[(head % ring.slots.len() as u64) as usize].get() = Some(order) };
        ring.head.store(head + 1, Ordering::Release);
        Ok(Ticket(head + 1))
    }

    /// Drops (here, on the I/O side) what the served orders hand back.
    pub fn reclaim(&mut self) {
        let ring = &*self.ring;
        let served = ring.served.load(Ordering::Acquire);
        while self.reclaimed < served {
            // SAFETY: slot `reclaimed` lies in [reclaimed, served): the sender's again.
            let slot = unsafe { &mut *ring.slots[(self.reclaimed % ring.slots.len() as u64) as usize].get() };
            drop(slot.take());
            self.reclaimed += 1;
        }
    }

    /// Whether the loop served the order of `ticket` (and all before it).
    pub fn applied(&self, ticket: Ticket) -> bool {
        self.ring.served.load(Ordering::Acquire) >= ticket.0
    }
}

impl<T: Send> SwapServer<T> {
    /// Serves every pending order in order: `apply` gets each in place (and leaves in it
    /// what goes back to the I/O side). Wait-free; allocates only if `apply` does.
    pub fn serve(&mut self, mut apply: impl FnMut(&mut T)) {
        let ring = &*self.ring;
        let head = ring.head.load(Ordering::Acquire);
        let mut served = ring.served.load(Ordering::Relaxed);
        while served < head {
            // SAFETY: slot `served` lies in [served, head): the loop's until `served` moves.
            if let Some(order) = unsafe { &mut *ring.slots[(served % ring.slots.len() as u64) as usize].get() } {
                apply(order);
            }
            served += 1;
            ring.served.store(served, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_served_in_place_and_their_leftovers_dropped_by_the_sender() {
        let (mut tx, mut rx) = swap_ring::<(u32, String)>(2);
        let mut held = String::from("old");
        let a = tx.send((1, "a".into())).unwrap();
        let b = tx.send((2, "b".into())).unwrap();
        assert!(tx.send((3, "c".into())).is_err(), "two in flight: full");
        assert!(!tx.applied(a));
        let mut seen = vec![];
        rx.serve(|(k, s)| {
            seen.push(*k);
            std::mem::swap(s, &mut held);
        });
        assert_eq!(seen, [1, 2]);
        assert_eq!(held, "b", "the loop holds the last order's value");
        assert!(tx.applied(a) && tx.applied(b));
        let c = tx.send((3, "c".into())).expect("reclaimed: room again");
        assert!(!tx.applied(c));
        rx.serve(|_| {});
        assert!(tx.applied(c));
    }

    #[test]
    fn concurrent_orders_arrive_once_and_in_order() {
        let (mut tx, mut rx) = swap_ring::<u64>(4);
        let sender = std::thread::spawn(move || {
            let mut k = 0;
            while k < 10_000 {
                if tx.send(k).is_ok() {
                    k += 1;
                }
            }
            tx
        });
        let mut next = 0;
        while next < 10_000 {
            rx.serve(|k| {
                assert_eq!(*k, next);
                next += 1;
            });
        }
        let tx = sender.join().unwrap();
        assert!(tx.applied(Ticket(10_000)));
    }
}

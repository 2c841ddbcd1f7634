//! The loop thread's heap allocations in the running node: the binary's global allocator
//! is [`CountingAllocator`], which counts, in a thread-local counter, the allocations of
//! the threads that [`watch`] (the loop thread after its first tick: start-up done); the
//! loop reads it into its reports ([`super::LoopReport::loop_allocations`]) and so
//! /diagnostics and the soak test see any allocation the real-time path makes. Without
//! this allocator (a library user's program) the count is unknown, not zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    static WATCHED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting the watched threads' allocations.
pub struct CountingAllocator;

impl CountingAllocator {
    #[inline]
    fn count() {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        // `try_with`: the allocator may run while a thread's locals are being destroyed.
        let _ = WATCHED.try_with(|w| {
            if w.get() {
                let _ = COUNT.try_with(|c| c.set(c.get() + 1));
            }
        });
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches only
// thread-local cells and an atomic flag, and allocates nothing.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::count();
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Starts (or stops) counting this thread's allocations.
pub fn watch(on: bool) {
    WATCHED.with(|w| w.set(on));
}

/// Allocations counted on this thread; None when [`CountingAllocator`] is not the global
/// allocator (nothing could be counted).
pub fn allocations() -> Option<u64> {
    INSTALLED.load(Ordering::Relaxed).then(|| COUNT.with(Cell::get))
}

//! A global allocator that counts allocations per thread, for the zero-allocation proofs.
//! Include with `mod counting;` in a test crate: it becomes that crate's allocator.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn count_bytes(bytes: usize) {
    // `try_with`: the allocator may run while a thread's locals are being destroyed.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
    let _ = LARGEST.try_with(|c| c.set(c.get().max(bytes)));
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_bytes(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_bytes(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_bytes(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

pub fn allocations_here() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Allocations made on this thread while running `f`.
pub fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = allocations_here();
    f();
    allocations_here() - before
}

/// The largest single allocation (bytes) made on this thread while running `f`, with
/// `f`'s result.
pub fn largest_allocation_during<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LARGEST.with(Cell::get);
    LARGEST.with(|c| c.set(0));
    let out = f();
    let largest = LARGEST.with(Cell::get);
    LARGEST.with(|c| c.set(before.max(largest)));
    (largest, out)
}

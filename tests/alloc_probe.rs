//! The node's allocation probe (runtime::alloc_probe, the binary's global allocator here
//! too): the loop counts its thread's heap allocations after the first tick — none for a
//! job that allocates nothing, every one for a job that does — and a loop in a program
//! without the probe reports them as not counted. (The soak test reads the count from the
//! running node's /diagnostics.)

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use signorini::runtime::alloc_probe::CountingAllocator;
use signorini::runtime::{Job, LoopReport, LoopSettings, Tick, mailbox, run_loop};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Allocates `per_tick` boxes on every tick after the first (the first is start-up: it
/// allocates more), then asks the loop to stop after `ticks`.
// Boxes on purpose: each is one heap allocation to count.
#[allow(clippy::vec_box)]
struct Allocating<'a> {
    per_tick: usize,
    ticks: u64,
    stop: &'a AtomicBool,
    kept: Vec<Box<u64>>,
}

impl Job for Allocating<'_> {
    fn tick(&mut self, tick: &Tick) {
        if tick.index == 0 {
            self.kept.reserve(1000);
            for k in 0..10 {
                self.kept.push(Box::new(k));
            }
        } else {
            for _ in 0..self.per_tick {
                self.kept.push(Box::new(tick.index));
            }
        }
        if tick.index + 1 >= self.ticks {
            self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

fn run(per_tick: usize) -> LoopReport {
    let (mut reports, _) = mailbox(LoopReport::default());
    let settings = LoopSettings { report_interval: Duration::from_millis(5), ..LoopSettings::at_rate("probe", 2000.0) };
    // A thread of its own: the count is the loop thread's.
    std::thread::spawn(move || {
        let stop = AtomicBool::new(false);
        let mut job = Allocating { per_tick, ticks: 20, stop: &stop, kept: Vec::new() };
        run_loop(&settings, &mut job, &stop, &mut reports)
    })
    .join()
    .unwrap()
}

#[test]
fn the_loop_counts_its_allocations_after_start_up() {
    assert_eq!(run(0).loop_allocations, Some(0));
    // 19 ticks after the first, one box each (the vector's capacity was reserved).
    assert_eq!(run(1).loop_allocations, Some(19));
}

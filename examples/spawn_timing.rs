//! What spawning costs the loop (issue 25): the scenario of `tests/spawning` (the bundled
//! quadruped at 1 kHz, 20 cubes spawned one per simulated second, stacking four high),
//! each tick's compute time measured around `Job::tick`. Prints the longest spawning tick,
//! the p99 and longest tick of the 20 s spawn window and the ticks of 1 ms or more, then
//! the same run without spawns (with 20 empty slots, and with spawning off).
//!
//!   cargo run --release --example spawn_timing

#[path = "../tests/spawning/scenario.rs"]
mod scenario;

use std::time::Duration;

use scenario::{BOXES, Run, SECOND, quadruped};

/// The p99 and the maximum of `times`.
fn p99_and_max(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() * 99 / 100], times[times.len() - 1])
}

/// The quadruped alone for `ticks` ticks with `slots` empty spawn slots: the p99 and the
/// longest tick after the first second.
fn without_spawns(slots: usize, ticks: u64) -> (Duration, Duration) {
    let mut run = Run::new(&quadruped(slots));
    let mut times = Vec::new();
    run.ticks(ticks, |took| times.push(took));
    p99_and_max(&mut times[SECOND as usize..])
}

fn main() {
    let mut run = Run::new(&quadruped(BOXES));
    run.ticks(SECOND, drop);
    let (mut window, mut spawning) = (Vec::new(), Vec::new());
    run.spawn_the_boxes(|spawn, took| if spawn { spawning.push(took) } else { window.push(took) });
    run.ticks(2 * SECOND, drop);

    let spawn_max = spawning.iter().max().copied().unwrap_or_default();
    let (window_p99, window_max) = p99_and_max(&mut window);
    let overruns = window.iter().filter(|&&t| t >= Duration::from_millis(1)).count();
    let (slots_p99, slots_max) = without_spawns(BOXES, run.k);
    let (off_p99, off_max) = without_spawns(0, run.k);
    println!("{BOXES} spawning ticks: longest {spawn_max:?}");
    println!(
        "spawn window ({} ticks, {} contacts at the end): p99 {window_p99:?}, longest {window_max:?}, \
         {overruns} ticks of 1 ms or more",
        window.len(),
        run.contacts()
    );
    println!("without spawns, {BOXES} empty slots: p99 {slots_p99:?}, longest {slots_max:?}");
    println!("spawning off: p99 {off_p99:?}, longest {off_max:?}");
}

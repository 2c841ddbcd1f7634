//! The timing method of the examples that write docs/BENCHMARKS.md (the same as the C++
//! Pinocchio harness of scripts/bench_dynamics.py): batches long enough to last 2 ms,
//! then the median per-call time over `rounds` batches. `f` gets the call number (to
//! cycle through inputs).

use std::time::Instant;

pub fn median_us(mut f: impl FnMut(usize), rounds: usize) -> f64 {
    let mut calls = 16usize;
    loop {
        let t0 = Instant::now();
        for i in 0..calls {
            f(i);
        }
        if t0.elapsed().as_secs_f64() > 2e-3 || calls > 1 << 24 {
            break;
        }
        calls *= 2;
    }
    let mut per_call: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let t0 = Instant::now();
            for i in 0..calls {
                f(i);
            }
            t0.elapsed().as_secs_f64() * 1e6 / calls as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[per_call.len() / 2]
}

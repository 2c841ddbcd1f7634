//! Deterministic pseudo-random inputs: the property tests' and the benchmarks' random
//! problems, the same on every run and every machine.

/// Deterministic pseudo-random numbers in [−1, 1) (xorshift64 from `seed`; 0 acts as 1).
pub fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut x = seed.max(1);
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

//! Monotonic time and absolute-deadline sleeping.
//!
//! `std::time::Instant` is CLOCK_MONOTONIC on Linux but hides its value, and an absolute
//! deadline sleep needs it: `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ..)` wakes at
//! the deadline itself, so sleep overshoot never accumulates into drift.

use std::time::Duration;

/// A point on CLOCK_MONOTONIC, in nanoseconds since an unspecified origin (boot).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MonotonicTime(u64);

impl MonotonicTime {
    /// The current time. Never allocates, never blocks (a vDSO call).
    pub fn now() -> Self {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        Self(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }

    /// From nanoseconds on CLOCK_MONOTONIC.
    pub const fn from_nanos(nanos: u64) -> Self {
        Self(nanos)
    }

    /// Nanoseconds on CLOCK_MONOTONIC.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: MonotonicTime) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }

    /// Signed `self - other` in nanoseconds.
    pub fn signed_nanos_since(self, other: MonotonicTime) -> i64 {
        self.0 as i64 - other.0 as i64
    }
}

impl std::ops::Add<Duration> for MonotonicTime {
    type Output = MonotonicTime;
    /// `self + d` (saturating).
    fn add(self, d: Duration) -> Self {
        Self(self.0.saturating_add(d.as_nanos() as u64))
    }
}

/// Sleeps until `deadline` on CLOCK_MONOTONIC (returns at once if it has passed).
pub fn sleep_until(deadline: MonotonicTime) {
    let ts = libc::timespec {
        tv_sec: (deadline.0 / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline.0 % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: valid timespec pointer; a null remainder is allowed with TIMER_ABSTIME.
        let rc =
            unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        // Restart after a signal handler interrupted the sleep; the deadline is absolute.
        if rc != libc::EINTR {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_until_wakes_after_the_deadline_not_before() {
        let start = MonotonicTime::now();
        let deadline = start + Duration::from_millis(3);
        sleep_until(deadline);
        let woke = MonotonicTime::now();
        assert!(woke >= deadline, "woke {} ns early", deadline.signed_nanos_since(woke));
    }

    #[test]
    fn a_past_deadline_returns_at_once() {
        let before = MonotonicTime::now();
        sleep_until(MonotonicTime::from_nanos(before.as_nanos() - 1_000_000));
        assert!(MonotonicTime::now().since(before) < Duration::from_millis(100));
    }

    #[test]
    fn arithmetic() {
        let t = MonotonicTime::from_nanos(5_000);
        assert_eq!((t + Duration::from_nanos(7)).as_nanos(), 5_007);
        assert_eq!(t.since(MonotonicTime::from_nanos(1_000)), Duration::from_nanos(4_000));
        assert_eq!(MonotonicTime::from_nanos(1_000).since(t), Duration::ZERO);
        assert_eq!(MonotonicTime::from_nanos(1_000).signed_nanos_since(t), -4_000);
    }
}

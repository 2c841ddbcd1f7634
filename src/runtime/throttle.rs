//! Rate-limited reporting: at most one log line per interval, saying how many events it
//! stands for.

use std::time::{Duration, Instant};

/// Lets one report through per `interval` and counts the events in between.
#[derive(Clone, Debug)]
pub struct Throttle {
    interval: Duration,
    last: Option<Instant>,
    unreported: u64,
}

impl Throttle {
    /// One report per second, as ROS's `RCLCPP_WARN_THROTTLE` is usually set.
    pub fn per_second() -> Self {
        Self::every(Duration::from_secs(1))
    }

    /// One report per `interval`.
    pub fn every(interval: Duration) -> Self {
        Self { interval, last: None, unreported: 0 }
    }

    /// An event now: Some(events since the last report, this one included) when it is
    /// to be reported, None when it is only counted.
    pub fn event(&mut self) -> Option<u64> {
        self.event_at(Instant::now())
    }

    /// [`Self::event`] at `now`.
    pub fn event_at(&mut self, now: Instant) -> Option<u64> {
        self.unreported += 1;
        if self.last.is_some_and(|t| now.saturating_duration_since(t) < self.interval) {
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.unreported))
    }
}

/// " (n since the last message)" for a report standing for `n` > 1 events, else "".
pub fn also(n: u64) -> String {
    if n > 1 { format!(" ({n} since the last message)") } else { String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_report_per_interval_counting_the_rest() {
        let mut t = Throttle::per_second();
        let t0 = Instant::now();
        assert_eq!(t.event_at(t0), Some(1));
        assert_eq!(t.event_at(t0 + Duration::from_millis(300)), None);
        assert_eq!(t.event_at(t0 + Duration::from_millis(900)), None);
        assert_eq!(t.event_at(t0 + Duration::from_millis(1000)), Some(3));
        assert_eq!(t.event_at(t0 + Duration::from_millis(2500)), Some(1));
        assert_eq!(also(1), "");
        assert_eq!(also(3), " (3 since the last message)");
    }
}

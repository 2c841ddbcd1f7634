//! The node's health in one place: what /diagnostics publishes and what the terminal
//! status line prints are built here from the loop report and the counters.

use super::counters::CounterSnapshot;
use super::loop_stats::LoopReport;
use super::watchdog::Freshness;

/// Severity, as diagnostic_msgs/DiagnosticStatus levels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// All good.
    Ok = 0,
    /// Degraded: overruns, dropped samples, rejected or stale inputs.
    Warn = 1,
    /// Not working.
    Error = 2,
}

/// A summary of one report window.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// Severity.
    pub level: Level,
    /// One sentence.
    pub message: String,
    /// Named values (diagnostic key-values), units in the names.
    pub values: Vec<(&'static str, String)>,
}

/// Builds the status from the latest loop report and the counters now and at the
/// previous status (for per-window deltas). `command` is the effort command's freshness.
pub fn status(report: &LoopReport, now: &CounterSnapshot, before: &CounterSnapshot, command: Freshness) -> Status {
    let us = |ns: u64| format!("{:.1}", ns as f64 * 1e-3);
    let rejected = now.commands_rejected() - before.commands_rejected();
    let dropped = now.samples_dropped - before.samples_dropped;
    let mut problems: Vec<String> = Vec::new();
    if report.window_overruns > 0 {
        problems.push(format!("{} overruns", report.window_overruns));
    }
    if rejected > 0 {
        problems.push(format!(
            "{rejected} commands rejected ({} wrong length, {} NaN/inf)",
            now.commands_wrong_length - before.commands_wrong_length,
            now.commands_non_finite - before.commands_non_finite
        ));
    }
    if dropped > 0 {
        problems.push(format!("{dropped} samples dropped"));
    }
    let states = now.states_rejected - before.states_rejected;
    if states > 0 {
        problems.push(format!("{states} measured states rejected"));
    }
    let unconverged = now.steps_not_converged - before.steps_not_converged;
    if unconverged > 0 {
        problems.push(format!("{unconverged} contact solves missed the tolerance"));
    }
    let resets = now.sim_resets - before.sim_resets;
    if resets > 0 {
        problems.push(format!("the simulation diverged and was reset {resets} times"));
    }
    if command == Freshness::Stale {
        problems.push("effort command stale: applying the fallback effort".to_owned());
    }
    let level = if problems.is_empty() { Level::Ok } else { Level::Warn };
    let message = if problems.is_empty() {
        format!("running at {:.1} Hz", report.rate_hz)
    } else {
        format!("running at {:.1} Hz; {}", report.rate_hz, problems.join("; "))
    };
    let command_state = match command {
        Freshness::NeverReceived => "none received",
        Freshness::Fresh => "fresh",
        Freshness::Stale => "stale",
    };
    let values = vec![
        ("rate_hz", format!("{:.2}", report.rate_hz)),
        ("nominal_period_us", us(report.nominal_period_ns)),
        ("period_p50_us", us(report.period.p50)),
        ("period_p99_us", us(report.period.p99)),
        ("period_max_us", us(report.period.max)),
        ("jitter_p50_us", us(report.wake_latency.p50)),
        ("jitter_p99_us", us(report.wake_latency.p99)),
        ("jitter_max_us", us(report.wake_latency.max)),
        ("compute_p50_us", us(report.compute.p50)),
        ("compute_p99_us", us(report.compute.p99)),
        ("compute_max_us", us(report.compute.max)),
        ("overruns_window", report.window_overruns.to_string()),
        ("overruns_total", report.total_overruns.to_string()),
        ("missed_periods_total", report.total_missed_periods.to_string()),
        ("ticks_total", report.total_ticks.to_string()),
        ("command_state", command_state.to_owned()),
        ("commands_accepted_total", now.commands_accepted.to_string()),
        ("commands_rejected_total", now.commands_rejected().to_string()),
        ("commands_rejected_wrong_length_total", now.commands_wrong_length.to_string()),
        ("commands_rejected_non_finite_total", now.commands_non_finite.to_string()),
        ("commands_stale_events_total", now.commands_stale_events.to_string()),
        ("samples_published_total", now.samples_published.to_string()),
        ("samples_dropped_total", now.samples_dropped.to_string()),
        ("publish_errors_total", now.publish_errors.to_string()),
        ("contacts", now.last_contacts.to_string()),
        ("solver_iterations", now.last_iterations.to_string()),
        ("steps_not_converged_total", now.steps_not_converged.to_string()),
        ("sim_resets_total", now.sim_resets.to_string()),
        ("states_rejected_total", now.states_rejected.to_string()),
    ];
    Status { level, message, values }
}

/// The terminal line: loop figures, then inputs.
pub fn status_line(report: &LoopReport, now: &CounterSnapshot, command: Freshness) -> String {
    let command = match command {
        Freshness::NeverReceived => "no command yet",
        Freshness::Fresh => "command fresh",
        Freshness::Stale => "command STALE",
    };
    format!(
        "{} | cmds {} ok {} rejected, {command} | samples dropped {}",
        report.status_line(),
        now.commands_accepted,
        now.commands_rejected(),
        now.samples_dropped
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejected_commands_and_overruns_raise_a_warning_with_counts() {
        let report = LoopReport { rate_hz: 999.7, window_overruns: 2, ..Default::default() };
        let before = CounterSnapshot { commands_wrong_length: 1, ..Default::default() };
        let now = CounterSnapshot { commands_wrong_length: 4, commands_non_finite: 2, ..Default::default() };
        let s = status(&report, &now, &before, Freshness::Fresh);
        assert_eq!(s.level, Level::Warn);
        assert_eq!(s.message, "running at 999.7 Hz; 2 overruns; 5 commands rejected (3 wrong length, 2 NaN/inf)");
        let get = |k: &str| s.values.iter().find(|(key, _)| *key == k).map(|(_, v)| v.clone());
        assert_eq!(get("commands_rejected_total").as_deref(), Some("6"));
        assert_eq!(get("commands_rejected_non_finite_total").as_deref(), Some("2"));
        assert_eq!(get("command_state").as_deref(), Some("fresh"));
    }

    #[test]
    fn a_quiet_window_is_ok() {
        let report = LoopReport { rate_hz: 1000.0, ..Default::default() };
        let c = CounterSnapshot::default();
        let s = status(&report, &c, &c, Freshness::NeverReceived);
        assert_eq!((s.level, s.message.as_str()), (Level::Ok, "running at 1000.0 Hz"));
        assert_eq!(status(&report, &c, &c, Freshness::Stale).level, Level::Warn);
    }
}

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

/// The input the loop's watchdog watches, and what the loop does while it is stale (the
/// wording of /diagnostics and of the status line).
#[derive(Clone, Debug, PartialEq)]
pub struct WatchedInput {
    /// "effort command" (the simulator's) or "measured state" (the controller's).
    pub name: &'static str,
    /// What replaces it while stale ("the fallback effort", "the safe output: gravity hold").
    pub when_stale: String,
}

impl WatchedInput {
    /// The simulator's effort command, replaced by the fallback effort.
    pub fn effort_command() -> Self {
        Self { name: "effort command", when_stale: "the fallback effort".to_owned() }
    }
}

/// Builds the status from the latest loop report and the counters now and at the
/// previous status (for per-window deltas). `input` is the watched input's freshness.
pub fn status(
    report: &LoopReport,
    now: &CounterSnapshot,
    before: &CounterSnapshot,
    input: Freshness,
    watched: &WatchedInput,
) -> Status {
    let problems = problems(report, now, before, input, watched);
    let level = if now.sim_halted > 0 {
        Level::Error
    } else if problems.is_empty() {
        Level::Ok
    } else {
        Level::Warn
    };
    let message = if problems.is_empty() {
        format!("running at {:.1} Hz", report.rate_hz)
    } else {
        format!("running at {:.1} Hz; {}", report.rate_hz, problems.join("; "))
    };
    let values = values(report, now, input, watched);
    Status { level, message, values }
}

/// What went wrong in the window (or is wrong now), in words.
fn problems(
    report: &LoopReport,
    now: &CounterSnapshot,
    before: &CounterSnapshot,
    input: Freshness,
    watched: &WatchedInput,
) -> Vec<String> {
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
    // Counters that rose in the window: "<how many> <what>".
    let rises = [
        (dropped, "samples dropped"),
        (now.states_rejected - before.states_rejected, "measured states rejected"),
        (now.states_unpaired - before.states_unpaired, "joint states without odometry within the pairing tolerance"),
        (now.odometry_rejected - before.odometry_rejected, "odometry messages rejected"),
        (now.ticks_refused - before.ticks_refused, "controller ticks refused (safe output applied)"),
        (now.references_rejected - before.references_rejected, "reference trajectories rejected"),
        (
            now.references_clamped - before.references_clamped,
            "reference trajectories clamped to the URDF position limits",
        ),
        (
            now.safe_outputs_non_finite - before.safe_outputs_non_finite,
            "safe outputs not finite (those torques set to 0)",
        ),
        (now.wrenches_rejected - before.wrenches_rejected, "external wrenches rejected"),
        (now.joint_commands_rejected - before.joint_commands_rejected, "joint state commands rejected"),
        (now.steps_not_converged - before.steps_not_converged, "contact solves missed the tolerance"),
        (now.solver_fallbacks - before.solver_fallbacks, "steps used the contact fallback"),
        (
            now.impulses_refused - before.impulses_refused,
            "steps refused their contact impulses (not finite or creating energy: scaled down)",
        ),
        (
            now.contacts_dropped - before.contacts_dropped,
            "contacts dropped beyond collision.max_contacts (the deepest kept)",
        ),
        (now.simulation_requests_refused - before.simulation_requests_refused, "simulation requests refused"),
    ];
    problems.extend(rises.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")));
    let resets = now.sim_resets - before.sim_resets;
    if resets > 0 {
        problems.push(format!("the simulation diverged and was reset {resets} times"));
    }
    if now.sim_halted > 0 {
        problems.push("the simulation diverged and is halted (~/reset restarts it)".to_owned());
    }
    if let Some(n) = report.loop_allocations.filter(|&n| n > 0) {
        problems.push(format!("{n} heap allocations in the loop since start-up"));
    }
    if input == Freshness::Stale {
        problems.push(format!("{} stale: applying {}", watched.name, watched.when_stale));
    }
    problems
}

/// The key-value pairs of /diagnostics: the loop's figures, then the counters' totals.
fn values(
    report: &LoopReport,
    now: &CounterSnapshot,
    input: Freshness,
    watched: &WatchedInput,
) -> Vec<(&'static str, String)> {
    let us = |ns: u64| format!("{:.1}", ns as f64 * 1e-3);
    let input_state = match input {
        Freshness::NeverReceived => "none received",
        Freshness::Fresh => "fresh",
        Freshness::Stale => "stale",
    };
    vec![
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
        ("hand_off_p99_us", us(report.hand_off.p99)),
        ("overruns_window", report.window_overruns.to_string()),
        ("overruns_total", report.total_overruns.to_string()),
        ("missed_periods_total", report.total_missed_periods.to_string()),
        ("ticks_total", report.total_ticks.to_string()),
        ("input", watched.name.to_owned()),
        ("input_state", input_state.to_owned()),
        ("input_stale_output", watched.when_stale.clone()),
        ("commands_accepted_total", now.commands_accepted.to_string()),
        ("commands_rejected_total", now.commands_rejected().to_string()),
        ("commands_rejected_wrong_length_total", now.commands_wrong_length.to_string()),
        ("commands_rejected_non_finite_total", now.commands_non_finite.to_string()),
        ("input_stale_events_total", now.input_stale_events.to_string()),
        ("samples_published_total", now.samples_published.to_string()),
        ("samples_dropped_total", now.samples_dropped.to_string()),
        ("publish_errors_total", now.publish_errors.to_string()),
        ("contacts", now.last_contacts.to_string()),
        ("solver_iterations", now.last_iterations.to_string()),
        ("steps_not_converged_total", now.steps_not_converged.to_string()),
        ("sim_resets_total", now.sim_resets.to_string()),
        ("solver_fallbacks_total", now.solver_fallbacks.to_string()),
        ("contact_impulses_refused_total", now.impulses_refused.to_string()),
        ("steps_solved_again_total", now.steps_solved_again.to_string()),
        ("contacts_dropped_total", now.contacts_dropped.to_string()),
        ("sim_halts_total", now.sim_halts.to_string()),
        ("sim_halted", (now.sim_halted > 0).to_string()),
        ("loop_allocations_total", report.loop_allocations.map_or("not counted".to_owned(), |n| n.to_string())),
        ("long_overruns_total", report.total_long_overruns.to_string()),
        ("states_rejected_total", now.states_rejected.to_string()),
        ("states_unpaired_total", now.states_unpaired.to_string()),
        ("odometry_rejected_total", now.odometry_rejected.to_string()),
        ("ticks_refused_total", now.ticks_refused.to_string()),
        ("references_accepted_total", now.references_accepted.to_string()),
        ("references_rejected_total", now.references_rejected.to_string()),
        ("references_clamped_total", now.references_clamped.to_string()),
        ("safe_output_non_finite_total", now.safe_outputs_non_finite.to_string()),
        ("external_wrenches_rejected_total", now.wrenches_rejected.to_string()),
        ("status_lines_dropped_total", now.status_lines_dropped.to_string()),
        ("joint_commands_accepted_total", now.joint_commands_accepted.to_string()),
        ("joint_commands_rejected_total", now.joint_commands_rejected.to_string()),
        ("simulation_requests_refused_total", now.simulation_requests_refused.to_string()),
    ]
}

/// The terminal line: loop figures, then inputs.
pub fn status_line(report: &LoopReport, now: &CounterSnapshot, input: Freshness, watched: &WatchedInput) -> String {
    let command = match input {
        Freshness::NeverReceived => format!("no {} yet", watched.name),
        Freshness::Fresh => format!("{} fresh", watched.name),
        Freshness::Stale => format!("{} STALE", watched.name),
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
        let s = status(&report, &now, &before, Freshness::Fresh, &WatchedInput::effort_command());
        assert_eq!(s.level, Level::Warn);
        assert_eq!(s.message, "running at 999.7 Hz; 2 overruns; 5 commands rejected (3 wrong length, 2 NaN/inf)");
        let get = |k: &str| s.values.iter().find(|(key, _)| *key == k).map(|(_, v)| v.clone());
        assert_eq!(get("commands_rejected_total").as_deref(), Some("6"));
        assert_eq!(get("commands_rejected_non_finite_total").as_deref(), Some("2"));
        assert_eq!(get("input_state").as_deref(), Some("fresh"));
    }

    #[test]
    fn a_quiet_window_is_ok() {
        let report = LoopReport { rate_hz: 1000.0, ..Default::default() };
        let c = CounterSnapshot::default();
        let watched = WatchedInput { name: "measured state", when_stale: "the safe output: gravity hold".to_owned() };
        let s = status(&report, &c, &c, Freshness::NeverReceived, &watched);
        assert_eq!((s.level, s.message.as_str()), (Level::Ok, "running at 1000.0 Hz"));
        let s = status(&report, &c, &c, Freshness::Stale, &watched);
        assert_eq!(s.level, Level::Warn);
        assert_eq!(s.message, "running at 1000.0 Hz; measured state stale: applying the safe output: gravity hold");
    }
}

//! The benchmark's outputs: `results.json` (everything), `results.md` (every table) and
//! the section of docs/BENCHMARKS.md between `<!-- solvers:begin -->` and
//! `<!-- solvers:end -->` (the known results as measured, the runs at the middle
//! tolerance, the figures).

use std::fmt::Write as _;
use std::path::Path;

use super::{BenchError, Curve, Results, Trajectory, Variant};
use crate::config::SolverKind;
use crate::contact::ContactModel;

const BEGIN: &str = "<!-- solvers:begin -->";
const END: &str = "<!-- solvers:end -->";

fn output_error(path: &Path, e: impl std::fmt::Display) -> BenchError {
    BenchError::Output { path: path.display().to_string(), message: e.to_string() }
}

/// Writes `text` to `path`, creating its directory.
pub(crate) fn write(path: &Path, text: &str) -> Result<(), BenchError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| output_error(dir, e))?;
    }
    std::fs::write(path, text).map_err(|e| output_error(path, e))
}

/// `results.json`.
pub fn json(results: &Results) -> Result<String, BenchError> {
    serde_json::to_string(results)
        .map_err(|e| BenchError::Output { path: "results.json".into(), message: e.to_string() })
}

/// A number for a table: engineering notation for the small and the large, "—" for none.
fn num(x: f64) -> String {
    if x.is_nan() {
        "—".into()
    } else if x == 0.0 {
        "0".into()
    } else if x.is_infinite() {
        "∞".into()
    } else if (1e-2..1e4).contains(&x.abs()) {
        // Three significant digits.
        let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.1e}")
    }
}

fn tol(x: f64) -> String {
    format!("{x:e}")
}

/// The table of one scenario's runs at `tolerance` (all tolerances if None).
fn scenario_table(out: &mut String, runs: &[&Trajectory]) {
    let Some(first) = runs.first() else { return };
    let outcomes: Vec<String> = first
        .outcomes
        .iter()
        .map(|o| match o.reference {
            Some(r) => format!("{} [exact {}]", o.name, num(r)),
            None => o.name.to_owned(),
        })
        .collect();
    let _ = write!(
        out,
        "| solver | tol | µs/step (median) | iterations (mean, max) | not converged | ε_p | ε_d | ε_c | Signorini | MDP | penetration (m) | trajectory error (m·s) |"
    );
    for o in &outcomes {
        let _ = write!(out, " {o} |");
    }
    out.push('\n');
    out.push_str(&"|---".repeat(12 + outcomes.len()));
    out.push_str("|\n");
    for t in runs {
        let failed = t.failure.as_ref().map_or(String::new(), |f| format!(" ({f})"));
        let _ = write!(
            out,
            "| {}{} | {} | {} | {}, {} | {} / {} | {} | {} | {} | {} | {} | {} | {} |",
            t.variant.label(),
            failed,
            tol(t.tolerance),
            num(t.step_us[0]),
            num(t.iterations[0]),
            num(t.iterations[1]),
            t.not_converged,
            t.steps,
            num(t.worst.eps_p),
            num(t.worst.eps_d),
            num(t.worst.eps_c),
            num(t.worst.signorini),
            num(t.worst.mdp),
            num(t.penetration),
            t.drift.map_or("—".into(), num),
        );
        for o in &t.outcomes {
            let _ = write!(out, " {} |", num(o.value));
        }
        out.push('\n');
    }
}

fn find<'a>(results: &'a Results, scenario: &str, label: &str, tolerance: f64) -> Option<&'a Trajectory> {
    results
        .trajectories
        .iter()
        .find(|t| t.scenario == scenario && t.variant.label() == label && t.tolerance == tolerance)
}

fn outcome(t: &Trajectory, prefix: &str) -> f64 {
    t.outcomes.iter().find(|o| o.name.starts_with(prefix)).map_or(f64::NAN, |o| o.value)
}

/// The tolerance the doc shows: the one nearest 10⁻⁶.
fn middle(results: &Results) -> f64 {
    results
        .tolerances
        .iter()
        .copied()
        .min_by(|a, b| (a.log10() + 6.0).abs().total_cmp(&(b.log10() + 6.0).abs()))
        .unwrap_or(1e-6)
}

/// The qualitative results seed 002 reports, read off the measurements (nothing here is
/// asserted: a row says what the runs show).
fn known_results(out: &mut String, results: &Results) {
    let tol = middle(results);
    let admm = Variant { solver: SolverKind::Admm, model: ContactModel::Ncp }.label();
    let pgs = Variant { solver: SolverKind::Pgs, model: ContactModel::Ncp }.label();
    let _ = writeln!(out, "| seed 002's finding | what the runs at tolerance {} show |\n|---|---|", self::tol(tol));
    let mut rows = Vec::new();
    // PGS stalls on mass ratios.
    let stacks: Vec<String> = ["stack-1", "stack-1e3", "stack-1e6"]
        .iter()
        .filter_map(|s| {
            let (p, a) = (find(results, s, &pgs, tol)?, find(results, s, &admm, tol)?);
            Some(format!(
                "{s}: {pgs} {} of {} steps unconverged, ε_abs {}, sink {} mm; {admm} {} unconverged, ε_abs {}",
                p.not_converged,
                p.steps,
                num(p.worst.eps_abs),
                num(outcome(p, "sink")),
                a.not_converged,
                num(a.worst.eps_abs)
            ))
        })
        .collect();
    if !stacks.is_empty() {
        rows.push(("PGS stalls on mass ratios ≥ 10³", stacks.join("; ")));
    }
    // CCP glides.
    let glides: Vec<String> = results
        .trajectories
        .iter()
        .filter(|t| t.scenario == "slide" && t.tolerance == tol)
        .map(|t| format!("{} {} mm", t.variant.label(), num(outcome(t, "largest gap"))))
        .collect();
    if !glides.is_empty() {
        rows.push(("the CCP glides (slide: the largest gap while sliding, where the CCP's contact velocity c_N = μ‖c_T‖ throws the cube up)", glides.join(", ")));
    }
    // LCP veers.
    let veers: Vec<String> = results
        .trajectories
        .iter()
        .filter(|t| t.scenario == "slide" && t.tolerance == tol)
        .map(|t| format!("{} {}°", t.variant.label(), num(outcome(t, "heading"))))
        .collect();
    if !veers.is_empty() {
        rows.push(("the pyramid LCP veers (slide: heading error)", veers.join(", ")));
    }
    // NCP-ADMM exact.
    let admm_runs: Vec<&Trajectory> =
        results.trajectories.iter().filter(|t| t.variant.label() == admm && t.tolerance == tol).collect();
    if !admm_runs.is_empty() {
        let exact: Vec<&str> = admm_runs.iter().filter(|t| t.not_converged == 0).map(|t| t.scenario).collect();
        let misses: Vec<String> = admm_runs
            .iter()
            .filter(|t| t.not_converged > 0)
            .map(|t| {
                format!(
                    "{} ({} of {} steps short of the tolerance, ε_abs up to {})",
                    t.scenario,
                    t.not_converged,
                    t.steps,
                    num(t.worst.eps_abs)
                )
            })
            .collect();
        let worst = admm_runs.iter().filter(|t| t.not_converged == 0).map(|t| t.worst.eps_abs).fold(0.0f64, f64::max);
        rows.push((
            "the NCP by seed 000's ADMM is exact",
            format!(
                "{admm}: every step to the tolerance in {} of {} scenarios (largest ε_abs there {}){}",
                exact.len(),
                admm_runs.len(),
                num(worst),
                if misses.is_empty() { String::new() } else { format!("; not in {}", misses.join(", ")) }
            ),
        ));
    }
    for (finding, measured) in rows {
        let _ = writeln!(out, "| {finding} | {measured} |");
    }
}

/// Dolan–Moré: for each variant, the fraction of problems it solves to `target` within a
/// factor τ of the fastest variant's time, at each τ of `taus`.
pub fn performance_profile(curves: &[Curve], target: f64, taus: &[f64]) -> Vec<(Variant, Vec<f64>)> {
    let mut problems: Vec<(&str, &str)> = curves.iter().map(|c| (c.scenario, c.problem.as_str())).collect();
    problems.sort();
    problems.dedup();
    let mut variants: Vec<Variant> = Vec::new();
    for c in curves {
        if !variants.contains(&c.variant) {
            variants.push(c.variant);
        }
    }
    let time = |c: &Curve| c.points.iter().filter(|p| p.eps_abs <= target).map(|p| p.us).fold(f64::INFINITY, f64::min);
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for (s, p) in &problems {
        let times: Vec<f64> = variants
            .iter()
            .map(|v| {
                curves
                    .iter()
                    .find(|c| c.scenario == *s && c.problem == *p && c.variant == *v)
                    .map_or(f64::INFINITY, time)
            })
            .collect();
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        for (k, t) in times.iter().enumerate() {
            ratios[k].push(if best.is_finite() { t / best } else { f64::INFINITY });
        }
    }
    variants
        .into_iter()
        .zip(ratios)
        .map(|(v, r)| {
            let n = r.len().max(1) as f64;
            (v, taus.iter().map(|&tau| r.iter().filter(|&&x| x <= tau).count() as f64 / n).collect())
        })
        .collect()
}

fn profile_table(out: &mut String, results: &Results, target: f64) {
    let taus = [1.0, 2.0, 10.0, 100.0];
    let profile = performance_profile(&results.curves, target, &taus);
    let _ = writeln!(
        out,
        "| solver | solved to ε_abs ≤ {} | fastest | within 2× | within 10× | within 100× |\n|---|---:|---:|---:|---:|---:|",
        num(target)
    );
    let solved = |v: &Variant| {
        let mine: Vec<&Curve> = results.curves.iter().filter(|c| c.variant == *v).collect();
        let ok = mine.iter().filter(|c| c.points.iter().any(|p| p.eps_abs <= target)).count();
        format!("{ok} / {}", mine.len())
    };
    for (v, fractions) in &profile {
        let _ = write!(out, "| {} | {} |", v.label(), solved(v));
        for f in fractions {
            let _ = write!(out, " {:.0} % |", 100.0 * f);
        }
        out.push('\n');
    }
}

/// `results.md`: every table.
pub fn markdown(results: &Results, command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Contact solvers on the scenario suite\n");
    let _ = writeln!(out, "{} Command: `{command}` ({:.0} s).\n", results.measured, results.wall_s);
    known_results(&mut out, results);
    for (name, about) in &results.scenarios {
        let _ = writeln!(out, "\n## {name}: {about}\n");
        let runs: Vec<&Trajectory> = results.trajectories.iter().filter(|t| t.scenario == name).collect();
        scenario_table(&mut out, &runs);
    }
    let _ = writeln!(out, "\n## Performance profiles (cold solves of the reference runs' problems)\n");
    for target in [1e-4, 1e-6] {
        profile_table(&mut out, results, target);
        out.push('\n');
    }
    out
}

/// The section of docs/BENCHMARKS.md.
pub fn doc_section(results: &Results, command: &str, figures: &str) -> String {
    let tol = middle(results);
    let mut out = String::new();
    let _ = writeln!(out, "{BEGIN}");
    let _ = writeln!(
        out,
        "{} Every solver on every scenario (`signorini bench`, src/bench/): each scenario simulated with each solver at each tolerance, warm-started step to step with the active-set polish of the warm start off (each solver does its own work; seed 000's ADMM polishes its own iterate mid-solve, as in the simulator, and Anderson-accelerates it), every step measured by the same NCP criteria of seed 002 §2.3 (force units: ε_p cone violation, ε_d Signorini feasibility with the De Saxcé term, ε_c complementarity, split into its Signorini and maximum-dissipation parts, whatever model the solver solves); the trajectory error is seed 002's Σ‖q − q̄‖Δt against seed 000's ADMM on the NCP at the tightest tolerance. Command: `{command}` ({:.0} s). Full tables at every tolerance: [{figures}/results.md]({figures}/results.md); data: [{figures}/results.json]({figures}/results.json).\n",
        results.measured, results.wall_s
    );
    known_results(&mut out, results);
    let _ = writeln!(
        out,
        "\nRuns at tolerance {} (the scenario's own measures last, with their exact values):",
        self::tol(tol)
    );
    for (name, about) in &results.scenarios {
        let _ = writeln!(out, "\n**{name}**: {about}\n");
        let runs: Vec<&Trajectory> =
            results.trajectories.iter().filter(|t| t.scenario == name && t.tolerance == tol).collect();
        scenario_table(&mut out, &runs);
    }
    let _ = writeln!(
        out,
        "\nConvergence on single problems (cold; the NCP criterion of the iterate after 1, 2, 3, 5, 8, … iterations; one panel per problem, taken from the reference runs: the step with the most loaded contacts):\n\n![convergence]({figures}/convergence.png)\n\nThe same against time:\n\n![time against accuracy]({figures}/work_precision.png)\n\nPerformance profiles (seed 000 Fig. 7: the fraction of the problems a solver solves to the accuracy within τ times the fastest solver's time):\n\n![performance profiles]({figures}/profiles.png)\n"
    );
    for target in [1e-4, 1e-6] {
        profile_table(&mut out, results, target);
        out.push('\n');
    }
    let _ = writeln!(out, "{END}");
    out
}

/// Replaces the section in `doc` (appends it if the markers are absent; creates the file).
pub fn update_doc(doc: &Path, section: &str) -> Result<(), BenchError> {
    let text =
        if doc.exists() { std::fs::read_to_string(doc).map_err(|e| output_error(doc, e))? } else { String::new() };
    let updated = match (text.find(BEGIN), text.find(END)) {
        (Some(a), Some(b)) if a < b => format!("{}{}{}", &text[..a], section.trim_end(), &text[b + END.len()..]),
        _ => format!("{}{}{section}", text, if text.is_empty() || text.ends_with("\n\n") { "" } else { "\n" }),
    };
    write(doc, &updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Point;

    fn curve(problem: &str, variant: Variant, points: &[(f64, f64)]) -> Curve {
        Curve {
            scenario: "s",
            problem: problem.into(),
            contacts: 1,
            variant,
            points: points
                .iter()
                .enumerate()
                .map(|(k, &(us, eps_abs))| Point { iterations: k + 1, us, eps_abs })
                .collect(),
        }
    }

    /// Dolan–Moré by hand: on problem a, `admm` reaches 10⁻⁶ at 10 µs and `pgs` at 20 µs;
    /// on b, `admm` never does and `pgs` at 5 µs. Ratios to the best: admm (1, ∞), pgs
    /// (2, 1).
    #[test]
    fn performance_profile_by_hand() {
        let admm = Variant { solver: SolverKind::Admm, model: ContactModel::Ncp };
        let pgs = Variant { solver: SolverKind::Pgs, model: ContactModel::Ncp };
        let curves = [
            curve("a", admm, &[(4.0, 1e-3), (10.0, 1e-7)]),
            curve("a", pgs, &[(20.0, 1e-6)]),
            curve("b", admm, &[(1.0, 1.0), (50.0, 1e-2)]),
            curve("b", pgs, &[(2.0, 1e-4), (5.0, 1e-8)]),
        ];
        let profile = performance_profile(&curves, 1e-6, &[1.0, 1.5, 2.0, 1e9]);
        assert_eq!(profile[0], (admm, vec![0.5, 0.5, 0.5, 0.5]));
        assert_eq!(profile[1], (pgs, vec![0.5, 0.5, 1.0, 1.0]));
    }

    #[test]
    fn the_doc_section_is_replaced_or_appended() {
        let dir = crate::scratch::private_dir("signorini-report").unwrap();
        let doc = dir.join("B.md");
        write(&doc, &format!("# top\n\n{BEGIN}\nold\n{END}\n\n## after\n")).unwrap();
        update_doc(&doc, &format!("{BEGIN}\nnew\n{END}\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&doc).unwrap(), format!("# top\n\n{BEGIN}\nnew\n{END}\n\n## after\n"));
        let other = dir.join("C.md");
        write(&other, "# only text\n").unwrap();
        update_doc(&other, &format!("{BEGIN}\nnew\n{END}\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&other).unwrap(), format!("# only text\n\n{BEGIN}\nnew\n{END}\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn numbers_have_three_significant_digits() {
        assert_eq!(num(0.20389), "0.204");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(1234.5), "1234");
        assert_eq!(num(1.5e-5), "1.5e-5");
        assert_eq!(num(f64::NAN), "—");
        assert_eq!(num(0.0), "0");
    }
}

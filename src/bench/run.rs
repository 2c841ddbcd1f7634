//! The two measurements of the benchmark.
//!
//! - [`trajectory`]: a scenario simulated with one solver at one tolerance, warm-started
//!   step to step as the simulator runs (the warm start's active-set polish off, so that
//!   each solver does its own work; seed 000's ADMM polishes its own iterate, as the
//!   simulator's does): time per step, iterations, the seed 002 criteria of every step
//!   (ε_p, ε_d, ε_c in force units, the Signorini and maximum-dissipation parts), the
//!   deepest penetration, the scene's own measures, and the trajectory error
//!   Σ‖q − q̄‖Δt (seed 002 §IV-A) against the reference run (seed 000's ADMM on the NCP at
//!   the tightest tolerance).
//! - [`curve`]: one contact problem taken from a reference run, solved cold by one solver
//!   stopped after 1, 2, 3, 5, 8, … iterations: the NCP criterion ε_abs of each iterate
//!   against iterations and time (the convergence and work–precision plots, and the
//!   performance profiles).

use std::time::Instant;

use serde::Serialize;

use crate::config::ContactConfig;
use crate::contact::{AdmmOptions, ContactModel, ContactProblem, Metrics, SolveResult, StoppingRule};
use crate::sim::{Stepper, World};

use crate::scenes::Sources;
use crate::scenes::suite::{Outcome, Scenario};

use super::{BenchError, Variant};

/// Contacts a step may have.
const CAPACITY: usize = 512;

/// The positions compared between trajectories: the robot's q and each body's position.
pub(crate) fn positions(world: &World, out: &mut Vec<f64>) {
    out.clear();
    if let Some(r) = &world.robot {
        out.extend_from_slice(&r.q);
    }
    for s in &world.states {
        out.extend(s.pose.translation.iter());
    }
}

/// The name of a reference run's problem with the most loaded contacts.
pub(crate) const MOST_LOADED: &str = "most loaded contacts";

/// One trajectory run's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Trajectory {
    /// Scenario.
    pub scenario: &'static str,
    /// Solver and model.
    pub variant: Variant,
    /// The solver's tolerance.
    pub tolerance: f64,
    /// Steps done (fewer than asked if the state stopped being finite).
    pub steps: usize,
    /// Why the run stopped early, if it did.
    pub failure: Option<String>,
    /// Wall time of a step: median, mean, largest (µs).
    pub step_us: [f64; 3],
    /// Solver iterations per step with contacts: mean, largest.
    pub iterations: [f64; 2],
    /// Steps whose solve missed the tolerance.
    pub not_converged: usize,
    /// Contacts per step: mean, largest.
    pub contacts: [f64; 2],
    /// Largest over the steps of ε_p, ε_d, ε_c, ε_abs (seed 002 §2.3, force units) and of
    /// the Signorini and maximum-dissipation parts of ε_c.
    #[serde(flatten)]
    pub worst: Metrics,
    /// Deepest penetration (m).
    pub penetration: f64,
    /// Σ‖q − q̄‖Δt against the reference run (m·s; 0 for the reference itself).
    pub drift: Option<f64>,
    /// The scene's own measures.
    pub outcomes: Vec<Outcome>,
}

/// What the reference run leaves for the others: its positions per step and the
/// problems it met (the one with the most loaded contacts, and the last one).
pub(crate) struct Reference {
    pub positions: Vec<Vec<f64>>,
    pub problems: Vec<(String, ContactProblem, f64)>,
}

/// A copy of `problem` with G built, whatever its size: the simulator solves an island
/// beyond the dense limit by W alone (the 15-cube wall's 101 contacts), and the solvers
/// the kept problems go to (PGS, Chrono's ADMM, ...) need G.
fn with_delassus(problem: &ContactProblem) -> ContactProblem {
    let mut p = problem.clone();
    p.build_delassus_any_size();
    p
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Simulates `scenario` for its duration times `scale` with `variant` at `tolerance`;
/// with `reference`, compares against its positions; with `keep`, returns the positions
/// and two of the problems met.
pub(crate) fn trajectory(
    scenario: &Scenario,
    sources: &Sources,
    variant: Variant,
    tolerance: f64,
    scale: f64,
    reference: Option<&Reference>,
    keep: bool,
) -> Result<(Trajectory, Option<Reference>), BenchError> {
    let scene = scenario.build(sources)?;
    let (mut world, mut script) = (scene.world, scene.script);
    let dt = 1e-3;
    let contact = ContactConfig {
        solver: variant.solver,
        model: variant.model,
        tolerance: crate::config::PositiveF64::new(tolerance)
            .ok_or_else(|| BenchError::Options(format!("tolerance {tolerance} is not positive")))?,
        polish: false,
        fallback: crate::config::Fallback::None,
        ..Default::default()
    };
    let mut stepper = Stepper::new(&world, dt, &contact.settings(), CAPACITY);
    let nv = world.robot.as_ref().map_or(0, |r| r.model.nv);
    let mut tau = vec![0.0; nv];
    let steps = ((scenario.duration * scale / dt).round() as usize).max(1);
    let (mut times, mut iterations, mut contacts) = (Vec::with_capacity(steps), Vec::new(), Vec::new());
    let mut out = Trajectory {
        scenario: scenario.name,
        variant,
        tolerance,
        steps: 0,
        failure: None,
        step_us: [f64::NAN; 3],
        iterations: [0.0; 2],
        not_converged: 0,
        contacts: [0.0; 2],
        worst: Metrics::default(),
        penetration: 0.0,
        drift: reference.map(|_| 0.0),
        outcomes: Vec::new(),
    };
    let mut kept = keep.then(|| Reference { positions: Vec::with_capacity(steps), problems: Vec::new() });
    let (mut most, mut q) = (0usize, Vec::new());
    let mut last_problem = None;
    for k in 0..steps {
        tau.fill(0.0);
        script.drive(&mut world, &mut tau);
        let start = Instant::now();
        let report = stepper.step(&mut world, &tau);
        times.push(start.elapsed().as_secs_f64() * 1e6);
        let r = *report;
        out.steps = k + 1;
        if r.contacts > 0 {
            iterations.push(r.iterations as f64);
            out.not_converged += usize::from(!r.converged);
        }
        contacts.push(r.contacts as f64);
        out.worst = out.worst.worst(&r.metrics);
        out.penetration = out.penetration.max(r.max_penetration);
        script.observe(&world, &stepper);
        if !world.is_finite() {
            out.failure = Some(format!("the state stopped being finite at t = {:.3} s", world.time));
            break;
        }
        positions(&world, &mut q);
        if let (Some(reference), Some(drift)) = (reference, out.drift.as_mut())
            && let Some(qr) = reference.positions.get(k)
        {
            *drift += q.iter().zip(qr).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt() * dt;
        }
        if let Some(kept) = kept.as_mut() {
            kept.positions.push(q.clone());
            let n = stepper.problem().contacts();
            // The most contacts carrying load (the latest of equals: a settled state).
            let loaded = (0..n).filter(|&i| stepper.impulses().get(3 * i + 2).is_some_and(|&x| x > 0.0)).count();
            if loaded > 0 && loaded >= most {
                most = loaded;
                kept.problems.retain(|(what, ..)| what != MOST_LOADED);
                kept.problems.push((MOST_LOADED.into(), with_delassus(stepper.problem()), dt));
            }
            if n > 0 {
                last_problem = Some(stepper.problem().clone());
            }
        }
    }
    if let (Some(kept), Some(p)) = (kept.as_mut(), last_problem) {
        kept.problems.push(("last step".into(), with_delassus(&p), dt));
    }
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    let max = |v: &[f64]| v.iter().copied().fold(0.0f64, f64::max);
    out.step_us = [median(&mut times.clone()), mean(&times), max(&times)];
    out.iterations = [mean(&iterations), max(&iterations)];
    out.contacts = [mean(&contacts), max(&contacts)];
    out.outcomes = script.outcomes(&world);
    Ok((out, kept))
}

/// One point of a convergence curve.
#[derive(Copy, Clone, Debug, Serialize)]
pub struct Point {
    /// Iterations done.
    pub iterations: usize,
    /// Wall time of the solve (µs, the fastest of a few repetitions).
    pub us: f64,
    /// The NCP criterion of the iterate (seed 002 §2.3, force units).
    pub eps_abs: f64,
}

/// A solver's convergence on one problem.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    /// Scenario the problem comes from.
    pub scenario: &'static str,
    /// Which of its problems ("most loaded contacts", "last step").
    pub problem: String,
    /// Contacts of the problem.
    pub contacts: usize,
    /// Solver and model.
    pub variant: Variant,
    /// ε_abs after each iteration budget.
    pub points: Vec<Point>,
}

/// The iteration budgets of a curve.
pub(crate) const BUDGETS: [usize; 15] = [1, 2, 3, 5, 8, 13, 20, 32, 50, 80, 126, 200, 316, 500, 1000];

/// Solves `problem` cold with `variant` stopped after each of [`BUDGETS`] iterations (or
/// at 10⁻¹⁴, where it stops early); the solver's refusal is the scenario's error.
pub(crate) fn curve(
    scenario: &'static str,
    what: &str,
    problem: &ContactProblem,
    dt: f64,
    variant: Variant,
) -> Result<Curve, BenchError> {
    let n = problem.contacts();
    let mut points = Vec::new();
    let mut sigma = vec![0.0; 3 * n];
    let mut result = SolveResult::with_capacity(n, 0);
    for budget in BUDGETS {
        let stop = StoppingRule { absolute: 1e-14, max_iterations: budget, ..Default::default() };
        let mut solver = variant.solver.build(variant.model, stop, AdmmOptions::default(), n, false);
        // The fastest of repetitions filling about a millisecond (at least one).
        let mut best = f64::INFINITY;
        let started = Instant::now();
        let mut reps = 0;
        while reps < 3 || (started.elapsed().as_secs_f64() < 1e-3 && reps < 200) {
            let t = Instant::now();
            solver
                .solve(problem, None, &mut result)
                .map_err(|e| BenchError::Scene { scenario: scenario.to_owned(), message: format!("{what}: {e}") })?;
            best = best.min(t.elapsed().as_secs_f64() * 1e6);
            reps += 1;
            if t.elapsed().as_secs_f64() > 0.05 {
                break;
            }
        }
        let lambda_finite = result.lambda.iter().all(|x| x.is_finite());
        let eps = if lambda_finite {
            Metrics::evaluate(problem, &result.lambda, dt, ContactModel::Ncp, &mut sigma).eps_abs
        } else {
            f64::INFINITY
        };
        points.push(Point { iterations: result.stats.iterations, us: best, eps_abs: eps });
        if result.converged || result.stats.iterations < budget {
            break;
        }
    }
    Ok(Curve { scenario, problem: what.to_owned(), contacts: n, variant, points })
}

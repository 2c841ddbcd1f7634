//! `signorini solve`: one contact problem given as JSON (G, g, μ, R) through a solver,
//! the solution and its NCP criteria as JSON (the contract is in README.md). Lets
//! researchers run their own problem sets (FCLIB-style) through the solvers.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{InputError, parse_json};

use crate::contact::{
    AdmmOptions, ContactModel, ContactProblem, Metrics, Residuals, SolveError, SolveResult, StoppingRule,
};

/// The input file. Contact blocks are ordered (Tx, Ty, N).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveInput {
    /// G, 3 n_c rows of 3 n_c (symmetric positive semi-definite).
    #[serde(rename = "G")]
    pub g_matrix: Vec<Vec<f64>>,
    /// g, 3 n_c.
    pub g: Vec<f64>,
    /// μ, n_c.
    pub mu: Vec<f64>,
    /// Diagonal of R, 3 n_c (default 0: rigid).
    #[serde(rename = "R", default)]
    pub r: Vec<f64>,
}

/// Which solver and how.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SolveOptions {
    /// `admm`, `pgs` or `lcp`.
    pub solver: crate::config::SolverKind,
    /// NCP or CCP (the LCP has its own).
    pub model: ContactModel,
    /// Absolute tolerance.
    pub tolerance: f64,
    /// Iteration cap.
    pub max_iterations: usize,
}

/// The NCP criteria in the output.
#[derive(Clone, Debug, Serialize)]
pub struct OutputMetrics {
    /// Coulomb cone violation.
    pub eps_p: f64,
    /// Dual feasibility (Signorini, with the De Saxcé term).
    pub eps_d: f64,
    /// Complementarity.
    pub eps_c: f64,
    /// Its Signorini part.
    pub signorini: f64,
    /// Its maximum-dissipation part.
    pub mdp: f64,
}

/// The output document.
#[derive(Clone, Debug, Serialize)]
pub struct SolveOutput {
    /// Impulses, 3 per contact.
    pub lambda: Vec<f64>,
    /// Contact velocities σ = (G + R)λ + g, 3 per contact.
    pub sigma: Vec<f64>,
    /// Iterations (ADMM) or sweeps (PGS).
    pub iterations: usize,
    /// Whether the tolerance was reached.
    pub converged: bool,
    /// The solver's final residuals.
    pub residuals: Residuals,
    /// The NCP criterion of λ (always the NCP, also for `--mode ccp`), in the problem's units.
    pub metrics: OutputMetrics,
    /// Median wall time of one cold solve (µs), over repeated solves.
    pub solve_us: f64,
}

/// Parses and checks an input document.
pub fn parse_input(text: &str, file: &str) -> Result<ContactProblem, InputError> {
    let err = |key: &str, message: String| InputError::new(file, key, message);
    let input: SolveInput = parse_json(text, file)?;
    ContactProblem::from_dense(&input.g_matrix, &input.g, &input.mu, &input.r).map_err(|e| {
        use crate::contact::ProblemError;
        match e {
            ProblemError::Size { key, expected, found } => err(key, format!("expected {expected} values, got {found}")),
            ProblemError::Value { key, index, reason } => err(&format!("{key}[{index}]"), reason.to_owned()),
            ProblemError::Capacity { .. } => err("(top level)", e.to_string()),
        }
    })
}

/// Solves, times and evaluates; the solver's refusal is returned.
pub fn solve(problem: &ContactProblem, options: &SolveOptions) -> Result<SolveOutput, SolveError> {
    let n = problem.contacts();
    let stop =
        StoppingRule { absolute: options.tolerance, max_iterations: options.max_iterations, ..Default::default() };
    let model = options.model;
    let mut solver = options.solver.build(model, stop, AdmmOptions::default(), n, false);
    let mut result = SolveResult::with_capacity(n, 0);
    // Repeat the cold solve (at least 5 times, for about 20 ms) and keep the median.
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed().as_secs_f64() < 0.02 && times.len() < 10_000) {
        let t = Instant::now();
        solver.solve(problem, None, &mut result)?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let mut sigma = vec![0.0; 3 * n];
    let m = Metrics::evaluate(problem, &result.lambda, 1.0, ContactModel::Ncp, &mut sigma);
    Ok(SolveOutput {
        lambda: result.lambda.clone(),
        sigma,
        iterations: result.stats.iterations,
        converged: result.converged,
        residuals: result.stats.residuals,
        metrics: OutputMetrics { eps_p: m.eps_p, eps_d: m.eps_d, eps_c: m.eps_c, signorini: m.signorini, mdp: m.mdp },
        solve_us: times[times.len() / 2],
    })
}

//! What every contact solver shares: the [`Solver`] trait, the model it solves
//! ([`ContactModel`]), common settings, the [`SolveResult`] it fills, its [`SolveStats`],
//! the [`WarmStart`] it may start from and the [`SolveError`] it may refuse a problem
//! with. As in Pinocchio 4's constraint solvers, settings (tolerances, rules), result
//! (solution, guesses for the next step, final penalty), stats (counters, residuals, the
//! history recorded only on request) and workspace (private to each solver) are
//! separate. The stages every solve goes through are written once (`solve_skeleton`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::problem::ContactProblem;

/// The contact model a solver enforces.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContactModel {
    /// The exact nonlinear complementarity problem: Signorini, Coulomb and maximum
    /// dissipation (with the De Saxcé correction Γ).
    #[default]
    Ncp,
    /// The cone complementarity relaxation of MuJoCo and Drake (Γ ≡ 0): convex, but a
    /// sliding contact separates at speed μ‖c_T‖ (seed 002 eqs. 16–19).
    Ccp,
    /// The linear complementarity problem of ODE and Bullet: friction on the 4-facet
    /// pyramid, each tangent axis on its own (seed 002 §III-A, [`super::lcp`]; solved by
    /// [`super::PgsSolver`], the configuration's `lcp` solver, not a `contact.model`).
    #[serde(skip)]
    Lcp,
}

/// Stopping rules every solver has.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StoppingRule {
    /// Absolute tolerance on the ∞-norm residuals (seed 000 eq. 43).
    pub absolute: f64,
    /// Stagnation: stop when ‖λ_k − λ_{k−1}‖∞ ≤ relative·max(‖λ_k‖∞, ‖λ_{k−1}‖∞)
    /// (0 disables).
    pub relative: f64,
    /// Iteration cap.
    pub max_iterations: usize,
}

impl Default for StoppingRule {
    fn default() -> Self {
        Self { absolute: 1e-6, relative: 1e-14, max_iterations: 1000 }
    }
}

impl StoppingRule {
    /// Whether every residual is within the absolute tolerance (seed 000 eq. 43).
    pub(crate) fn reached(&self, residuals: &Residuals) -> bool {
        residuals.max() <= self.absolute
    }

    /// The stagnation test on an iterate: ‖now − before‖∞ ≤ relative·max(‖now‖∞,
    /// ‖before‖∞); never when `relative` is 0.
    pub(crate) fn still(&self, now: &[f64], before: &[f64]) -> bool {
        if self.relative <= 0.0 {
            return false;
        }
        let mut change = 0.0f64;
        for (a, b) in now.iter().zip(before) {
            change = change.max((a - b).abs());
        }
        change <= self.relative * norm_inf(now).max(norm_inf(before))
    }
}

/// ∞-norm residuals of a solve (seed 000 eqs. 40–42 for the ADMM; for PGS the NCP
/// criterion's parts).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct Residuals {
    /// Primal: ‖f − y‖∞ (ADMM), cone violation (PGS).
    pub primal: f64,
    /// Dual: ‖η(f_k − f_{k−1}) + ρ(y_k − y_{k−1})‖∞ (ADMM), dual-cone violation (PGS).
    pub dual: f64,
    /// Complementarity: max_i |f_i·z_i|.
    pub complementarity: f64,
}

impl Residuals {
    /// The largest of the three.
    pub fn max(&self) -> f64 {
        self.primal.max(self.dual).max(self.complementarity)
    }
}

/// A previous solution to start from, per contact of the problem being solved (built by
/// [`super::WarmStartCache`] from contact ids).
#[derive(Clone, Debug, Default)]
pub struct WarmStart {
    /// Impulses (3 per contact).
    pub lambda: Vec<f64>,
    /// Duals z = σ + Γ(σ) (3 per contact).
    pub dual: Vec<f64>,
    /// Whether contact i has a previous value.
    pub known: Vec<bool>,
    /// The ADMM's penalty exponent p of the previous solve.
    pub rho_power: Option<f64>,
    /// The start of the ADMM's power iteration for L (3 per contact): the eigenvector
    /// estimate of G + R + ηI the contact's last solve ended with, 1 where there is none
    /// (empty: ones). By contact id, so that each island of a step starts from its own.
    pub eigen: Vec<f64>,
}

impl WarmStart {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            lambda: Vec::with_capacity(3 * capacity),
            dual: Vec::with_capacity(3 * capacity),
            known: Vec::with_capacity(capacity),
            rho_power: None,
            eigen: Vec::with_capacity(3 * capacity),
        }
    }

    /// Contact `i`'s previous impulse projected onto `set` (its feasible set now), if it
    /// has one: the feasible start a solver takes from a warm start.
    pub fn projected(&self, i: usize, set: &super::cone::BlockSet) -> Option<[f64; 3]> {
        let known = self.known.get(i).copied().unwrap_or(false) && self.lambda.len() >= 3 * i + 3;
        known.then(|| set.project(&super::cone::block(&self.lambda, i)))
    }

    /// Every contact of `result`'s problem as known: re-solving the same contact set (for
    /// a moving contact set, [`super::WarmStartCache`] matches contacts by id).
    pub fn from_result(result: &SolveResult) -> Self {
        Self {
            lambda: result.lambda.clone(),
            dual: result.dual.clone(),
            known: vec![true; result.lambda.len() / 3],
            rho_power: (result.rho > 0.0).then_some(result.rho_power),
            eigen: result.eigen.clone(),
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.lambda.clear();
        self.dual.clear();
        self.known.clear();
        self.rho_power = None;
        self.eigen.clear();
    }
}

/// The outcome of a solve: the solution, what the next solve starts from and the final
/// penalty; how the solve went is in its [`SolveStats`]. The buffers are reused from one
/// solve to the next.
#[derive(Clone, Debug, Default)]
pub struct SolveResult {
    /// λ, contact impulses (3 per contact, (Tx, Ty, N)).
    pub lambda: Vec<f64>,
    /// σ, contact velocities at the end of the step.
    pub sigma: Vec<f64>,
    /// z = σ + Γ(σ), the dual (for warm starts).
    pub dual: Vec<f64>,
    /// Whether the tolerance was reached.
    pub converged: bool,
    /// Final ADMM penalty ρ (0 for solvers without one).
    pub rho: f64,
    /// Final penalty exponent p (ρ = √(mL)·κ^p), for the next warm start.
    pub rho_power: f64,
    /// The ADMM's eigenvector estimate of G + R + ηI (3 per contact), for the next warm
    /// start ([`WarmStart::eigen`]): its power iteration's, or the warm start's passed on
    /// when it ran none (the polish, a warm start that already met the tolerance); empty
    /// for the other solvers.
    pub eigen: Vec<f64>,
    /// Counters, final residuals and history.
    pub stats: SolveStats,
}

/// How a solve went: its counters, final residuals and, when the settings ask for it,
/// the residuals of every iteration (Pinocchio's solver stats).
#[derive(Clone, Debug, Default)]
pub struct SolveStats {
    /// Iterations done (0: the starting point already satisfied the tolerance).
    pub iterations: usize,
    /// Whether the relative stagnation rule stopped the solve.
    pub stalled: bool,
    /// Whether the warm start's active set gave the solution ([`super::polish`]; no
    /// iteration).
    pub polished: bool,
    /// Final residuals.
    pub residuals: Residuals,
    /// Cholesky factorizations done (ADMM: 1 + the ρ changes).
    pub factorizations: usize,
    /// Residuals after every iteration, when the settings ask for it.
    pub history: Vec<Residuals>,
}

impl SolveStats {
    /// Clears the counters and the history.
    fn reset(&mut self) {
        self.iterations = 0;
        self.stalled = false;
        self.polished = false;
        self.residuals = Residuals::default();
        self.factorizations = 0;
        self.history.clear();
    }

    /// Iteration `k` ended with `residuals`: counted, kept as the final ones and, if
    /// `keep`, in the history as far as its capacity goes (no allocation).
    pub(crate) fn record(&mut self, k: usize, residuals: Residuals, keep: bool) {
        if keep && self.history.len() < self.history.capacity() {
            self.history.push(residuals);
        }
        self.iterations = k;
        self.residuals = residuals;
    }
}

impl SolveResult {
    /// Buffers for `capacity` contacts and, if `history`, that many iterations.
    pub fn with_capacity(capacity: usize, history: usize) -> Self {
        Self {
            lambda: Vec::with_capacity(3 * capacity),
            sigma: Vec::with_capacity(3 * capacity),
            dual: Vec::with_capacity(3 * capacity),
            eigen: Vec::with_capacity(3 * capacity),
            stats: SolveStats { history: Vec::with_capacity(history), ..Default::default() },
            ..Default::default()
        }
    }

    /// Sizes the vectors for `m` unknowns and clears the counters.
    pub(crate) fn reset(&mut self, m: usize) {
        for v in [&mut self.lambda, &mut self.sigma, &mut self.dual] {
            v.clear();
            v.resize(m, 0.0);
        }
        self.converged = false;
        self.rho = 0.0;
        self.rho_power = 0.0;
        self.eigen.clear();
        self.stats.reset();
    }
}

/// Why a solver refuses a problem. The result is then empty and not converged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Error)]
pub enum SolveError {
    /// More blocks than the solver's workspace was sized for.
    #[error("{contacts} contacts exceed the solver's capacity of {capacity}")]
    Capacity {
        /// Blocks (contacts and joint blocks) of the problem.
        contacts: usize,
        /// Blocks the workspace holds.
        capacity: usize,
    },
    /// A problem wider than the workspace: W's columns, or the rows of G when the solver
    /// factors G itself.
    #[error("{what} ({found}) exceed the solver's capacity of {capacity}")]
    Size {
        /// What is too large.
        what: &'static str,
        /// Its size.
        found: usize,
        /// What the workspace holds.
        capacity: usize,
    },
    /// The solver needs G (V-FPI: G or its factor W) and the problem lacks it
    /// ([`ContactProblem::build_delassus`]).
    #[error("the {solver} solver needs G: ContactProblem::build_delassus")]
    NoDelassus {
        /// The solver's name.
        solver: &'static str,
    },
}

/// What a solver's workspace is sized for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// Blocks: contacts and joint blocks.
    pub blocks: usize,
    /// The columns of W (the bodies' dofs) of the problems assembled from bodies.
    pub cols: usize,
    /// The most contacts of the problems that come with G
    /// ([`ContactProblem::dense_up_to`]); larger ones are solved by W.
    pub dense: usize,
}

impl From<usize> for Capacity {
    /// `blocks` blocks, every problem with G, W narrower than G's rows (G used otherwise).
    fn from(blocks: usize) -> Self {
        Self { blocks, cols: 3 * blocks, dense: blocks }
    }
}

/// A contact solver: fills `result` for `problem`, from `warm` if given. Never allocates
/// once its workspace has been sized for the problem's capacity (see each solver's
/// `with_capacity`).
pub trait Solver {
    /// Short name ("admm", "pgs").
    fn name(&self) -> &'static str;

    /// The model solved.
    fn model(&self) -> ContactModel;

    /// Solves; refuses a problem beyond the workspace's capacity or without what the
    /// solver needs ([`SolveError`], the result then empty and not converged).
    fn solve(
        &mut self,
        problem: &ContactProblem,
        warm: Option<&WarmStart>,
        result: &mut SolveResult,
    ) -> Result<(), SolveError>;

    /// Forgets what the solver carries from one solve to the next, so that the next solve
    /// starts as the first one did: with the warm start's, what a replay from a restored
    /// state needs to repeat a run exactly. (The bundled solvers carry nothing now: the
    /// ADMM's eigenvector estimate travels with the warm start, [`WarmStart::eigen`].)
    fn forget(&mut self) {}
}

/// ‖x‖∞ of a slice.
#[inline]
pub(crate) fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

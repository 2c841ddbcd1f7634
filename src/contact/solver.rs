//! What every contact solver shares: the [`Solver`] trait, the model it solves
//! ([`ContactModel`]), common settings, the [`SolveResult`] it fills and the
//! [`WarmStart`] it may start from. As in Pinocchio 4's constraint solvers, settings
//! (tolerances, rules), result (solution, guesses for the next step, final penalty) and
//! workspace (private to each solver) are separate; history is recorded only on request.

use serde::{Deserialize, Serialize};

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
}

impl WarmStart {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            lambda: Vec::with_capacity(3 * capacity),
            dual: Vec::with_capacity(3 * capacity),
            known: Vec::with_capacity(capacity),
            rho_power: None,
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
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.lambda.clear();
        self.dual.clear();
        self.known.clear();
        self.rho_power = None;
    }
}

/// The outcome of a solve; its buffers are reused from one solve to the next.
#[derive(Clone, Debug, Default)]
pub struct SolveResult {
    /// λ, contact impulses (3 per contact, (Tx, Ty, N)).
    pub lambda: Vec<f64>,
    /// σ, contact velocities at the end of the step.
    pub sigma: Vec<f64>,
    /// z = σ + Γ(σ), the dual (for warm starts).
    pub dual: Vec<f64>,
    /// Iterations done (0: the starting point already satisfied the tolerance).
    pub iterations: usize,
    /// Whether the tolerance was reached.
    pub converged: bool,
    /// Whether the relative stagnation rule stopped the solve.
    pub stalled: bool,
    /// Whether the warm start's active set gave the solution ([`super::polish`]; no
    /// iteration).
    pub polished: bool,
    /// Final residuals.
    pub residuals: Residuals,
    /// Final ADMM penalty ρ (0 for solvers without one).
    pub rho: f64,
    /// Final penalty exponent p (ρ = √(mL)·κ^p), for the next warm start.
    pub rho_power: f64,
    /// Cholesky factorizations done (ADMM: 1 + the ρ changes).
    pub factorizations: usize,
    /// Residuals after every iteration, when the settings ask for it.
    pub history: Vec<Residuals>,
}

impl SolveResult {
    /// Buffers for `capacity` contacts and, if `history`, that many iterations.
    pub fn with_capacity(capacity: usize, history: usize) -> Self {
        Self {
            lambda: Vec::with_capacity(3 * capacity),
            sigma: Vec::with_capacity(3 * capacity),
            dual: Vec::with_capacity(3 * capacity),
            history: Vec::with_capacity(history),
            ..Default::default()
        }
    }

    /// Sizes the vectors for `m` unknowns and clears the counters.
    pub(crate) fn reset(&mut self, m: usize) {
        for v in [&mut self.lambda, &mut self.sigma, &mut self.dual] {
            v.clear();
            v.resize(m, 0.0);
        }
        self.iterations = 0;
        self.converged = false;
        self.stalled = false;
        self.polished = false;
        self.residuals = Residuals::default();
        self.rho = 0.0;
        self.rho_power = 0.0;
        self.factorizations = 0;
        self.history.clear();
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

    /// Solves.
    fn solve(&mut self, problem: &ContactProblem, warm: Option<&WarmStart>, result: &mut SolveResult);
}

/// ‖x‖∞ of a slice.
#[inline]
pub(crate) fn norm_inf(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

//! `contact:` — the contact problem and its solver.

use serde::{Deserialize, Serialize};

use super::scene::NonNegativeF64;
use super::values::{Fraction, PositiveF64};
use crate::contact::{
    AdmmSettings, AdmmSolver, ChronoAdmmSettings, ChronoAdmmSolver, ContactModel, PgsSettings, PgsSolver,
    ProblemSettings, SapSettings, SapSolver, Solver, StoppingRule, VfpiSettings, VfpiSolver, vfpi::Preconditioner,
};

/// Which solver runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// The proximal ADMM (seed 000).
    #[default]
    Admm,
    /// Projected Gauss–Seidel (the baseline).
    Pgs,
    /// The pyramid LCP of ODE and Bullet by projected Gauss–Seidel (`contact.model` does
    /// not apply: its friction is the 4-facet pyramid).
    Lcp,
    /// Project Chrono's ADMM for the CCP (seed 003; `contact.model` does not apply).
    #[serde(rename = "chrono-admm")]
    ChronoAdmm,
    /// Its accelerated variant (FADMM with restart).
    #[serde(rename = "chrono-fadmm")]
    ChronoFadmm,
    /// Drake's SAP (seed 001): the compliant CCP by Newton on velocities; near-rigid
    /// contacts regularized by β = 1, friction by σ = 10⁻³ (`contact.model` does not
    /// apply; `contact.tolerance` is its relative tolerance ε_r).
    Sap,
    /// The velocity fixed-point iteration of seed 004 (virtual nodes, diagonalization,
    /// Chebyshev): the strict operator for `contact.model: ncp`, the proximal one for
    /// `ccp`; the bodies' rows preconditioned by the paper's Frobenius diagonal.
    Vfpi,
    /// The same with the bodies' rows preconditioned by the inverse of their block (an
    /// exact minimization over the bodies' velocities per iteration: the diagonal one
    /// converges slowly on articulated robots).
    #[serde(rename = "vfpi-block")]
    VfpiBlock,
}

/// `contact:` (defaults in the field docs).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of contact settings")]
pub struct ContactConfig {
    /// `admm` (default), `pgs`, `lcp`, `chrono-admm`, `chrono-fadmm`, `sap`, `vfpi` or `vfpi-block`.
    pub solver: SolverKind,
    /// `ncp` (default: Signorini, Coulomb, maximum dissipation) or `ccp` (the convex
    /// relaxation of MuJoCo and Drake).
    pub model: ContactModel,
    /// Absolute tolerance of the solver's residuals (impulse and velocity units). 1e-6.
    pub tolerance: PositiveF64,
    /// Iteration cap. 1000.
    pub max_iterations: std::num::NonZeroUsize,
    /// Fraction of a penetration removed per step (1: all; less: Baumgarte). 1.
    pub penetration_recovery: Fraction,
    /// Approach speed (m/s) below which restitution is ignored. 0.1.
    pub restitution_threshold: NonNegativeF64,
    /// Normal compliance (m/N); 0 = rigid. 0.
    pub compliance_normal: NonNegativeF64,
    /// Tangential compliance (m/N); 0 = exact stiction. 0.
    pub compliance_tangential: NonNegativeF64,
    /// Before the solver, try the previous step's contact modes (sticking, separated, at
    /// a friction bound) as an exact linear solve, kept when it meets the tolerance
    /// ([`crate::contact::polish`]). true.
    pub polish: bool,
    /// When the solver misses its tolerance within `max_iterations`: `none` keeps its last
    /// iterate; `warm_start` keeps the better (by the NCP criterion) of that iterate and the
    /// previous step's impulses; `ccp` also solves the convex relaxation with seed 000's
    /// ADMM (which converges where the exact problem may not) and keeps the best of the
    /// three. Default `ccp`.
    pub fallback: Fallback,
}

/// What a step does with a solve that missed its tolerance.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fallback {
    /// The solver's last iterate.
    None,
    /// The better of the last iterate and the previous step's impulses.
    WarmStart,
    /// The best of those and the convex relaxation's solution (seed 000's ADMM, at least
    /// 1000 iterations; not solved again when the solver that missed is that ADMM on the
    /// CCP with that many).
    #[default]
    Ccp,
}

impl Default for ContactConfig {
    fn default() -> Self {
        let d = ProblemSettings::default();
        let nn = |x| NonNegativeF64::new(x).expect("a non-negative default");
        Self {
            solver: SolverKind::Admm,
            model: ContactModel::Ncp,
            tolerance: PositiveF64::new(1e-6).expect("positive"),
            max_iterations: std::num::NonZeroUsize::new(1000).expect("nonzero"),
            penetration_recovery: Fraction::new(d.penetration_recovery).expect("in (0, 1]"),
            restitution_threshold: nn(d.restitution_threshold),
            compliance_normal: nn(d.compliance_normal),
            compliance_tangential: nn(d.compliance_tangential),
            polish: true,
            fallback: Fallback::Ccp,
        }
    }
}

impl ContactConfig {
    /// How contacts become the problem.
    pub fn problem_settings(&self) -> ProblemSettings {
        ProblemSettings {
            penetration_recovery: self.penetration_recovery.get(),
            restitution_threshold: self.restitution_threshold.get(),
            compliance_normal: self.compliance_normal.get(),
            compliance_tangential: self.compliance_tangential.get(),
        }
    }

    /// The stopping rule.
    pub fn stopping_rule(&self) -> StoppingRule {
        StoppingRule { absolute: self.tolerance.get(), max_iterations: self.max_iterations.get(), ..Default::default() }
    }

    /// The configured solver, sized for `capacity` contacts.
    pub fn solver(&self, capacity: usize) -> Box<dyn Solver + Send> {
        self.solver.build(self.model, self.stopping_rule(), capacity, false)
    }
}

impl SolverKind {
    /// This solver for `model` (where it applies) with `stop`, sized for `capacity`
    /// contacts; with `record`, it keeps its residuals of every iteration in the result's
    /// history (as far as the history's capacity goes).
    pub fn build(
        self,
        model: ContactModel,
        stop: StoppingRule,
        capacity: usize,
        record: bool,
    ) -> Box<dyn Solver + Send> {
        let record_history = record;
        match self {
            SolverKind::Admm => Box::new(AdmmSolver::with_capacity(
                capacity,
                AdmmSettings { model, stop, record_history, ..Default::default() },
            )),
            SolverKind::Pgs => Box::new(PgsSolver::with_capacity(
                capacity,
                PgsSettings { model, stop, record_history, ..Default::default() },
            )),
            SolverKind::Lcp => Box::new(PgsSolver::with_capacity(
                capacity,
                PgsSettings { model: ContactModel::Lcp, stop, record_history, ..Default::default() },
            )),
            SolverKind::ChronoAdmm => Box::new(ChronoAdmmSolver::with_capacity(
                capacity,
                ChronoAdmmSettings { stop, record_history, ..Default::default() },
            )),
            SolverKind::ChronoFadmm => Box::new(ChronoAdmmSolver::with_capacity(
                capacity,
                ChronoAdmmSettings { stop, record_history, ..ChronoAdmmSettings::accelerated() },
            )),
            SolverKind::Sap => Box::new(SapSolver::with_capacity(
                capacity,
                SapSettings {
                    relative: stop.absolute,
                    max_iterations: stop.max_iterations,
                    record_history,
                    ..Default::default()
                },
            )),
            SolverKind::Vfpi => Box::new(VfpiSolver::with_capacity(
                capacity,
                VfpiSettings { model, stop, record_history, ..Default::default() },
            )),
            SolverKind::VfpiBlock => Box::new(VfpiSolver::with_capacity(
                capacity,
                VfpiSettings {
                    model,
                    stop,
                    record_history,
                    preconditioner: Preconditioner::BodyBlock,
                    ..Default::default()
                },
            )),
        }
    }

    /// Every solver.
    pub const ALL: [SolverKind; 8] = [
        SolverKind::Admm,
        SolverKind::Pgs,
        SolverKind::Lcp,
        SolverKind::ChronoAdmm,
        SolverKind::ChronoFadmm,
        SolverKind::Sap,
        SolverKind::Vfpi,
        SolverKind::VfpiBlock,
    ];

    /// The solver's name, as in the configuration and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Admm => "admm",
            SolverKind::Pgs => "pgs",
            SolverKind::Lcp => "lcp",
            SolverKind::ChronoAdmm => "chrono-admm",
            SolverKind::ChronoFadmm => "chrono-fadmm",
            SolverKind::Sap => "sap",
            SolverKind::Vfpi => "vfpi",
            SolverKind::VfpiBlock => "vfpi-block",
        }
    }

    /// The solver of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

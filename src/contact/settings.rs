//! The contact settings a simulation step runs with: which solver, with which stopping
//! rule, on which model, and what it falls back to; plain values, built once (the YAML
//! `contact:` section is read into them by [`crate::config`]).

use serde::{Deserialize, Serialize};

use super::chrono_admm::{ChronoAdmmSettings, ChronoAdmmSolver};
use super::vfpi::Preconditioner;
use super::{
    AdmmSettings, AdmmSolver, Capacity, ContactModel, PgsSettings, PgsSolver, ProblemSettings, SapSettings, SapSolver,
    Solver, StoppingRule, VfpiSettings, VfpiSolver,
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

/// How a simulation step solves its contacts ([`crate::sim::Stepper`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ContactSettings {
    /// The solver.
    pub solver: SolverKind,
    /// The model it enforces (where it applies, see [`SolverKind`]).
    pub model: ContactModel,
    /// Its stopping rule (`absolute` is also the tolerance polish and the fallback meet).
    pub stop: StoppingRule,
    /// How contacts become the problem.
    pub problem: ProblemSettings,
    /// Before the solver, try the previous step's contact modes, and within seed 000's
    /// ADMM its iterate's, by Newton's method on them ([`super::polish`]).
    pub polish: bool,
    /// What a step does with a solve that missed its tolerance.
    pub fallback: Fallback,
    /// Split the step's contacts into islands (connected components of the bodies through
    /// contacts, [`super::islands`]) and solve each on its own.
    pub islands: bool,
    /// Anderson acceleration's depth for seed 000's ADMM (0: the paper's iteration;
    /// [`super::admm::AdmmSettings::anderson`]). Other solvers ignore it.
    pub anderson: usize,
    /// Exponent of seed 000's ADMM's per-contact penalty scale
    /// ([`super::admm::AdmmSettings::contact_scaling`]; 0: the paper's scalar ρ). Other
    /// solvers ignore it.
    pub scaling: f64,
    /// The most times a rigid step is solved again with the points it put more than
    /// 1 µm below a half-space that its problem did not hold ([`crate::sim::Stepper::step`];
    /// 0: never; compliant contacts never are).
    pub regenerate: usize,
}

/// `contact.regenerate`'s default: the times a step may be solved again.
pub const DEFAULT_REGENERATE: usize = 3;

/// The most times `contact.regenerate` lets a step be solved again.
pub const MAX_REGENERATE: usize = 10;

/// What the simulator adds to seed 000's ADMM ([`SolverKind::build`]; other solvers
/// ignore it): Anderson acceleration, the polish of its iterate mid-solve and the
/// per-contact scaling of its penalty.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AdmmOptions {
    /// Anderson's depth ([`super::admm::AdmmSettings::anderson`], `contact.anderson`).
    pub anderson: usize,
    /// The mid-solve polish ([`super::admm::AdmmSettings::polish`], `contact.polish`).
    pub polish: bool,
    /// The exponent of the contacts' penalty scale
    /// ([`super::admm::AdmmSettings::contact_scaling`], `contact.scaling`).
    pub scaling: f64,
}

impl AdmmOptions {
    /// `settings` with these options: what [`SolverKind::build`] gives seed 000's ADMM.
    pub fn apply(self, settings: AdmmSettings) -> AdmmSettings {
        AdmmSettings { anderson: self.anderson, polish: self.polish, contact_scaling: self.scaling, ..settings }
    }
}

impl Default for AdmmOptions {
    /// The simulator's defaults: depth [`DEFAULT_ANDERSON`], polished, each contact's
    /// penalty scaled by [`DEFAULT_CONTACT_SCALING`].
    fn default() -> Self {
        Self { anderson: DEFAULT_ANDERSON, polish: true, scaling: DEFAULT_CONTACT_SCALING }
    }
}

/// Exponent of the simulator's per-contact penalty scale by default: 1, each contact's ρ
/// scaled by its Delassus diagonal (the Jacobi preconditioning of seed 003 eq. 47). Over
/// talos falling from six postures, 39.1 ADMM iterations a step against 50.9 with the
/// paper's scalar ρ, 100 unconverged steps of 12 000 against 125 (scripts/talos_postures.py);
/// on the 15-cube wall hit by the ball, 1 of 100 steps misses 1e-6 against 98
/// (examples/admm_study.rs).
pub const DEFAULT_CONTACT_SCALING: f64 = 1.0;

/// Anderson depth of the simulator's ADMM by default: 5, as Pinocchio 4's
/// `anderson_capacity` examples use; 2 to 30 times fewer iterations on the scenes of
/// `signorini bench` (tests/contact_hard_scenes.rs); talos falling from six postures
/// takes 39.1 iterations a step against 92.2 without (scripts/talos_postures.py).
pub const DEFAULT_ANDERSON: usize = 5;

/// The deepest Anderson history accepted (`contact.anderson`, Python's `solve`): its
/// buffers hold depth × 9 values per contact, and depths beyond a few tens only cost.
pub const MAX_ANDERSON: usize = 20;

/// The largest per-contact scaling exponent accepted (`contact.scaling`, Python's
/// `solve`): beyond 1 the scale overshoots the Jacobi preconditioning.
pub const MAX_CONTACT_SCALING: f64 = 1.0;

impl Default for ContactSettings {
    /// Seed 000's ADMM on the NCP to 1e-6 in at most 1000 iterations, polished, with the
    /// CCP fallback.
    fn default() -> Self {
        Self {
            solver: SolverKind::Admm,
            model: ContactModel::Ncp,
            stop: StoppingRule::default(),
            problem: ProblemSettings::default(),
            polish: true,
            fallback: Fallback::Ccp,
            islands: true,
            anderson: DEFAULT_ANDERSON,
            scaling: DEFAULT_CONTACT_SCALING,
            regenerate: DEFAULT_REGENERATE,
        }
    }
}

impl ContactSettings {
    /// The solver, sized for `capacity` contacts (or a [`Capacity`]).
    pub fn build_solver(&self, capacity: impl Into<Capacity>) -> Box<dyn Solver + Send + Sync> {
        self.solver.build(self.model, self.stop, self.admm_options(), capacity, false)
    }

    /// The ADMM's options these settings give ([`AdmmOptions`]).
    pub fn admm_options(&self) -> AdmmOptions {
        AdmmOptions { anderson: self.anderson, polish: self.polish, scaling: self.scaling }
    }
}

impl SolverKind {
    /// This solver for `model` (where it applies) with `stop` and, for seed 000's ADMM,
    /// the `admm` options, sized for `capacity` contacts (or a [`Capacity`]: only seed
    /// 000's ADMM solves problems without G); with `record`, it keeps its residuals of
    /// every iteration in the result's history (as far as the history's capacity goes).
    pub fn build(
        self,
        model: ContactModel,
        stop: StoppingRule,
        admm: AdmmOptions,
        capacity: impl Into<Capacity>,
        record: bool,
    ) -> Box<dyn Solver + Send + Sync> {
        let record_history = record;
        let sizing = capacity.into();
        let capacity = sizing.blocks;
        match self {
            SolverKind::Admm => Box::new(AdmmSolver::with_sizing(
                sizing,
                admm.apply(AdmmSettings { model, stop, record_history, ..Default::default() }),
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

    /// Whether the solver solves problems without G, by its factor W (seed 000's ADMM):
    /// the simulator then builds G only for islands of at most
    /// [`super::DENSE_CONTACTS`] contacts.
    pub fn works_by_factor(self) -> bool {
        self == SolverKind::Admm
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

//! `contact:` — the contact problem and its solver.

use serde::{Deserialize, Serialize};

use super::scene::NonNegativeF64;
use super::values::{Fraction, PositiveF64};
use crate::contact::{ContactModel, ContactSettings, ProblemSettings, StoppingRule};
pub use crate::contact::{Fallback, SolverKind};

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
    /// Solve each island of the step (the bodies connected through contacts; each tree of
    /// the robot model one body, its joint blocks with it, the static environment
    /// connecting nothing) as its own problem, with its own warm start, polish and
    /// tolerance, over its own bodies' columns (all the robot's dofs when it has one of
    /// its trees) ([`crate::contact::islands`]). Default true.
    pub islands: bool,
    /// Anderson acceleration of seed 000's ADMM: the depth m of the extrapolation over
    /// the last iterates (Pinocchio 4's `anderson_capacity`; 0 or 1: the paper's plain
    /// iteration). Other solvers ignore it. 5.
    pub anderson: usize,
    /// Exponent s of seed 000's ADMM's per-contact penalty: each contact's ρ scaled by
    /// (d_i/d̄)^s, d_i its mean Delassus diagonal, d̄ their geometric mean (1: the Jacobi
    /// preconditioning of seed 003 eq. 47; 0: the paper's scalar ρ). Other solvers ignore
    /// it. 1.
    pub scaling: NonNegativeF64,
    /// The most times a simulation step is solved again when it ends with a point of a
    /// moving shape more than 1 µm below a half-space that its contact problem did not
    /// hold (a hull rocking onto another face than the one its contacts were chosen on, a
    /// shape approaching faster than `collision.margin`/Δt): the points are added, at
    /// their distances at the step's start, and the step solved again (0: never; rigid
    /// contacts only; at most 10). 3.
    pub regenerate: usize,
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
            islands: true,
            anderson: crate::contact::DEFAULT_ANDERSON,
            scaling: nn(crate::contact::DEFAULT_CONTACT_SCALING),
            regenerate: crate::contact::DEFAULT_REGENERATE,
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

    /// The settings a simulation step runs with.
    pub fn settings(&self) -> ContactSettings {
        ContactSettings {
            solver: self.solver,
            model: self.model,
            stop: self.stopping_rule(),
            problem: self.problem_settings(),
            polish: self.polish,
            fallback: self.fallback,
            islands: self.islands,
            anderson: self.anderson,
            scaling: self.scaling.get(),
            regenerate: self.regenerate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_steppers() {
        assert_eq!(ContactConfig::default().settings(), ContactSettings::default());
    }
}

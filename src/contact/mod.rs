//! The frictional contact problem and its solvers (seed 000 and 002).
//!
//! - [`ContactProblem`]: G, g, μ, R of one step ([`problem`]), built from the bodies and
//!   the detected contacts by [`Assembly`] ([`assembly`]).
//! - [`joint_blocks`]: joint position limits (μ = 0 cones) and joint Coulomb friction
//!   (intervals) as blocks of the same problem.
//! - [`cone`]: the friction cone, its dual, the De Saxcé correction, projections, and the
//!   set of each block ([`cone::BlockSet`]).
//! - Solvers behind one [`Solver`] trait, each filling a [`SolveResult`] and its
//!   [`SolveStats`] or refusing the problem with a [`SolveError`], through the same
//!   stages (`solve_skeleton`): [`AdmmSolver`] (seed 000 Alg. 1, the default)
//!   and [`PgsSolver`] (the per-contact baseline), each for the NCP or the CCP;
//!   [`ChronoAdmmSolver`], Project Chrono's ADMM for the CCP (seed 003: balanced ρ, Jacobi
//!   preconditioning, the accelerated variant with restart); [`PgsSolver`] also solves the
//!   pyramid LCP of ODE and Bullet ([`lcp`], the anisotropic baseline); [`SapSolver`],
//!   Drake's SAP (seed 001); [`VfpiSolver`], the velocity fixed-point iteration with
//!   virtual nodes and diagonalization of seed 004 (strict: NCP, proximal: CCP).
//! - [`polish`]: the warm start's active set solved exactly, before the ADMM iterates.
//! - [`Metrics`]: the NCP criteria of seed 002, the same yardstick for every solver.
//! - [`WarmStartCache`]: the previous step's solution by persistent contact id.
// Index loops over parallel per-contact arrays read like the equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod admm;
pub mod anderson;
pub mod assembly;
pub mod chrono_admm;
pub mod cone;
pub mod delassus;
pub mod dense;
pub mod envelope;
pub mod islands;
pub mod joint_blocks;
pub mod lcp;
pub mod metrics;
pub mod pgs;
pub mod polish;
pub mod problem;
pub mod sap;
pub mod settings;
mod solve_skeleton;
pub mod solver;
pub mod vfpi;
pub mod warm_start;

pub use admm::{AdmmSettings, AdmmSolver, Penalty, RhoRule};
pub use assembly::{Assembly, Bodies, Build, ProblemSettings, Subset, row_velocity};
pub use chrono_admm::{ChronoAdmmSettings, ChronoAdmmSolver};
pub use islands::Islands;
pub use joint_blocks::{JointBlock, JointBlockKind};
pub use metrics::Metrics;
pub use pgs::{PgsSettings, PgsSolver};
pub use problem::{ContactProblem, DENSE_CONTACTS, DENSE_FREE_CONTACTS, ProblemError};
pub use sap::{SapSettings, SapSolver};
pub use settings::{
    AdmmOptions, ContactSettings, DEFAULT_ANDERSON, DEFAULT_CONTACT_SCALING, DEFAULT_REGENERATE, Fallback,
    MAX_ANDERSON, MAX_CONTACT_SCALING, MAX_REGENERATE, SolverKind,
};
pub use solver::{
    Capacity, ContactModel, Residuals, SolveError, SolveResult, SolveStats, Solver, StoppingRule, WarmStart,
};
pub use vfpi::{VfpiSettings, VfpiSolver};
pub use warm_start::WarmStartCache;

//! Control: contact-aware inverse dynamics (seed 000 §IV).
//!
//! - [`inverse_dynamics`]: Algorithm 2, the proximal contact inverse dynamics of a fully
//!   actuated robot: τ and the contact impulses that realize a reference next velocity.

//! - [`floating_base`]: for a floating base, the impulses of the sticking contacts that
//!   produce the unactuated base wrench (a cone-constrained least squares by the ADMM),
//!   and the residual wrench when the reference asks for more than the contacts allow.

pub mod floating_base;
pub mod inverse_dynamics;

pub use floating_base::{FloatingBase, FloatingBaseSettings};
pub use inverse_dynamics::{InverseDynamics, InverseDynamicsSettings, solve_impulses};

//! Control: contact-aware inverse dynamics (seed 000 §IV).
//!
//! - [`inverse_dynamics`]: Algorithm 2, the proximal contact inverse dynamics of a fully
//!   actuated robot: τ and the contact impulses that realize a reference next velocity.

pub mod inverse_dynamics;

pub use inverse_dynamics::{InverseDynamics, InverseDynamicsSettings, solve_impulses};

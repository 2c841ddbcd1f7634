//! Control: contact-aware inverse dynamics (seed 000 §IV) and the controller around it.
//!
//! - [`inverse_dynamics`]: Algorithm 2, the proximal contact inverse dynamics of a fully
//!   actuated robot: τ and the contact impulses that realize a reference next velocity.

//! - [`floating_base`]: for a floating base, the impulses of the sticking contacts that
//!   produce the unactuated base wrench (a cone-constrained least squares by the ADMM),
//!   and the residual wrench when the reference asks for more than the contacts allow.

//! - [`reference`]: joint trajectories (trajectory_msgs/JointTrajectory semantics).
//! - [`controller`]: one control tick — kinematics, contacts, a reference velocity the
//!   stance contacts allow (`stance`: its projection, by 3 × 3 blocks), inverse
//!   dynamics, torque limits.
//!
//! Thread-free: the controller in the real-time loop is [`crate::app::ControlJob`].

pub mod controller;
pub mod floating_base;
pub mod inverse_dynamics;
pub mod reference;
mod stance;

pub use controller::{Controller, ControllerSettings, TickError, UnknownLink};
pub use floating_base::{FloatingBase, FloatingBaseSettings};
pub use inverse_dynamics::{InverseDynamics, InverseDynamicsSettings, solve_impulses};
pub use reference::{JointTrajectory, ReferenceError, TrajectoryPoint};

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
//! - [`job`]: the controller in the node's real-time loop (`mode: control`).
//! - [`closed_loop`]: the simulator and the controller in one loop (`mode: sim+control`).

pub mod closed_loop;
pub mod controller;
pub mod floating_base;
pub mod inverse_dynamics;
pub mod job;
pub mod reference;
mod stance;

pub use closed_loop::SimAndControlJob;
pub use controller::{Controller, ControllerSettings, TickError};
pub use floating_base::{FloatingBase, FloatingBaseSettings};
pub use inverse_dynamics::{InverseDynamics, InverseDynamicsSettings, solve_impulses};
pub use job::{ControlJob, MeasuredState, ReferenceCommand};
pub use reference::{JointTrajectory, ReferenceError, TrajectoryPoint};

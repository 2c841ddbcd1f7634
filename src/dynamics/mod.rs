//! Rigid-body dynamics on a [`crate::model::Model`], writing into a
//! [`crate::model::Data`]: forward kinematics, RNEA, CRBA, ABA, Jacobians, the
//! tree-sparse LTDL factorization of M, the contact-free velocity of a time step, and
//! configuration integration. No algorithm allocates after `Data::new`.

mod aba;
mod configuration;
mod crba;
mod free_velocity;
mod jacobian;
mod kinematics;
mod ltdl;
mod rnea;

pub use aba::{aba, aba_with_external_forces};
pub use configuration::{difference, integrate, normalize};
pub use crba::{crba, crba_local, crba_placed, crba_symmetric, mass_matrix_symmetric};
pub use free_velocity::{free_velocity, free_velocity_placed};
pub use jacobian::{
    ReferenceFrame, body_jacobian, compute_joint_jacobians, frame_jacobian, joint_jacobian, point_jacobian,
    world_velocities,
};
pub use kinematics::{
    forward_kinematics, forward_kinematics_acceleration, forward_kinematics_velocity, frame_velocity_local,
    update_frame_placement, update_frame_placements,
};
pub(crate) use ltdl::dot;
pub use ltdl::{ltdl_decompose, ltdl_solve, ltdl_solve_columns, mass_matrix_inverse};
pub(crate) use rnea::rnea_placed;
pub use rnea::{gravity_torque, nonlinear_effects, rnea, rnea_with_external_forces};

//! Simulation: the world (robot, free bodies, environment), the time stepper, and the joint
//! PD that stands in for a controller. Thread-free: the loop job that runs the simulator is
//! [`crate::app::SimJob`].

pub mod joint_pd;
pub mod stepper;
pub mod world;

pub use joint_pd::JointPd;
pub use stepper::{StepReport, Stepper};
pub use world::{Robot, World, WorldError};

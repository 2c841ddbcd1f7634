//! Simulation: the world (robot, free bodies, environment) and the time stepper, the joint
//! PD that stands in for a controller, what a step reports ([`outputs`]), and the loop job
//! that runs the simulator in the node ([`job`]).

pub mod job;
pub mod joint_pd;
pub mod outputs;
pub mod stepper;
pub mod world;

pub use job::{ExternalWrenches, SimJob};
pub use joint_pd::JointPd;
pub use outputs::{ContactForce, MARKED_CONTACTS, Odometry, OutputLayout, Outputs, Wrench};
pub use stepper::{StepReport, Stepper};
pub use world::{Robot, World, WorldError};

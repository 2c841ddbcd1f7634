//! Simulation: the world (robot, free bodies, environment), the time stepper, the joint PD
//! that stands in for a controller, the joint servos of position and velocity commands,
//! and the simulated sensors. Thread-free: the loop job that runs the simulator is
//! [`crate::app::SimJob`].

pub mod joint_pd;
pub mod sensors;
pub mod servo;
pub mod stepper;
pub mod world;

pub use joint_pd::JointPd;
pub use sensors::{SensorReadings, SensorSettings, Sensors};
pub use servo::{Gains, Interface, JointServo};
pub use stepper::{StepReport, Stepper};
pub use world::{Robot, World, WorldError};

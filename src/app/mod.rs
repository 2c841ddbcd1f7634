//! The application: what is built from a configuration and how the loop runs it, without
//! ROS. Start-up ([`setup`]: the robot, its joints and the worlds of a configuration), the
//! loop jobs ([`SimJob`], [`ControlJob`], [`SimAndControlJob`]), what they publish
//! ([`outputs`]), and one loop assembly per mode ([`assembly`]) used by the ROS node,
//! `signorini loop` and the tests alike. Below this layer nothing reads the configuration.

pub mod assembly;
pub mod closed_loop;
pub mod control_job;
pub mod entities;
pub mod entity_exchange;
pub mod inputs;
pub mod joint_commands;
pub mod name_filter;
pub mod outputs;
pub mod robots;
pub mod setup;
pub mod sim_job;
pub mod sim_requests;
pub mod spawning;
pub mod wrench_targets;

pub use assembly::{ControlEnds, ControlLoop, SimAndControlLoop, SimEnds, SimLoop};
pub use closed_loop::SimAndControlJob;
pub use control_job::{ControlJob, ReferenceCommand};
pub use entities::{Entities, EntityView};
pub use entity_exchange::{EntityEnds, EntityIo, EntityLoop, EntitySetter, EntitySnapshot, entity_exchange};
pub use joint_commands::{JointCommandInput, JointCommandRejection, JointCommandTable};
pub use outputs::{ContactForce, MARKED_CONTACTS, OutputLayout, Outputs, Wrench};
pub use robots::RobotView;
pub use setup::{
    JointSlot, MAX_MASS_MATRIX_CONDITION, Setup, SetupError, SingularMassMatrix, UrdfText, add_bodies,
    check_mass_matrix, mass_matrix_condition,
};
pub use sim_job::{ExternalWrenches, SimJob};
pub use sim_requests::{ResetScope, SimRequests, SimulationState};
pub use spawning::{SpawnRequest, Spawns};
pub use wrench_targets::{WrenchRejection, WrenchTargets};

//! The ROS 2 node (feature `ros`, r2r). Converts messages to and from the plain structs of
//! [`crate::runtime`]; never does physics.

mod description;
pub mod diagnostics;
#[cfg(signorini_simulation_interfaces)]
mod entity_services;
mod inputs;
pub mod node;
pub mod qos;
mod simulation_control;
mod simulation_interfaces;
pub mod state_publisher;
mod supervision;

pub use node::{NodeError, NodeOptions, NodeSummary, default_config_file, run};

//! rosbag2 output in MCAP (CDR messages with their `ros2msg` schemas), written without a
//! ROS installation so that the headless simulator can record.

pub mod cdr;
pub mod messages;
pub mod recorder;

pub use recorder::{BagError, BagRecorder};

//! rosbag2 output in MCAP (CDR messages with their `ros2msg` schemas), written without a
//! ROS installation so that the headless simulator can record; chunk by chunk so that a
//! killed writer leaves every complete chunk readable (sink.rs), and [`recover`] to give
//! such a file back its summary and footer.

pub mod cdr;
pub mod messages;
pub mod recorder;
pub mod recover;
pub mod sink;

pub use recorder::{BagError, BagRecorder};
pub use recover::{Recovery, recover};
pub use sink::{BagSink, CHUNK_BYTES, Written};

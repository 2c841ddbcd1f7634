//! The real-time side: a fixed-rate loop thread with absolute deadlines, its statistics,
//! a watchdog for stale inputs, and the wait-free exchanges with the I/O side (latest-value
//! mailboxes for inputs, a preallocated ring for output samples). No ROS types here.

pub mod alloc_probe;
pub mod clock;
pub mod command;
pub mod console;
pub mod counters;
pub mod fixed_rate;
pub mod hand_off;
pub mod histogram;
pub mod loop_stats;
pub mod mailbox;
pub mod realtime;
pub mod sample_ring;
pub mod state;
pub mod state_assembly;
pub mod status;
pub mod swap_ring;
pub mod throttle;
pub mod watchdog;

pub use clock::MonotonicTime;
pub use command::{CommandRejection, EffortCommand, validate_efforts};
pub use console::Console;
pub use counters::{CounterSnapshot, Counters};
pub use fixed_rate::{EmptyJob, Job, LoopSettings, LoopThread, Tick, run_loop};
pub use hand_off::HandOff;
pub use loop_stats::LoopReport;
pub use mailbox::{MailboxReader, MailboxWriter, Stamped, mailbox};
pub use sample_ring::{SampleConsumer, SampleProducer, sample_ring};
pub use state::{MeasuredState, Odometry, StateRejection, base_pose, select_joints, stamp_ns};
pub use state_assembly::{Assembled, OdometryRejection, StateAssembly};
pub use swap_ring::{SwapSender, SwapServer, Ticket, swap_ring};
pub use throttle::Throttle;
pub use watchdog::{Freshness, Verdict, Watchdog};

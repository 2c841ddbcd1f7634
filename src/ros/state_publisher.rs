//! The publishing thread: drains the loop's sample ring into /clock and /joint_states.
//!
//! Runs on its own OS thread, woken by the loop after each sample (`Thread::unpark`: an
//! atomic and at most one futex wake on the loop side). Messages are native (C) messages
//! created once and updated in place, so publishing allocates nothing either: r2r's
//! `publish(&T)` would build a fresh native message per call.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use r2r::NativeMsg;
use r2r::builtin_interfaces::msg::Time;
use r2r::rosgraph_msgs::msg::Clock;
use r2r::sensor_msgs::msg::JointState;

use crate::runtime::{Counters, JointStateSample, SampleConsumer};

/// ROS time from nanoseconds of simulation time.
pub fn ros_time(ns: u64) -> Time {
    Time { sec: (ns / 1_000_000_000).min(i32::MAX as u64) as i32, nanosec: (ns % 1_000_000_000) as u32 }
}

/// Owns the publishers and their reusable native messages.
pub struct StatePublisher {
    clock: r2r::Publisher<Clock>,
    joint_states: r2r::Publisher<JointState>,
    joint_names: Vec<String>,
}

struct NativeMessages {
    clock: NativeMsg<Clock>,
    joint_states: NativeMsg<JointState>,
    n: usize,
}

/// Copies `values` into a native double sequence (`data`, `size`) of the same length.
fn fill(data: *mut f64, size: usize, values: &[f64]) {
    assert_eq!(size, values.len(), "native sequence sized at start-up");
    if size == 0 {
        return;
    }
    // SAFETY: the sequence was allocated with `size` doubles when the native message was
    // created from a Rust message with vectors of that length, and only this thread uses it.
    unsafe { std::slice::from_raw_parts_mut(data, size) }.copy_from_slice(values);
}

impl StatePublisher {
    /// Publishers for one robot's joints.
    pub fn new(
        clock: r2r::Publisher<Clock>,
        joint_states: r2r::Publisher<JointState>,
        joint_names: Vec<String>,
    ) -> Self {
        Self { clock, joint_states, joint_names }
    }

    fn native_messages(&self) -> NativeMessages {
        let n = self.joint_names.len();
        let template = JointState {
            name: self.joint_names.clone(),
            position: vec![0.0; n],
            velocity: vec![0.0; n],
            effort: vec![0.0; n],
            ..Default::default()
        };
        NativeMessages { clock: NativeMsg::<Clock>::new(), joint_states: NativeMsg::<JointState>::from(&template), n }
    }

    /// Drains `samples` until `shutdown` is set and nothing is left, parking between
    /// wake-ups (at most 10 ms, so a missed wake-up only delays).
    pub fn run(
        self,
        mut samples: SampleConsumer<JointStateSample>,
        shutdown: Arc<AtomicBool>,
        counters: Arc<Counters>,
    ) {
        let mut native = self.native_messages();
        loop {
            while samples.pop_with(|s| match self.publish(&mut native, s) {
                Ok(()) => {
                    Counters::bump(&counters.samples_published);
                    counters.last_published_sim_time_ns.store(s.sim_time_ns, Ordering::Relaxed);
                }
                Err(_) => Counters::bump(&counters.publish_errors),
            }) {}
            if shutdown.load(Ordering::Relaxed) && samples.is_empty() {
                return;
            }
            std::thread::park_timeout(Duration::from_millis(10));
        }
    }

    /// /clock first (a sim-time subscriber sees the time before the state stamped with it).
    fn publish(&self, native: &mut NativeMessages, s: &JointStateSample) -> r2r::Result<()> {
        let t = ros_time(s.sim_time_ns);
        native.clock.clock.sec = t.sec;
        native.clock.clock.nanosec = t.nanosec;
        self.clock.publish_native(&mut native.clock)?;

        let js = &mut *native.joint_states;
        js.header.stamp.sec = t.sec;
        js.header.stamp.nanosec = t.nanosec;
        debug_assert_eq!(s.position.len(), native.n);
        fill(js.position.data, js.position.size, &s.position);
        fill(js.velocity.data, js.velocity.size, &s.velocity);
        fill(js.effort.data, js.effort.size, &s.effort);
        self.joint_states.publish_native(&mut native.joint_states)
    }
}

//! A rosbag2 file in MCAP of what the simulator did, stamped with simulated time, on the
//! topics the node publishes (`topics:` of the configuration, `~/` resolved for the node
//! name `signorini`): `/clock`, `/joint_states` (controlled joints: position, velocity,
//! applied effort), `/odom` for a floating base and `/<body>/odom` for every free body
//! (pose in `world`, twist in the body frame, as nav_msgs/Odometry defines it), and
//! `/signorini/contact_wrenches/<link>`: the total contact wrench on each robot link with
//! collision shapes, in world axes, torque about the origin of the joint frame carrying
//! the link.
//!
//! Writing happens off any real-time path (the headless `signorini sim`), one chunk of whole
//! steps at a time (see [`super::sink`]).

use std::path::{Path, PathBuf};

use super::messages;
use super::sink::{BagSink, CHUNK_BYTES, Written};
use crate::app::Setup;
use crate::app::outputs::{OutputLayout, Outputs};
use crate::config::{NODE_NAME, topic_token};
use crate::sim::{Stepper, World};

/// A bag that cannot be written or read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct BagError {
    /// The file.
    pub path: PathBuf,
    /// What failed.
    pub message: String,
}

impl BagError {
    /// `message` about `path`.
    pub fn new(path: &Path, message: String) -> Self {
        Self { path: path.to_owned(), message }
    }
}

/// Records one message per topic per step.
pub struct BagRecorder {
    sink: BagSink,
    /// The step's number (the messages' sequence).
    sequence: u32,
    clock: u16,
    joint_states: u16,
    base: Option<u16>,
    bodies: Vec<u16>,
    /// One per link of the layout.
    links: Vec<u16>,
    layout: OutputLayout,
    outputs: Outputs,
}

impl BagRecorder {
    /// Creates `path` with the channels of `setup`'s robot and `world`'s bodies.
    pub fn create(path: &Path, setup: &Setup, world: &World) -> Result<Self, BagError> {
        let mut sink = BagSink::create(path, CHUNK_BYTES)?;
        let mut channel = |topic: &str, msg_type: &str| sink.channel(topic, msg_type);
        let layout = OutputLayout::new(setup, world);
        let topics = &setup.config.topics;
        let topic = |t: &crate::config::TopicName| t.resolved(NODE_NAME);
        let clock = channel(&topic(&topics.clock), "rosgraph_msgs/msg/Clock")?;
        let joint_states = channel(&topic(&topics.joint_states), "sensor_msgs/msg/JointState")?;
        let base = layout
            .base_link
            .as_ref()
            .map(|_| channel(&topic(&topics.odometry), "nav_msgs/msg/Odometry"))
            .transpose()?;
        let bodies = layout
            .body_names
            .iter()
            .map(|b| channel(&format!("/{}/odom", topic_token(b)), "nav_msgs/msg/Odometry"))
            .collect::<Result<_, _>>()?;
        let wrenches = topic(&topics.contact_wrenches);
        let links = layout
            .links
            .iter()
            .map(|(l, _)| channel(&format!("{wrenches}/{}", topic_token(l)), "geometry_msgs/msg/WrenchStamped"))
            .collect::<Result<_, _>>()?;
        let outputs = layout.outputs();
        Ok(Self { sink, sequence: 0, clock, joint_states, base, bodies, links, layout, outputs })
    }

    /// Records the state after a step (see [`OutputLayout::fill`]).
    pub fn record(&mut self, world: &World, stepper: &Stepper) -> Result<(), BagError> {
        self.layout.fill(world, stepper, &mut self.outputs);
        let (o, l) = (&self.outputs, &self.layout);
        let ns = o.time_ns;
        self.sequence += 1;
        let (sink, k) = (&mut self.sink, self.sequence);
        sink.write(self.clock, k, ns, &messages::clock(ns))?;
        if world.robot.is_some() {
            let msg = messages::joint_state(ns, &l.joint_names, &o.position, &o.velocity, &o.effort);
            sink.write(self.joint_states, k, ns, &msg)?;
        }
        if let (Some(channel), Some(base), Some(root)) = (self.base, o.base.as_ref(), l.base_link.as_ref()) {
            sink.write(channel, k, ns, &messages::odometry(ns, "world", root, base))?;
        }
        for ((channel, name), b) in self.bodies.iter().zip(&l.body_names).zip(&o.bodies) {
            sink.write(*channel, k, ns, &messages::odometry(ns, "world", name, b))?;
        }
        for (channel, w) in self.links.iter().zip(&o.wrenches) {
            sink.write(*channel, k, ns, &messages::wrench_stamped(ns, "world", w.force, w.torque))?;
        }
        sink.end_step()
    }

    /// What the file's complete chunks hold (see [`crate::bag::sink`]).
    pub fn written(&self) -> Written {
        self.sink.written()
    }

    /// Writes the last chunk, the summary and the footer.
    pub fn finish(self) -> Result<Written, BagError> {
        self.sink.finish()
    }
}

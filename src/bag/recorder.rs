//! A rosbag2 file in MCAP of what the simulator did, stamped with simulated time, on the
//! topics the node publishes (`topics:` of the configuration, `~/` resolved for the node
//! name `signorini`): `/clock`, `/joint_states` (controlled joints: position, velocity,
//! applied effort), `/odom` for a floating base and `/<body>/odom` for every free body
//! (pose in `world`, twist in the body frame, as nav_msgs/Odometry defines it), and
//! `/signorini/contact_wrenches/<link>`: the total contact wrench on each robot link with
//! collision shapes, in world axes, torque about the origin of the joint frame carrying
//! the link.
//!
//! Writing happens off any real-time path (the headless `signorini sim`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use mcap::records::MessageHeader;

use super::messages;
use crate::app::Setup;
use crate::app::outputs::{OutputLayout, Outputs};
use crate::config::{NODE_NAME, topic_token};
use crate::sim::{Stepper, World};

/// A bag that cannot be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct BagError {
    /// The file.
    pub path: PathBuf,
    /// What failed.
    pub message: String,
}

/// The open file and the running sequence number.
struct Sink {
    path: PathBuf,
    writer: mcap::Writer<BufWriter<File>>,
    sequence: u32,
}

impl Sink {
    fn write(&mut self, channel_id: u16, ns: u64, data: &[u8]) -> Result<(), BagError> {
        let header = MessageHeader { channel_id, sequence: self.sequence, log_time: ns, publish_time: ns };
        self.writer
            .write_to_known_channel(&header, data)
            .map_err(|e| BagError { path: self.path.clone(), message: e.to_string() })
    }
}

/// Records one message per topic per step.
pub struct BagRecorder {
    sink: Sink,
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
        let fail = |message: String| BagError { path: path.to_owned(), message };
        let file = File::create(path).map_err(|e| fail(format!("cannot create: {e}")))?;
        let mut writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("signorini ", env!("CARGO_PKG_VERSION")))
            .create(BufWriter::new(file))
            .map_err(|e| fail(e.to_string()))?;
        let mut channel = |topic: &str, msg_type: &str| -> Result<u16, BagError> {
            let schema = writer
                .add_schema(msg_type, "ros2msg", messages::schema(msg_type).as_bytes())
                .map_err(|e| fail(e.to_string()))?;
            writer.add_channel(schema, topic, "cdr", &BTreeMap::new()).map_err(|e| fail(e.to_string()))
        };
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
        Ok(Self {
            sink: Sink { path: path.to_owned(), writer, sequence: 0 },
            clock,
            joint_states,
            base,
            bodies,
            links,
            layout,
            outputs,
        })
    }

    /// Records the state after a step (see [`OutputLayout::fill`]).
    pub fn record(&mut self, world: &World, stepper: &Stepper) -> Result<(), BagError> {
        self.layout.fill(world, stepper, &mut self.outputs);
        let (o, l) = (&self.outputs, &self.layout);
        let ns = o.time_ns;
        self.sink.sequence += 1;
        self.sink.write(self.clock, ns, &messages::clock(ns))?;
        if world.robot.is_some() {
            let msg = messages::joint_state(ns, &l.joint_names, &o.position, &o.velocity, &o.effort);
            self.sink.write(self.joint_states, ns, &msg)?;
        }
        if let (Some(channel), Some(base), Some(root)) = (self.base, o.base.as_ref(), l.base_link.as_ref()) {
            self.sink.write(channel, ns, &messages::odometry(ns, "world", root, base))?;
        }
        for ((channel, name), b) in self.bodies.iter().zip(&l.body_names).zip(&o.bodies) {
            self.sink.write(*channel, ns, &messages::odometry(ns, "world", name, b))?;
        }
        for (channel, w) in self.links.iter().zip(&o.wrenches) {
            self.sink.write(*channel, ns, &messages::wrench_stamped(ns, "world", w.force, w.torque))?;
        }
        Ok(())
    }

    /// Writes the summary and closes the file.
    pub fn finish(mut self) -> Result<(), BagError> {
        let sink = &mut self.sink;
        sink.writer.finish().map(|_| ()).map_err(|e| BagError { path: sink.path.clone(), message: e.to_string() })
    }
}

//! A rosbag2 file in MCAP of what the simulator did, stamped with simulated time:
//! `/clock`, `/joint_states` (controlled joints: position, velocity, applied effort),
//! `/odom` for a floating base and `/<body>/odom` for every free body (pose in `world`,
//! twist in the body frame, as nav_msgs/Odometry defines it), and `/contact/<link>`: the
//! total contact wrench on each robot link with collision shapes, in world axes, torque
//! about the origin of the joint frame carrying the link.
//!
//! Writing happens off any real-time path (the headless `signorini sim`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use mcap::records::MessageHeader;

use super::messages;
use crate::collision::Owner;
use crate::setup::{JointSlot, Setup};
use crate::sim::{Stepper, World};
use crate::spatial::{SE3, Vec3};

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
    /// The controlled joints.
    joints: Vec<JointSlot>,
    joint_names: Vec<String>,
    base: Option<(u16, String)>,
    bodies: Vec<(u16, String)>,
    /// (channel, link, joint carrying it).
    links: Vec<(u16, String, usize)>,
    /// Object index → position in `links` (robot objects only).
    link_of_object: Vec<Option<usize>>,
    wrenches: Vec<(Vec3, Vec3)>,
    position: Vec<f64>,
    velocity: Vec<f64>,
    effort: Vec<f64>,
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
        let clock = channel("/clock", "rosgraph_msgs/msg/Clock")?;
        let joint_states = channel("/joint_states", "sensor_msgs/msg/JointState")?;
        let m = &setup.model;
        let base = if m.has_free_flyer() {
            let root = setup.robot.root_link().to_owned();
            Some((channel("/odom", "nav_msgs/msg/Odometry")?, root))
        } else {
            None
        };
        let mut bodies = Vec::new();
        for b in &world.bodies {
            bodies.push((channel(&format!("/{}/odom", b.name), "nav_msgs/msg/Odometry")?, b.name.clone()));
        }
        let mut links: Vec<(u16, String, usize)> = Vec::new();
        let mut link_of_object = Vec::new();
        for o in world.collision.objects() {
            let Owner::Robot { joint } = o.owner else {
                link_of_object.push(None);
                continue;
            };
            let at = match links.iter().position(|(_, l, _)| *l == o.link) {
                Some(i) => i,
                None => {
                    let topic = format!("/contact/{}", o.link);
                    links.push((channel(&topic, "geometry_msgs/msg/WrenchStamped")?, o.link.clone(), joint));
                    links.len() - 1
                }
            };
            link_of_object.push(Some(at));
        }
        let joints = setup.joint_slots();
        let n = joints.len();
        Ok(Self {
            sink: Sink { path: path.to_owned(), writer, sequence: 0 },
            clock,
            joint_states,
            joints,
            joint_names: setup.joint_names.clone(),
            base,
            bodies,
            wrenches: vec![(Vec3::zeros(), Vec3::zeros()); links.len()],
            links,
            link_of_object,
            position: vec![0.0; n],
            velocity: vec![0.0; n],
            effort: vec![0.0; n],
        })
    }

    /// Records the state after a step: the effort is the torque the step applied (clamped
    /// to the effort limits); contact wrenches are zero when the step's impulses were not
    /// finite (the stepper did not apply them).
    pub fn record(&mut self, world: &World, stepper: &Stepper) -> Result<(), BagError> {
        let tau = stepper.applied_torques();
        let ns = (world.time * 1e9).round() as u64;
        self.sink.sequence += 1;
        self.sink.write(self.clock, ns, &messages::clock(ns))?;
        if let Some(r) = world.robot.as_ref() {
            for (k, slot) in self.joints.iter().enumerate() {
                self.position[k] = slot.position(&r.q);
                self.velocity[k] = r.v[slot.idx_v];
                self.effort[k] = tau.get(slot.idx_v).copied().unwrap_or(0.0);
            }
            let msg = messages::joint_state(ns, &self.joint_names, &self.position, &self.velocity, &self.effort);
            self.sink.write(self.joint_states, ns, &msg)?;
            if let Some((channel, root)) = &self.base {
                let msg = messages::odometry(
                    ns,
                    "world",
                    root,
                    [r.q[0], r.q[1], r.q[2]],
                    [r.q[3], r.q[4], r.q[5], r.q[6]],
                    [r.v[0], r.v[1], r.v[2]],
                    [r.v[3], r.v[4], r.v[5]],
                );
                self.sink.write(*channel, ns, &msg)?;
            }
        }
        for ((channel, name), s) in self.bodies.iter().zip(&world.states) {
            let q = crate::model::joint::rotation_to_quaternion(&s.pose.rotation);
            let p = s.pose.translation;
            let msg = messages::odometry(
                ns,
                "world",
                name,
                [p.x, p.y, p.z],
                q,
                s.velocity.linear.into(),
                s.velocity.angular.into(),
            );
            self.sink.write(*channel, ns, &msg)?;
        }
        // Contact wrenches per link: the force on body 1 is C·λ/Δt, on body 2 its opposite.
        self.wrenches.iter_mut().for_each(|w| *w = (Vec3::zeros(), Vec3::zeros()));
        let origin = |joint: usize| -> SE3 {
            world.robot.as_ref().map_or(SE3::IDENTITY, |r| if joint > 0 { r.data.o_m_i[joint] } else { SE3::IDENTITY })
        };
        let lambda = stepper.impulses();
        let applied = lambda.iter().all(|x| x.is_finite());
        for (i, c) in stepper.contacts().contacts().iter().enumerate().filter(|_| applied) {
            if lambda.len() < 3 * i + 3 {
                break;
            }
            let f = c.frame * Vec3::new(lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]) / stepper.dt;
            for (object, sign) in [(c.object1, 1.0), (c.object2, -1.0)] {
                if let Some(Some(l)) = self.link_of_object.get(object) {
                    let o = origin(self.links[*l].2).translation;
                    let w = &mut self.wrenches[*l];
                    w.0 += f * sign;
                    w.1 += (c.point - o).cross(&(f * sign));
                }
            }
        }
        for ((channel, _, _), (force, torque)) in self.links.iter().zip(&self.wrenches) {
            let msg = messages::wrench_stamped(ns, "world", (*force).into(), (*torque).into());
            self.sink.write(*channel, ns, &msg)?;
        }
        Ok(())
    }

    /// Writes the summary and closes the file.
    pub fn finish(mut self) -> Result<(), BagError> {
        let sink = &mut self.sink;
        sink.writer.finish().map(|_| ()).map_err(|e| BagError { path: sink.path.clone(), message: e.to_string() })
    }
}

//! The publishing thread: drains the loop's sample ring into /clock, /joint_states, the
//! floating base's and the free bodies' odometry (and the same poses on /tf, when built
//! with tf2_msgs), the per-link contact wrenches, the contact arrows and the sensors (IMUs,
//! joint force/torque, foot contacts).
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
use r2r::geometry_msgs::msg::WrenchStamped;
use r2r::geometry_msgs::msg::{Point, Pose, Quaternion, Vector3};
use r2r::nav_msgs::msg::Odometry;
use r2r::rosgraph_msgs::msg::Clock;
use r2r::sensor_msgs::msg::{Imu, JointState};
use r2r::std_msgs::msg::{ColorRGBA, Float64MultiArray, Header};
#[cfg(signorini_tf2_msgs)]
use r2r::tf2_msgs::msg::TFMessage;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};

use crate::app::{Outputs, Wrench};
use crate::runtime::{Counters, SampleConsumer};
use crate::sim::SensorSettings;
use crate::sim::sensors::{ForceTorqueReading, ImuReading, Stamped};

/// ROS time from nanoseconds of simulation time.
pub fn ros_time(ns: u64) -> Time {
    Time { sec: (ns / 1_000_000_000).min(i32::MAX as u64) as i32, nanosec: (ns % 1_000_000_000) as u32 }
}

/// Owns the publishers and their reusable native messages.
pub struct StatePublisher {
    clock: r2r::Publisher<Clock>,
    joint_states: r2r::Publisher<JointState>,
    joint_names: Vec<String>,
    /// The floating base's odometry and its link.
    odometry: Option<(r2r::Publisher<Odometry>, String)>,
    /// Each free body's odometry and name, in the samples' order.
    bodies: Vec<(r2r::Publisher<Odometry>, String)>,
    /// One per link with collision shapes, in the samples' order.
    wrenches: Vec<r2r::Publisher<WrenchStamped>>,
    /// Contact arrows, and the simulated time (ns) from which the next may be published.
    markers: Option<(r2r::Publisher<MarkerArray>, std::cell::Cell<u64>)>,
    /// /tf: the floating base's and the free bodies' poses, as their odometry.
    #[cfg(signorini_tf2_msgs)]
    tf: Option<r2r::Publisher<TFMessage>>,
    /// The spawn table, naming the spawned bodies of the samples on /tf.
    #[cfg_attr(not(signorini_tf2_msgs), allow(dead_code))]
    spawns: Option<Arc<crate::app::Spawns>>,
    /// The sensors' publishers and what they publish.
    sensors: Option<(SensorPublishers, SensorSettings)>,
    /// With `robots:`, each robot's own topics.
    robots: Vec<RobotPublishers>,
}

/// One robot's topics of a configuration with `robots:` ([`crate::app::RobotView`]):
/// `/<ns>/joint_states` with its joints' URDF names, and its floating base's `/<ns>/odom`
/// (child frame `<ns>/<root link>`, also on /tf).
pub struct RobotPublishers {
    /// Its JointState publisher.
    pub joint_states: r2r::Publisher<JointState>,
    /// Its joints' range in the samples' joint arrays.
    pub joints: std::ops::Range<usize>,
    /// Their names on its topic.
    pub names: Vec<String>,
    /// Its floating base's odometry publisher and child frame, if it has a floating base.
    pub odometry: Option<(r2r::Publisher<Odometry>, String)>,
}

/// One publisher per IMU and per force/torque sensor, one for all the foot contacts (in
/// the order of the sensor settings).
pub struct SensorPublishers {
    /// sensor_msgs/Imu.
    pub imu: Vec<r2r::Publisher<Imu>>,
    /// geometry_msgs/WrenchStamped.
    pub force_torque: Vec<r2r::Publisher<WrenchStamped>>,
    /// sensor_msgs/JointState: `name` the feet's links, `position` the flags (1 or 0),
    /// `effort` the normal forces (N); none without feet.
    pub foot_contacts: Option<r2r::Publisher<JointState>>,
}

/// The sensors' reusable native messages (frame ids, names and covariances set once).
struct SensorMessages {
    imu: Vec<NativeMsg<Imu>>,
    force_torque: Vec<NativeMsg<WrenchStamped>>,
    foot_contacts: NativeMsg<JointState>,
    /// Scratch of the flags and the forces.
    flags: Vec<f64>,
    forces: Vec<f64>,
}

impl SensorMessages {
    fn new(settings: &SensorSettings) -> Self {
        let header = |name: &str| Header { frame_id: name.to_owned(), ..Default::default() };
        let imu = settings.imu.iter().map(|s| {
            NativeMsg::<Imu>::from(&Imu {
                header: header(&s.name),
                orientation_covariance: vec![0.0; 9],
                angular_velocity_covariance: s.gyro.covariance().to_vec(),
                linear_acceleration_covariance: s.accel.covariance().to_vec(),
                ..Default::default()
            })
        });
        let wrench = |name: &str| {
            NativeMsg::<WrenchStamped>::from(&WrenchStamped { header: header(name), ..Default::default() })
        };
        let n = settings.foot_contact.len();
        let feet = JointState {
            header: header("world"),
            name: settings.foot_contact.iter().map(|f| f.name.clone()).collect(),
            position: vec![0.0; n],
            effort: vec![0.0; n],
            ..Default::default()
        };
        Self {
            imu: imu.collect(),
            force_torque: settings.force_torque.iter().map(|s| wrench(&s.name)).collect(),
            foot_contacts: NativeMsg::<JointState>::from(&feet),
            flags: vec![0.0; n],
            forces: vec![0.0; n],
        }
    }

    /// The fresh, finite readings of `s`, each on its publisher.
    fn publish(&mut self, publishers: &SensorPublishers, s: &Outputs) -> r2r::Result<()> {
        let readings = &s.sensors;
        for ((publisher, msg), r) in publishers.imu.iter().zip(&mut self.imu).zip(&readings.imu) {
            if r.fresh && r.value.is_finite() {
                publish_imu(publisher, msg, r)?;
            }
        }
        for ((publisher, msg), r) in
            publishers.force_torque.iter().zip(&mut self.force_torque).zip(&readings.force_torque)
        {
            if r.fresh && r.value.is_finite() {
                publish_force_torque(publisher, msg, r)?;
            }
        }
        let feet = &readings.foot_contact;
        if let Some(publisher) = &publishers.foot_contacts
            && feet.first().is_some_and(|f| f.fresh)
            && feet.iter().all(|f| f.value.normal_force.is_finite())
        {
            for (k, f) in feet.iter().enumerate() {
                self.flags[k] = if f.value.contact { 1.0 } else { 0.0 };
                self.forces[k] = f.value.normal_force;
            }
            let js = &mut *self.foot_contacts;
            let t = ros_time(feet[0].stamp_ns);
            (js.header.stamp.sec, js.header.stamp.nanosec) = (t.sec, t.nanosec);
            fill(js.position.data, js.position.size, &self.flags);
            fill(js.effort.data, js.effort.size, &self.forces);
            publisher.publish_native(&mut self.foot_contacts)?;
        }
        Ok(())
    }
}

/// One sensor_msgs/Imu through its reusable native message.
fn publish_imu(publisher: &r2r::Publisher<Imu>, msg: &mut NativeMsg<Imu>, r: &Stamped<ImuReading>) -> r2r::Result<()> {
    let m = &mut **msg;
    let t = ros_time(r.stamp_ns);
    (m.header.stamp.sec, m.header.stamp.nanosec) = (t.sec, t.nanosec);
    let ([x, y, z, w], g, a) = (r.value.orientation, r.value.angular_velocity, r.value.linear_acceleration);
    (m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w) = (x, y, z, w);
    (m.angular_velocity.x, m.angular_velocity.y, m.angular_velocity.z) = (g[0], g[1], g[2]);
    (m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z) = (a[0], a[1], a[2]);
    publisher.publish_native(msg)
}

/// One force/torque reading as geometry_msgs/WrenchStamped through its native message.
fn publish_force_torque(
    publisher: &r2r::Publisher<WrenchStamped>,
    msg: &mut NativeMsg<WrenchStamped>,
    r: &Stamped<ForceTorqueReading>,
) -> r2r::Result<()> {
    let m = &mut **msg;
    let t = ros_time(r.stamp_ns);
    (m.header.stamp.sec, m.header.stamp.nanosec) = (t.sec, t.nanosec);
    let (f, tq) = (r.value.force, r.value.torque);
    (m.wrench.force.x, m.wrench.force.y, m.wrench.force.z) = (f[0], f[1], f[2]);
    (m.wrench.torque.x, m.wrench.torque.y, m.wrench.torque.z) = (tq[0], tq[1], tq[2]);
    publisher.publish_native(msg)
}

/// /tf (`topic`, tf2_msgs/TFMessage) for the poses `publisher` publishes as odometry;
/// reliable, volatile, keep last 100, as tf2_ros's broadcaster.
#[cfg(signorini_tf2_msgs)]
pub fn with_tf(
    node: &mut r2r::Node,
    publisher: StatePublisher,
    topic: Option<&crate::config::TopicName>,
) -> Result<StatePublisher, r2r::Error> {
    let Some(topic) = topic else { return Ok(publisher) };
    let qos = crate::config::Qos {
        reliability: crate::config::Reliability::Reliable,
        durability: crate::config::Durability::Volatile,
        depth: 100,
    };
    let tf = node.create_publisher::<r2r::tf2_msgs::msg::TFMessage>(topic, super::qos::profile(qos))?;
    Ok(publisher.with_tf(tf))
}

/// Built without tf2_msgs (none was installed, as with the ROS 2 wheels alone): says once
/// that /tf is off.
#[cfg(not(signorini_tf2_msgs))]
pub fn with_tf(
    _node: &mut r2r::Node,
    publisher: StatePublisher,
    topic: Option<&crate::config::TopicName>,
) -> Result<StatePublisher, r2r::Error> {
    if let Some(topic) = topic {
        r2r::log_warn!(
            crate::config::NODE_NAME,
            "{topic} is off: signorini was built without tf2_msgs (not installed then, or not in IDL_PACKAGE_FILTER)"
        );
    }
    Ok(publisher)
}

/// Contact arrows are published at most this often (simulated time, ns): 30 Hz, what a
/// viewer shows.
const MARKER_PERIOD_NS: u64 = 1_000_000_000 / 30;

/// Length of a contact arrow per newton (m/N).
pub const MARKER_METRES_PER_NEWTON: f64 = 0.005;

/// The contact arrows of one sample: a DELETEALL (arrows of contacts that ended go away),
/// then one ARROW per loaded contact from its point along its force, in `world`.
pub fn contact_markers(s: &Outputs, stamp: Time) -> MarkerArray {
    let header = Header { stamp, frame_id: "world".into() };
    let clear = Marker { header: header.clone(), action: Marker::DELETEALL as i32, ..Default::default() };
    let arrows = s.contacts[..s.contact_count].iter().enumerate().map(|(k, c)| {
        let [x, y, z] = c.point;
        let [fx, fy, fz] = c.force.map(|f| f * MARKER_METRES_PER_NEWTON);
        Marker {
            header: header.clone(),
            ns: "contact_forces".into(),
            id: k as i32,
            type_: Marker::ARROW as i32,
            action: Marker::ADD as i32,
            points: vec![Point { x, y, z }, Point { x: x + fx, y: y + fy, z: z + fz }],
            scale: Vector3 { x: 0.01, y: 0.02, z: 0.0 },
            color: ColorRGBA { r: 1.0, g: 0.3, b: 0.1, a: 1.0 },
            pose: Pose { orientation: Quaternion { w: 1.0, ..Default::default() }, ..Default::default() },
            ..Default::default()
        }
    });
    MarkerArray { markers: std::iter::once(clear).chain(arrows).collect() }
}

struct NativeMessages {
    clock: NativeMsg<Clock>,
    joint_states: NativeMsg<JointState>,
    odometry: Option<NativeMsg<Odometry>>,
    bodies: Vec<NativeMsg<Odometry>>,
    wrench: NativeMsg<WrenchStamped>,
    /// One transform per odometry: the floating base's first (if any), the robots' bases,
    /// then the bodies'.
    #[cfg(signorini_tf2_msgs)]
    tf: Option<NativeMsg<TFMessage>>,
    n: usize,
    /// Per robot of `robots:`: its JointState and its odometry.
    robots: Vec<(NativeMsg<JointState>, Option<NativeMsg<Odometry>>)>,
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
    /// Publishers for one robot's joints, its floating base's odometry (with the base
    /// link's name) and its links' contact wrenches.
    pub fn new(
        clock: r2r::Publisher<Clock>,
        joint_states: r2r::Publisher<JointState>,
        joint_names: Vec<String>,
        odometry: Option<(r2r::Publisher<Odometry>, String)>,
        wrenches: Vec<r2r::Publisher<WrenchStamped>>,
    ) -> Self {
        Self {
            clock,
            joint_states,
            joint_names,
            odometry,
            bodies: Vec::new(),
            wrenches,
            markers: None,
            #[cfg(signorini_tf2_msgs)]
            tf: None,
            spawns: None,
            sensors: None,
            robots: Vec::new(),
        }
    }

    /// Also publishes each robot's joints and base on its own topics (`robots:`).
    pub fn with_robots(mut self, robots: Vec<RobotPublishers>) -> Self {
        self.robots = robots;
        self
    }

    /// Also publishes the sensors' readings of the samples (`settings`: the samples'
    /// sensors, in the publishers' order).
    pub fn with_sensors(mut self, publishers: SensorPublishers, settings: SensorSettings) -> Self {
        self.sensors = Some((publishers, settings));
        self
    }

    /// Also publishes the floating base's and the bodies' poses on `tf` (tf2_msgs/TFMessage,
    /// one message per sample with a transform per odometry: `world` → base link or body,
    /// stamped and valued as the odometry).
    #[cfg(signorini_tf2_msgs)]
    pub fn with_tf(mut self, tf: r2r::Publisher<TFMessage>) -> Self {
        self.tf = Some(tf);
        self
    }

    /// Also publishes the spawned bodies' poses on `tf` (with [`StatePublisher::with_tf`]):
    /// one more message per sample holding any, `world` → the entity's name.
    pub fn with_spawned(mut self, spawns: Arc<crate::app::Spawns>) -> Self {
        self.spawns = Some(spawns);
        self
    }

    /// Also publishes each free body's odometry (`bodies`: publisher and body name, in
    /// the world's order).
    pub fn with_bodies(mut self, bodies: Vec<(r2r::Publisher<Odometry>, String)>) -> Self {
        self.bodies = bodies;
        self
    }

    /// Also publishes the contact arrows on `markers`, at most 30 times per simulated
    /// second (a MarkerArray is built per message: this thread, not the loop, allocates).
    pub fn with_markers(mut self, markers: r2r::Publisher<MarkerArray>) -> Self {
        self.markers = Some((markers, std::cell::Cell::new(0)));
        self
    }

    fn native_messages(&self) -> NativeMessages {
        let n = self.joint_names.len();
        let joint_state = |names: &[String]| {
            let n = names.len();
            NativeMsg::<JointState>::from(&JointState {
                name: names.to_vec(),
                position: vec![0.0; n],
                velocity: vec![0.0; n],
                effort: vec![0.0; n],
                ..Default::default()
            })
        };
        let world = Header { frame_id: "world".into(), ..Default::default() };
        let odometry_of = |child: &String| {
            NativeMsg::<Odometry>::from(&Odometry {
                header: world.clone(),
                child_frame_id: child.clone(),
                ..Default::default()
            })
        };
        #[cfg(signorini_tf2_msgs)]
        let tf = self.tf.as_ref().map(|_| {
            use r2r::geometry_msgs::msg::TransformStamped;
            let robots = self.robots.iter().filter_map(|r| r.odometry.as_ref().map(|(_, link)| link));
            let children = (self.odometry.iter().map(|(_, link)| link))
                .chain(robots)
                .chain(self.bodies.iter().map(|(_, name)| name));
            let transforms = children
                .map(|child| TransformStamped {
                    header: world.clone(),
                    child_frame_id: child.clone(),
                    ..Default::default()
                })
                .collect();
            NativeMsg::<TFMessage>::from(&TFMessage { transforms })
        });
        NativeMessages {
            #[cfg(signorini_tf2_msgs)]
            tf,
            clock: NativeMsg::<Clock>::new(),
            joint_states: joint_state(&self.joint_names),
            robots: (self.robots.iter())
                .map(|r| (joint_state(&r.names), r.odometry.as_ref().map(|(_, link)| odometry_of(link))))
                .collect(),
            odometry: self.odometry.as_ref().map(|(_, link)| odometry_of(link)),
            bodies: self.bodies.iter().map(|(_, name)| odometry_of(name)).collect(),
            wrench: NativeMsg::<WrenchStamped>::from(&WrenchStamped { header: world, ..Default::default() }),
            n,
        }
    }

    /// Publishes every sample until `shutdown` (see [`drain`]).
    pub fn run(self, samples: SampleConsumer<Outputs>, shutdown: Arc<AtomicBool>, counters: Arc<Counters>) {
        let mut native = self.native_messages();
        let mut sensors = self.sensors.as_ref().map(|(_, settings)| SensorMessages::new(settings));
        drain(samples, &shutdown, &counters, |s| {
            self.publish(&mut native, s)?;
            match (&self.sensors, sensors.as_mut()) {
                (Some((publishers, _)), Some(messages)) => messages.publish(publishers, s),
                _ => Ok(()),
            }
        });
    }

    /// /clock first (a sim-time subscriber sees the time before the state stamped with it).
    fn publish(&self, native: &mut NativeMessages, s: &Outputs) -> r2r::Result<()> {
        let t = ros_time(s.time_ns);
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
        self.joint_states.publish_native(&mut native.joint_states)?;

        if let (Some((publisher, _)), Some(msg), Some(base)) = (&self.odometry, native.odometry.as_mut(), &s.base) {
            publish_odometry(publisher, msg, &t, base)?;
        }
        for (((publisher, _), msg), body) in self.bodies.iter().zip(&mut native.bodies).zip(&s.bodies) {
            publish_odometry(publisher, msg, &t, body)?;
        }
        publish_robots(&self.robots, &mut native.robots, &t, s)?;
        #[cfg(signorini_tf2_msgs)]
        if let (Some(publisher), Some(msg)) = (&self.tf, native.tf.as_mut()) {
            // A floating base without a pose in this sample: no /tf either (as no odometry).
            let base = self.odometry.as_ref().and(s.base.as_ref());
            if base.is_some() == self.odometry.is_some() {
                publish_tf(publisher, msg, &t, base.into_iter().chain(&s.robot_bases).chain(&s.bodies))?;
            }
            if let Some(spawns) = &self.spawns {
                publish_spawned_tf(publisher, spawns, &t, &s.spawned)?;
            }
        }
        publish_wrenches(&self.wrenches, &mut native.wrench, &t, &s.wrenches)?;
        if let Some((publisher, next)) = &self.markers
            // Time past the next arrow, or back before the last one (a reset of time).
            && (s.time_ns >= next.get() || s.time_ns + MARKER_PERIOD_NS < next.get())
        {
            next.set(s.time_ns + MARKER_PERIOD_NS);
            publisher.publish(&contact_markers(s, t))?;
        }
        Ok(())
    }
}

/// Each robot's JointState (its slice of the sample's joints) and odometry (its base of
/// the sample's `robot_bases`), stamped `t`.
fn publish_robots(
    robots: &[RobotPublishers],
    native: &mut [(NativeMsg<JointState>, Option<NativeMsg<Odometry>>)],
    t: &Time,
    s: &Outputs,
) -> r2r::Result<()> {
    let mut bases = s.robot_bases.iter();
    for (r, (js, odometry)) in robots.iter().zip(native) {
        let j = &mut **js;
        j.header.stamp.sec = t.sec;
        j.header.stamp.nanosec = t.nanosec;
        let range = r.joints.clone();
        fill(j.position.data, j.position.size, &s.position[range.clone()]);
        fill(j.velocity.data, j.velocity.size, &s.velocity[range.clone()]);
        fill(j.effort.data, j.effort.size, &s.effort[range]);
        r.joint_states.publish_native(js)?;
        if let (Some((publisher, _)), Some(msg)) = (&r.odometry, odometry.as_mut())
            && let Some(base) = bases.next()
        {
            publish_odometry(publisher, msg, t, base)?;
        }
    }
    Ok(())
}

/// One nav_msgs/Odometry, stamped `t`, through the reusable native message `msg`.
fn publish_odometry(
    publisher: &r2r::Publisher<Odometry>,
    msg: &mut NativeMsg<Odometry>,
    t: &Time,
    odometry: &crate::runtime::Odometry,
) -> r2r::Result<()> {
    let o = &mut **msg;
    o.header.stamp.sec = t.sec;
    o.header.stamp.nanosec = t.nanosec;
    let (p, q) = (&mut o.pose.pose.position, &mut o.pose.pose.orientation);
    let [x, y, z, w] = odometry.orientation;
    (p.x, p.y, p.z) = (odometry.position[0], odometry.position[1], odometry.position[2]);
    (q.x, q.y, q.z, q.w) = (x, y, z, w);
    let (l, a) = (&mut o.twist.twist.linear, &mut o.twist.twist.angular);
    (l.x, l.y, l.z) = (odometry.linear[0], odometry.linear[1], odometry.linear[2]);
    (a.x, a.y, a.z) = (odometry.angular[0], odometry.angular[1], odometry.angular[2]);
    publisher.publish_native(msg)
}

/// One tf2_msgs/TFMessage, stamped `t`, through the reusable native message `msg` whose
/// transforms (frame ids set at start-up) take the poses of `poses` in order.
#[cfg(signorini_tf2_msgs)]
fn publish_tf<'a>(
    publisher: &r2r::Publisher<TFMessage>,
    msg: &mut NativeMsg<TFMessage>,
    t: &Time,
    poses: impl Iterator<Item = &'a crate::runtime::Odometry>,
) -> r2r::Result<()> {
    let sequence = &mut msg.transforms;
    if sequence.size == 0 {
        return Ok(());
    }
    // SAFETY: the sequence was allocated with `size` transforms when the native message was
    // created from a Rust message with one transform per odometry, and only this thread
    // uses it.
    let transforms = unsafe { std::slice::from_raw_parts_mut(sequence.data, sequence.size) };
    for (tf, pose) in transforms.iter_mut().zip(poses) {
        tf.header.stamp.sec = t.sec;
        tf.header.stamp.nanosec = t.nanosec;
        let (p, q) = (&mut tf.transform.translation, &mut tf.transform.rotation);
        (p.x, p.y, p.z) = (pose.position[0], pose.position[1], pose.position[2]);
        (q.x, q.y, q.z, q.w) = (pose.orientation[0], pose.orientation[1], pose.orientation[2], pose.orientation[3]);
    }
    publisher.publish_native(msg)
}

/// The spawned bodies of a sample on /tf, named by the spawn table (a body deleted or
/// replaced since the sample is left out). Built per sample: their number and names
/// change while running (the publisher's thread, not the loop's, allocates it).
#[cfg(signorini_tf2_msgs)]
fn publish_spawned_tf(
    publisher: &r2r::Publisher<TFMessage>,
    spawns: &crate::app::Spawns,
    t: &Time,
    spawned: &[Option<(u64, crate::runtime::Odometry)>],
) -> r2r::Result<()> {
    use r2r::geometry_msgs::msg::{Transform, TransformStamped};
    let transforms: Vec<TransformStamped> = spawned
        .iter()
        .enumerate()
        .filter_map(|(slot, o)| {
            let (id, pose) = o.as_ref()?;
            let child_frame_id = spawns.name_of(slot, *id)?;
            let [x, y, z] = pose.position;
            let [qx, qy, qz, qw] = pose.orientation;
            Some(TransformStamped {
                header: Header { stamp: t.clone(), frame_id: "world".into() },
                child_frame_id,
                transform: Transform {
                    translation: Vector3 { x, y, z },
                    rotation: Quaternion { x: qx, y: qy, z: qz, w: qw },
                },
            })
        })
        .collect();
    if transforms.is_empty() {
        return Ok(());
    }
    publisher.publish(&TFMessage { transforms })
}

/// Drains `samples` through `publish` until `shutdown` is set and nothing is left,
/// parking between wake-ups (at most 10 ms, so a missed wake-up only delays); counts
/// what was published and what failed.
fn drain(
    mut samples: SampleConsumer<Outputs>,
    shutdown: &AtomicBool,
    counters: &Counters,
    mut publish: impl FnMut(&Outputs) -> r2r::Result<()>,
) {
    loop {
        while samples.pop_with(|s| match publish(s) {
            Ok(()) => {
                Counters::bump(&counters.samples_published);
                counters.last_published_sim_time_ns.store(s.time_ns, Ordering::Relaxed);
            }
            Err(_) => Counters::bump(&counters.publish_errors),
        }) {}
        if shutdown.load(Ordering::Relaxed) && samples.is_empty() {
            return;
        }
        std::thread::park_timeout(Duration::from_millis(10));
    }
}

/// One WrenchStamped per link, stamped `t`, through the reusable native message `msg`.
fn publish_wrenches(
    publishers: &[r2r::Publisher<WrenchStamped>],
    msg: &mut NativeMsg<WrenchStamped>,
    t: &Time,
    wrenches: &[Wrench],
) -> r2r::Result<()> {
    for (publisher, w) in publishers.iter().zip(wrenches) {
        let m = &mut **msg;
        m.header.stamp.sec = t.sec;
        m.header.stamp.nanosec = t.nanosec;
        let (f, tq) = (&mut m.wrench.force, &mut m.wrench.torque);
        (f.x, f.y, f.z) = (w.force[0], w.force[1], w.force[2]);
        (tq.x, tq.y, tq.z) = (w.torque[0], w.torque[1], w.torque[2]);
        publisher.publish_native(msg)?;
    }
    Ok(())
}

/// `mode: control`: the torques on the commands topic (std_msgs/Float64MultiArray, the
/// configured joints' order; not in one process with the simulator) and the predicted
/// contact wrench of each link.
pub struct CommandPublisher {
    commands: Option<r2r::Publisher<Float64MultiArray>>,
    n: usize,
    wrenches: Vec<r2r::Publisher<WrenchStamped>>,
}

impl CommandPublisher {
    /// Publishers of `n` joints' commands and of the links' predicted wrenches.
    pub fn new(
        commands: Option<r2r::Publisher<Float64MultiArray>>,
        n: usize,
        wrenches: Vec<r2r::Publisher<WrenchStamped>>,
    ) -> Self {
        Self { commands, n, wrenches }
    }

    /// Publishes every sample until `shutdown` (see [`drain`]).
    pub fn run(self, samples: SampleConsumer<Outputs>, shutdown: Arc<AtomicBool>, counters: Arc<Counters>) {
        let mut command =
            NativeMsg::<Float64MultiArray>::from(&Float64MultiArray { data: vec![0.0; self.n], ..Default::default() });
        let world = Header { frame_id: "world".into(), ..Default::default() };
        let mut wrench = NativeMsg::<WrenchStamped>::from(&WrenchStamped { header: world, ..Default::default() });
        // One prediction per measured state: the safe output repeats the last state's
        // stamp (no new state came) and predicts nothing.
        let mut predicted = None;
        drain(samples, &shutdown, &counters, |s| {
            if let Some(commands) = &self.commands {
                fill(command.data.data, command.data.size, &s.effort);
                commands.publish_native(&mut command)?;
            }
            if predicted.replace(s.time_ns) == Some(s.time_ns) {
                return Ok(());
            }
            publish_wrenches(&self.wrenches, &mut wrench, &ros_time(s.time_ns), &s.wrenches)
        });
    }
}

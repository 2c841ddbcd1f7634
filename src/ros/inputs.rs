//! The node's input tasks: each turns one subscription's (or service's) messages into plain
//! values, hands them to the library's check ([`crate::runtime`], [`crate::app`],
//! [`crate::control`]) and the accepted ones to the loop's mailbox. A rejection is counted
//! (reported on /diagnostics) and logged at most once per second with how many it stands
//! for. A task ends only when its stream does (the node stopping).

use std::sync::Arc;

use futures::{Stream, StreamExt};
use r2r::geometry_msgs::msg::{PoseStamped, WrenchStamped};
use r2r::nav_msgs::msg::Odometry;
use r2r::sensor_msgs::msg::JointState;
use r2r::std_msgs::msg::{Float64MultiArray, UInt32};
use r2r::std_srvs::srv::{SetBool, Trigger};
use r2r::trajectory_msgs::msg::JointTrajectory as TrajectoryMsg;

use super::simulation_control::{self, Stepped};
use crate::app::inputs::{BasePoseInput, EffortInput, JointCommandSink, ReferenceInput, StateInput, WrenchInput};
use crate::app::sim_requests::check_steps;
use crate::app::{
    ExternalWrenches, JointCommandInput, JointCommandTable, ReferenceCommand, ResetScope, SimRequests, WrenchTargets,
};
use crate::config::NODE_NAME;
use crate::control::TrajectoryPoint;
use crate::runtime::throttle::also;
use crate::runtime::{
    Counters, EffortCommand, MailboxWriter, MeasuredState, Odometry as BaseOdometry, StateAssembly, Throttle, stamp_ns,
};
use crate::spatial::{Force, Vec3};

/// Logs `what` on `topic` if `throttle` lets it through (at most once per second).
fn warn(throttle: &mut Throttle, topic: &str, what: std::fmt::Arguments) {
    if let Some(n) = throttle.event() {
        r2r::log_warn!(NODE_NAME, "{}: {}{}", topic, what, also(n));
    }
}

/// What each merged subscription carries for its handler, and its topic name.
type Labels<W> = Vec<(W, String)>;

/// A message and the index of the subscription it came on.
type Tagged<T> = (usize, T);

/// Several subscriptions (each with what it carries for the handler and its topic name)
/// as one stream of (its index, message); the (what, name) pairs by index.
fn merged<W, S: Stream + Unpin>(
    streams: Vec<(W, S, String)>,
) -> (Labels<W>, impl Stream<Item = Tagged<S::Item>> + Unpin) {
    let (mut labels, mut tagged) = (Vec::new(), Vec::new());
    for (k, (what, stream, topic)) in streams.into_iter().enumerate() {
        labels.push((what, topic));
        tagged.push(stream.map(move |msg| (k, msg)));
    }
    (labels, futures::stream::select_all(tagged))
}

/// Effort commands (std_msgs/Float64MultiArray), one topic per robot (`streams`: its
/// joints' range in the loop's command of `n`, its stream, its topic name; one covering
/// all for a single robot), checked by [`EffortInput`] against its own joint count and
/// merged into one command.
pub async fn robot_commands<S: Stream<Item = Float64MultiArray> + Unpin>(
    streams: Vec<(std::ops::Range<usize>, S, String)>,
    writer: MailboxWriter<EffortCommand>,
    n: usize,
    counters: Arc<Counters>,
) {
    let (labels, mut all) = merged(streams);
    let (ranges, topics): (Vec<_>, Vec<_>) = labels.into_iter().unzip();
    let mut input = EffortInput::new(writer, n, ranges, counters);
    let mut throttle = Throttle::per_second();
    while let Some((k, msg)) = all.next().await {
        if let Err(why) = input.accept(k, &msg.data) {
            warn(&mut throttle, &topics[k], format_args!("{why}"));
        }
    }
}

/// Per-joint commands (sensor_msgs/JointState, as JointStateTopicSystem publishes them),
/// checked whole by [`JointCommandSink`]; each accepted one updates the held table, which
/// the loop reads. Several topics may feed it (`streams`: each with the prefix its joint
/// names get, its stream and its name): with `robots:`, each robot's own topic carries its
/// URDF names, prefixed `<ns>/` here.
pub async fn joint_commands<S: Stream<Item = JointState> + Unpin>(
    streams: Vec<(String, S, String)>,
    ends: (MailboxWriter<JointCommandTable>, JointCommandInput),
    counters: Arc<Counters>,
) {
    let mut sink = JointCommandSink::new(ends, counters);
    let (labels, mut all) = merged(streams);
    let mut throttle = Throttle::per_second();
    while let Some((k, msg)) = all.next().await {
        let (prefix, topic) = &labels[k];
        let outcome = match prefix.is_empty() {
            true => sink.accept(&msg.name, &msg.position, &msg.velocity, &msg.effort),
            false => {
                let names: Vec<String> = msg.name.iter().map(|n| format!("{prefix}{n}")).collect();
                sink.accept(&names, &msg.position, &msg.velocity, &msg.effort)
            }
        };
        if let Err(why) = outcome {
            warn(&mut throttle, topic, format_args!("{why}"));
        }
    }
}

/// `~/reset` (std_srvs/Trigger: the robot and the bodies back at their initial state,
/// simulated time running on), `~/pause` (std_srvs/SetBool: true pauses, false plays) and
/// `~/step` (std_msgs/UInt32: while paused, run that many more steps): the old aliases of
/// ResetSimulation(SCOPE_STATE), SetSimulationState and StepSimulation
/// ([`super::simulation_interfaces`]), over the same requests.
pub async fn simulation_requests(
    mut reset: impl Stream<Item = r2r::ServiceRequest<Trigger::Service>> + Unpin,
    mut pause: impl Stream<Item = r2r::ServiceRequest<SetBool::Service>> + Unpin,
    mut steps: impl Stream<Item = UInt32> + Unpin,
    requests: Arc<SimRequests>,
    counters: Arc<Counters>,
) {
    let mut throttle = Throttle::per_second();
    loop {
        tokio::select! {
            Some(req) = reset.next() => {
                let response = match simulation_control::reset(&requests, ResetScope::STATE).await {
                    Ok(()) => Trigger::Response {
                        success: true,
                        message: "the robot and the bodies are back at their initial state".to_owned(),
                    },
                    Err(why) => Trigger::Response { success: false, message: why.to_string() },
                };
                if req.respond(response).is_err() {
                    r2r::log_warn!(NODE_NAME, "~/reset: could not send the response");
                }
            }
            Some(req) = pause.next() => {
                let paused = req.message.data;
                requests.set_paused(paused);
                let message = if paused { "paused" } else { "running" }.to_owned();
                if req.respond(SetBool::Response { success: true, message }).is_err() {
                    r2r::log_warn!(NODE_NAME, "~/pause: could not send the response");
                }
            }
            Some(msg) = steps.next() => {
                let n = u64::from(msg.data);
                if let Err(why) = check_steps(requests.state(), n) {
                    Counters::bump(&counters.simulation_requests_refused);
                    warn(&mut throttle, "~/step", format_args!("{why}"));
                    continue;
                }
                let (requests, counters) = (requests.clone(), counters.clone());
                // Stepping takes a period per step: in its own task, as StepSimulation.
                tokio::spawn(async move {
                    let outcome = simulation_control::run_steps(&requests, &counters, n, || false, |_| {}).await;
                    if let Ok(Stepped::Interrupted(why)) | Err(why) = outcome {
                        r2r::log_warn!(NODE_NAME, "~/step: {why}");
                    }
                });
            }
            else => return,
        }
    }
}

/// nav_msgs/Odometry → the plain odometry the state assembly pairs.
fn base_odometry(o: &Odometry) -> BaseOdometry {
    let (p, t) = (&o.pose.pose, &o.twist.twist);
    BaseOdometry {
        position: [p.position.x, p.position.y, p.position.z],
        orientation: [p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w],
        linear: [t.linear.x, t.linear.y, t.linear.z],
        angular: [t.angular.x, t.angular.y, t.angular.z],
    }
}

/// /joint_states and, for a floating base, its odometry → the measured state of the
/// configured joints, as [`StateInput`] checks and pairs them; the loop's watchdog sees
/// no fresh state while they are refused.
pub async fn states(
    mut joint_states: impl Stream<Item = JointState> + Unpin,
    mut odometry: Option<impl Stream<Item = Odometry> + Unpin>,
    writer: MailboxWriter<MeasuredState>,
    assembly: StateAssembly,
    counters: Arc<Counters>,
    (state_topic, odometry_topic): (String, String),
) {
    let mut input = StateInput::new(writer, assembly, counters);
    let mut throttle = Throttle::per_second();
    loop {
        let (outcome, topic) = tokio::select! {
            Some(o) = async { match odometry.as_mut() { Some(s) => s.next().await, None => None } } => {
                let stamp = (o.header.stamp.sec, o.header.stamp.nanosec);
                (input.odometry(stamp, base_odometry(&o)), &odometry_topic)
            }
            Some(m) = joint_states.next() => {
                let stamp = (m.header.stamp.sec, m.header.stamp.nanosec);
                (input.joint_state(stamp, &m.name, &m.position, &m.velocity), &state_topic)
            }
            else => return,
        };
        if let Err(why) = outcome {
            warn(&mut throttle, topic, format_args!("{why}"));
        }
    }
}

/// trajectory_msgs/JointTrajectory → the controller's reference, as [`ReferenceInput`]
/// checks it; the header stamp is the start (zero or before the epoch: now).
pub async fn references(
    mut stream: impl Stream<Item = TrajectoryMsg> + Unpin,
    writer: MailboxWriter<ReferenceCommand>,
    joints: (Vec<String>, Vec<f64>),
    counters: Arc<Counters>,
    topic: String,
) {
    let mut input = ReferenceInput::new(writer, joints, counters);
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        let start_ns = stamp_ns(msg.header.stamp.sec, msg.header.stamp.nanosec).unwrap_or(0);
        let points: Vec<TrajectoryPoint> = msg
            .points
            .iter()
            .map(|p| TrajectoryPoint {
                positions: p.positions.clone(),
                velocities: p.velocities.clone(),
                accelerations: p.accelerations.clone(),
                time_from_start: p.time_from_start.sec as f64 + p.time_from_start.nanosec as f64 * 1e-9,
            })
            .collect();
        if let Err(why) = input.accept(start_ns, &msg.joint_names, &points) {
            warn(&mut throttle, &topic, format_args!("{why}"));
        }
    }
}

/// geometry_msgs/PoseStamped in `world` → the floating base's pose reference, as
/// [`BasePoseInput`] checks it (counted with the references).
pub async fn base_references(
    mut stream: impl Stream<Item = PoseStamped> + Unpin,
    writer: MailboxWriter<Option<[f64; 7]>>,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut input = BasePoseInput::new(writer, counters);
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        let (p, o) = (&msg.pose.position, &msg.pose.orientation);
        if let Err(why) = input.accept([p.x, p.y, p.z, o.x, o.y, o.z, o.w]) {
            warn(&mut throttle, &topic, format_args!("{why}"));
        }
    }
}

/// `~/external_wrench` (geometry_msgs/WrenchStamped): the wrench on the link or free body
/// named in `header.frame_id` (world axes, about the origin of the joint frame carrying
/// the link, or of the body), in force until replaced, as [`WrenchInput`] checks it.
pub async fn external_wrenches(
    mut stream: impl Stream<Item = WrenchStamped> + Unpin,
    writer: MailboxWriter<ExternalWrenches>,
    targets: WrenchTargets,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut input = WrenchInput::new(writer, targets, counters);
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        let (f, t) = (&msg.wrench.force, &msg.wrench.torque);
        let wrench = Force { linear: Vec3::new(f.x, f.y, f.z), angular: Vec3::new(t.x, t.y, t.z) };
        if let Err(why) = input.accept(&msg.header.frame_id, wrench) {
            warn(&mut throttle, &topic, format_args!("{why}"));
        }
    }
}

//! The node's input tasks: each turns one subscription's (or service's) messages into plain
//! values, hands them to the library's check ([`crate::runtime`], [`crate::app`],
//! [`crate::control`]) and the accepted ones to the loop's mailbox. A rejection is counted
//! (reported on /diagnostics) and logged at most once per second with how many it stands
//! for. A task ends only when its stream does (the node stopping).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::{Stream, StreamExt};
use r2r::geometry_msgs::msg::{PoseStamped, WrenchStamped};
use r2r::nav_msgs::msg::Odometry;
use r2r::sensor_msgs::msg::JointState;
use r2r::std_msgs::msg::{Float64MultiArray, UInt32};
use r2r::std_srvs::srv::{SetBool, Trigger};
use r2r::trajectory_msgs::msg::JointTrajectory as TrajectoryMsg;

use super::simulation_control::{self, Stepped};
use crate::app::sim_requests::check_steps;
use crate::app::{
    ExternalWrenches, JointCommandInput, JointCommandTable, ReferenceCommand, ResetScope, SimRequests, WrenchTargets,
};
use crate::config::NODE_NAME;
use crate::control::{JointTrajectory, TrajectoryPoint};
use crate::runtime::throttle::also;
use crate::runtime::{
    Counters, EffortCommand, MailboxWriter, MeasuredState, Odometry as BaseOdometry, StateAssembly, Throttle,
    base_pose, stamp_ns, validate_efforts,
};
use crate::spatial::{Force, Vec3};

/// Logs `what` on `topic` if `throttle` lets it through (at most once per second).
fn warn(throttle: &mut Throttle, topic: &str, what: std::fmt::Arguments) {
    if let Some(n) = throttle.event() {
        r2r::log_warn!(NODE_NAME, "{}: {}{}", topic, what, also(n));
    }
}

/// Effort commands (std_msgs/Float64MultiArray, one per controlled joint, configured
/// order), checked by [`validate_efforts`].
pub async fn commands(
    mut stream: impl Stream<Item = Float64MultiArray> + Unpin,
    mut writer: MailboxWriter<EffortCommand>,
    n: usize,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        match validate_efforts(&msg.data, n) {
            Ok(()) => {
                writer.write_with(|c| c.effort.copy_from_slice(&msg.data));
                Counters::bump(&counters.commands_accepted);
            }
            Err(why) => {
                counters.count_rejection(why);
                warn(&mut throttle, &topic, format_args!("command rejected: {why}"));
            }
        }
    }
}

/// Effort commands of several robots (`robots:`), each on its own topic (`streams`: its
/// joints' range in the combined command, its stream, its topic name), checked by
/// [`validate_efforts`] against its own joint count and merged into one command: a robot
/// whose controller has not published yet has NaN efforts, which the loop replaces by its
/// fallback.
pub async fn robot_commands<S: Stream<Item = Float64MultiArray> + Unpin>(
    streams: Vec<(std::ops::Range<usize>, S, String)>,
    mut writer: MailboxWriter<EffortCommand>,
    n: usize,
    counters: Arc<Counters>,
) {
    let mut merged = vec![f64::NAN; n];
    let mut topics = Vec::with_capacity(streams.len());
    let mut tagged = Vec::with_capacity(streams.len());
    for (k, (range, stream, topic)) in streams.into_iter().enumerate() {
        topics.push((range, topic));
        tagged.push(stream.map(move |msg| (k, msg)));
    }
    let mut all = futures::stream::select_all(tagged);
    let mut throttle = Throttle::per_second();
    while let Some((k, msg)) = all.next().await {
        let (range, topic) = &topics[k];
        match validate_efforts(&msg.data, range.len()) {
            Ok(()) => {
                merged[range.clone()].copy_from_slice(&msg.data);
                writer.write_with(|c| c.effort.copy_from_slice(&merged));
                Counters::bump(&counters.commands_accepted);
            }
            Err(why) => {
                counters.count_rejection(why);
                warn(&mut throttle, topic, format_args!("command rejected: {why}"));
            }
        }
    }
}

/// Per-joint commands (sensor_msgs/JointState, as JointStateTopicSystem publishes them),
/// checked whole by [`JointCommandInput::apply`]; each accepted one updates the held
/// table, which the loop reads.
pub async fn joint_commands(
    mut stream: impl Stream<Item = JointState> + Unpin,
    (mut writer, mut input): (MailboxWriter<JointCommandTable>, JointCommandInput),
    counters: Arc<Counters>,
    topic: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        match input.apply(&msg.name, &msg.position, &msg.velocity, &msg.effort) {
            Ok(table) => {
                writer.write_with(|t| t.clone_from(table));
                Counters::bump(&counters.joint_commands_accepted);
            }
            Err(why) => {
                Counters::bump(&counters.joint_commands_rejected);
                let why = why.describe(&msg.name);
                warn(&mut throttle, &topic, format_args!("joint command rejected: {why}"));
            }
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
/// configured joints, as [`StateAssembly`] checks and pairs them; the loop's watchdog sees
/// no fresh state while they are refused.
pub async fn states(
    mut joint_states: impl Stream<Item = JointState> + Unpin,
    mut odometry: Option<impl Stream<Item = Odometry> + Unpin>,
    mut writer: MailboxWriter<MeasuredState>,
    mut assembly: StateAssembly,
    counters: Arc<Counters>,
    (state_topic, odometry_topic): (String, String),
) {
    let mut out = MeasuredState::of_joints(assembly.joints().len());
    let mut throttle = Throttle::per_second();
    loop {
        let assembled = tokio::select! {
            Some(o) = async { match odometry.as_mut() { Some(s) => s.next().await, None => None } } => {
                let stamp = (o.header.stamp.sec, o.header.stamp.nanosec);
                assembly.odometry(stamp, base_odometry(&o), &mut out).map_err(|why| {
                    Counters::bump(&counters.odometry_rejected);
                    warn(&mut throttle, &odometry_topic, format_args!("odometry rejected: {why}"));
                })
            }
            Some(m) = joint_states.next() => {
                let stamp = (m.header.stamp.sec, m.header.stamp.nanosec);
                assembly.joint_state(stamp, &m.name, &m.position, &m.velocity, &mut out).map_err(|why| {
                    Counters::bump(&counters.states_rejected);
                    let why = why.describe(assembly.joints(), &m.name);
                    warn(&mut throttle, &state_topic, format_args!("state rejected: {why}"));
                })
            }
            else => return,
        };
        let Ok(assembled) = assembled else { continue };
        if assembled.unpaired > 0 {
            counters.states_unpaired.fetch_add(u64::from(assembled.unpaired), Ordering::Relaxed);
            warn(
                &mut throttle,
                &state_topic,
                format_args!("joint states without odometry within the pairing tolerance"),
            );
        }
        if assembled.ready {
            writer.write_with(|s| s.clone_from(&out));
        }
    }
}

/// trajectory_msgs/JointTrajectory → the controller's reference, as
/// [`JointTrajectory::for_joints`] checks it (named joints in any order, the others hold
/// the posture); the header stamp is the start (zero or before the epoch: now). An empty
/// trajectory returns to the posture, as joint_trajectory_controller stops on one.
pub async fn references(
    mut stream: impl Stream<Item = TrajectoryMsg> + Unpin,
    mut writer: MailboxWriter<ReferenceCommand>,
    (joints, hold): (Vec<String>, Vec<f64>),
    counters: Arc<Counters>,
    topic: String,
) {
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
        let trajectory = match points.is_empty() {
            true => Ok(None),
            false => JointTrajectory::for_joints(&joints, &hold, &msg.joint_names, &points).map(Some),
        };
        match trajectory {
            Ok(trajectory) => {
                writer.write_with(|r| *r = ReferenceCommand { trajectory, start_ns });
                Counters::bump(&counters.references_accepted);
            }
            Err(why) => {
                Counters::bump(&counters.references_rejected);
                warn(&mut throttle, &topic, format_args!("trajectory rejected: {why}"));
            }
        }
    }
}

/// geometry_msgs/PoseStamped in `world` → the floating base's pose reference, as
/// [`base_pose`] checks it (counted with the references).
pub async fn base_references(
    mut stream: impl Stream<Item = PoseStamped> + Unpin,
    mut writer: MailboxWriter<Option<[f64; 7]>>,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        let (p, o) = (&msg.pose.position, &msg.pose.orientation);
        match base_pose([p.x, p.y, p.z, o.x, o.y, o.z, o.w]) {
            Some(pose) => {
                writer.write_with(|r| *r = Some(pose));
                Counters::bump(&counters.references_accepted);
            }
            None => {
                Counters::bump(&counters.references_rejected);
                warn(&mut throttle, &topic, format_args!("pose rejected: not finite, or not a unit quaternion"));
            }
        }
    }
}

/// `~/external_wrench` (geometry_msgs/WrenchStamped): the wrench on the link or free body
/// named in `header.frame_id` (world axes, about the origin of the joint frame carrying
/// the link, or of the body), in force until replaced, as [`WrenchTargets::set`] checks it.
pub async fn external_wrenches(
    mut stream: impl Stream<Item = WrenchStamped> + Unpin,
    mut writer: MailboxWriter<ExternalWrenches>,
    mut targets: WrenchTargets,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(msg) = stream.next().await {
        let (f, t) = (&msg.wrench.force, &msg.wrench.torque);
        let wrench = Force { linear: Vec3::new(f.x, f.y, f.z), angular: Vec3::new(t.x, t.y, t.z) };
        match targets.set(&msg.header.frame_id, wrench) {
            Ok(table) => writer.write_with(|w| w.clone_from(table)),
            Err(why) => {
                Counters::bump(&counters.wrenches_rejected);
                warn(&mut throttle, &topic, format_args!("wrench rejected: {why}"));
            }
        }
    }
}

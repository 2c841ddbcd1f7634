//! The r2r node `signorini`: parameters, publishers, subscriptions and the threads around
//! the real-time loop. It converts messages and wires executors; what runs and what is
//! accepted is decided below it ([`crate::app`], [`crate::runtime`]).
//!
//! Threads: the loop (absolute deadlines, [`crate::runtime`]); the publishers (draining the
//! loop's sample rings into topics); the ROS spinner (`spin_once` in a tight loop on its
//! own OS thread, which keeps up with kHz topics); the status printer
//! ([`crate::runtime::Console`]); and one tokio thread for the subscriptions, services
//! ([`super::inputs`]), /diagnostics and signals, all supervised ([`super::supervision`]).

use std::path::{Path, PathBuf};

use r2r::geometry_msgs::msg::{PoseStamped, WrenchStamped};
use r2r::nav_msgs::msg::Odometry;
use r2r::rosgraph_msgs::msg::Clock;
use r2r::sensor_msgs::msg::{Imu, JointState};
use r2r::std_msgs::msg::{Float64MultiArray, UInt32};
use r2r::std_srvs::srv::{SetBool, Trigger};
use r2r::trajectory_msgs::msg::JointTrajectory as TrajectoryMsg;
use r2r::visualization_msgs::msg::MarkerArray;
use r2r::{Publisher, QosProfile, WrappedTypesupport};

use super::description::{Description, ignore_later, wait_for_description};
use super::inputs;
use super::qos::profile;
use super::simulation_interfaces;
use super::state_publisher::{CommandPublisher, RobotPublishers, SensorPublishers, StatePublisher, with_tf};
use super::supervision::{LoopIo, Tasks, serve};
use crate::app::{
    ControlEnds, ControlLoop, OutputLayout, Setup, SetupError, SimAndControlLoop, SimEnds, SimLoop, UrdfText,
};
use crate::config::{Config, Mode, Qos, QosOverrides, topic_token};
use crate::runtime::{CounterSnapshot, LoopReport, StateAssembly};

pub use crate::config::NODE_NAME;

/// How the node was started.
#[derive(Clone, Debug, Default)]
pub struct NodeOptions {
    /// Configuration file from the command line (wins over the `config_file` parameter).
    pub config_file: Option<PathBuf>,
}

/// Why the node could not start or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// Configuration or URDF.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A ROS parameter of the wrong type.
    #[error("ROS parameter `{name}`: {message}")]
    Parameter {
        /// Parameter name.
        name: &'static str,
        /// Expected and found.
        message: String,
    },
    /// No URDF on `robot.description_topic` within `robot.description_timeout`.
    #[error(
        "no URDF on {topic} within {timeout_s} s (robot.description_timeout): is a publisher such as robot_state_publisher running, with reliable, transient local QoS?"
    )]
    NoDescription {
        /// The topic.
        topic: String,
        /// How long the node waited (s).
        timeout_s: f64,
    },
    /// SIGINT or SIGTERM while waiting for the URDF on `topic` (nothing was started).
    #[error("interrupted while waiting for the URDF on {topic}")]
    Interrupted {
        /// The topic.
        topic: String,
    },
    /// No configuration file anywhere.
    #[error("no configuration: pass --config FILE or the ROS parameter config_file (looked for the default {0})")]
    NoConfig(String),
    /// An rcl call failed.
    #[error("ROS 2: {what}: {source}")]
    Ros {
        /// What was being done.
        what: String,
        /// The r2r error.
        source: r2r::Error,
    },
    /// A thread could not be started or died.
    #[error("{0}")]
    Thread(String),
}

fn ros(what: impl Into<String>) -> impl FnOnce(r2r::Error) -> NodeError {
    let what = what.into();
    move |source| NodeError::Ros { what, source }
}

/// What a finished run reports.
#[derive(Clone, Debug)]
pub struct NodeSummary {
    /// The loop report over the whole run.
    pub report: LoopReport,
    /// Counters at exit.
    pub counters: CounterSnapshot,
}

/// The configuration shipped with the package, used when none is given.
pub fn default_config_file() -> PathBuf {
    let installed = std::env::var_os("AMENT_PREFIX_PATH").and_then(|prefixes| {
        std::env::split_paths(&prefixes).map(|p| p.join("share/signorini/config/quadruped.yaml")).find(|p| p.is_file())
    });
    installed.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml"))
}

fn string_parameter(node: &r2r::Node, name: &'static str) -> Result<Option<String>, NodeError> {
    node.get_parameter::<Option<String>>(name).map_err(|e| NodeError::Parameter {
        name,
        message: match e {
            r2r::Error::ParameterWrongType { expected_type, actual_type, .. } => {
                format!("expected {expected_type}, got {actual_type}")
            }
            other => other.to_string(),
        },
    })
}

/// Runs the node until SIGINT or SIGTERM. Returns the final statistics.
pub fn run(options: NodeOptions) -> Result<NodeSummary, NodeError> {
    let ctx = r2r::Context::create().map_err(ros("initializing rcl"))?;
    let mut node = r2r::Node::create(ctx, NODE_NAME, "").map_err(ros("creating the node"))?;

    let config_file = match (options.config_file, string_parameter(&node, "config_file")?) {
        (Some(cli), _) => cli,
        (None, Some(param)) => PathBuf::from(param),
        (None, None) => {
            let default = default_config_file();
            if !default.is_file() {
                return Err(NodeError::NoConfig(default.display().to_string()));
            }
            default
        }
    };
    let config = Config::from_file(&config_file).map_err(SetupError::from)?;
    let mut tasks = Tasks::default();
    let setup = load_robot(&mut node, &config_file, config, &mut tasks)?;
    match setup.config.mode {
        Mode::Sim => run_sim(node, &setup, tasks),
        Mode::Control => run_control(node, &setup, tasks),
        Mode::SimAndControl => run_sim_and_control(node, &setup, tasks),
    }
}

/// The robot of `config`, its URDF from the first of: the `robot_description` parameter
/// (a blank one counts as none), the first message on `robot.description_topic` (waited
/// for; later ones are watched by a task added to `tasks`), the `robot.urdf` file.
fn load_robot(node: &mut r2r::Node, config_file: &Path, config: Config, tasks: &mut Tasks) -> Result<Setup, NodeError> {
    if let Some(xml) = string_parameter(node, "robot_description")?.filter(|s| !s.trim().is_empty()) {
        let text = UrdfText { xml: &xml, origin: "parameter robot_description" };
        return Ok(Setup::with_urdf(config_file, config, Some(text))?);
    }
    let Some(topic) = config.robot.description_topic.clone() else {
        return Ok(Setup::with_urdf(config_file, config, None)?);
    };
    let timeout = config.robot.description_wait();
    let Description { xml, later } = wait_for_description(node, &topic, timeout)?;
    let origin = format!("topic {topic}");
    let setup = Setup::with_urdf(config_file, config, Some(UrdfText { xml: &xml, origin: &origin }))?;
    tasks.spawn(format!("{topic} subscription"), ignore_later(later, xml, topic.to_string()));
    Ok(setup)
}

/// A publisher on `topic`; its error names the topic.
fn publisher<T: WrappedTypesupport>(
    node: &mut r2r::Node,
    topic: &str,
    qos: QosProfile,
) -> Result<Publisher<T>, NodeError> {
    node.create_publisher::<T>(topic, qos).map_err(ros(format!("creating the publisher on {topic}")))
}

/// A subscription to `topic`; its error names the topic. r2r keeps up to 10 messages
/// between the spinner and the task; beyond that it drops the message being taken (the
/// newest) until the task catches up.
fn subscription<T: WrappedTypesupport + Send + 'static>(
    node: &mut r2r::Node,
    topic: &str,
    qos: QosProfile,
) -> Result<impl futures::Stream<Item = T> + Unpin + Send + use<T>, NodeError> {
    node.subscribe::<T>(topic, qos).map_err(ros(format!("subscribing to {topic}")))
}

/// The reliable keep-last profile of the state-like topics (`qos.joint_states`).
fn state_qos(qos: &QosOverrides, side: Qos) -> QosProfile {
    profile(qos.joint_states.over(side))
}

/// `mode: sim`: the simulator in the loop, effort commands in, the simulated state out.
fn run_sim(mut node: r2r::Node, setup: &Setup, mut tasks: Tasks) -> Result<NodeSummary, NodeError> {
    let config = &setup.config;
    let io = LoopIo::new(&mut node, setup)?;
    let SimLoop { mut job, commands, joint_commands, ends } = SimLoop::new(setup, io.counters.clone())?;
    let topic = subscribe_commands(&mut node, setup, commands, &io, &mut tasks)?;
    let mut banner = format!("{}; effort commands on {topic}", sim_banner(setup));
    if let Some(joint_topic) = &config.joint_commands.topic {
        banner += &subscribe_joint_commands(&mut node, setup, joint_topic, joint_commands, &io, &mut tasks)?;
    }
    let publisher = sim_side(&mut node, setup, &io, ends, &mut tasks)?;
    job.hand_off_to(publisher.thread().clone());
    serve(node, setup, job, vec![publisher], io, banner, tasks)
}

/// The JointState command topic (`joint_commands.topic`) and, with `robots:`, each robot's
/// own `/<ns>/<its last name>` carrying its URDF joint names; returns the banner's words.
fn subscribe_joint_commands(
    node: &mut r2r::Node,
    setup: &Setup,
    topic: &crate::config::TopicName,
    ends: (crate::runtime::MailboxWriter<crate::app::JointCommandTable>, crate::app::JointCommandInput),
    io: &LoopIo,
    tasks: &mut Tasks,
) -> Result<String, NodeError> {
    let qos = profile(setup.config.qos.joint_commands.over(Qos::PUBLISHER));
    let topic = topic.to_string();
    let mut streams = vec![(String::new(), subscription::<JointState>(node, &topic, qos.clone())?, topic.clone())];
    let last = topic.rsplit('/').next().unwrap_or(&topic).to_owned();
    for r in &setup.robots {
        let own = r.topic(&last);
        streams.push((format!("{}/", r.namespace), subscription::<JointState>(node, &own, qos.clone())?, own));
    }
    let words = match setup.robots.is_empty() {
        true => format!(", joint commands on {topic}"),
        false => format!(", joint commands on {topic} and /<ns>/{last}"),
    };
    tasks.spawn(format!("{topic} subscriptions"), inputs::joint_commands(streams, ends, io.counters.clone()));
    Ok(words)
}

/// The effort command subscriptions: the single robot's `commands_topic`, or with
/// `robots:` each robot's `/<ns>/<controller>/commands` (its own joints, URDF order),
/// merged into the loop's one command; returns the topic (or the topics' pattern).
fn subscribe_commands(
    node: &mut r2r::Node,
    setup: &Setup,
    commands: crate::runtime::MailboxWriter<crate::runtime::EffortCommand>,
    io: &LoopIo,
    tasks: &mut Tasks,
) -> Result<String, NodeError> {
    let config = &setup.config;
    let qos = profile(config.qos.commands.over(Qos::SUBSCRIPTION));
    let n = setup.joint_names.len();
    let (topics, name) = match setup.robots.is_empty() {
        true => (vec![(0..n, config.commands_topic().to_string())], config.commands_topic().to_string()),
        false => {
            let own =
                |r: &crate::app::RobotView| (r.joints.clone(), r.topic(&format!("{}/commands", config.controller)));
            (setup.robots.iter().map(own).collect(), format!("/<ns>/{}/commands", config.controller))
        }
    };
    let mut streams = Vec::with_capacity(topics.len());
    for (joints, topic) in topics {
        streams.push((joints, subscription::<Float64MultiArray>(node, &topic, qos.clone())?, topic));
    }
    tasks.spawn(format!("{name} subscription"), inputs::robot_commands(streams, commands, n, io.counters.clone()));
    Ok(name)
}

/// Each robot's `/<ns>/joint_states` and, with a floating base, `/<ns>/odom` (`robots:`).
fn robot_publishers(node: &mut r2r::Node, setup: &Setup) -> Result<Vec<RobotPublishers>, NodeError> {
    let qos = state_qos(&setup.config.qos, Qos::PUBLISHER);
    let mut robots = Vec::with_capacity(setup.robots.len());
    for r in &setup.robots {
        let odometry = match r.base {
            Some(_) => Some((publisher::<Odometry>(node, &r.topic("odom"), qos.clone())?, r.root_link.clone())),
            None => None,
        };
        robots.push(RobotPublishers {
            joint_states: publisher::<JointState>(node, &r.topic("joint_states"), qos.clone())?,
            joints: r.joints.clone(),
            names: r.joint_names.clone(),
            odometry,
        });
    }
    Ok(robots)
}

/// `mode: control`: the measured state in, the controller's torques and predicted contact
/// wrenches out.
fn run_control(mut node: r2r::Node, setup: &Setup, mut tasks: Tasks) -> Result<NodeSummary, NodeError> {
    let (config, topics) = (&setup.config, &setup.config.topics);
    let io = LoopIo::new(&mut node, setup)?;
    let ControlLoop { mut job, states, ends } = ControlLoop::new(setup, io.counters.clone())?;
    let joint_states =
        subscription::<JointState>(&mut node, &topics.joint_states, state_qos(&config.qos, Qos::SUBSCRIPTION))?;
    let odometry = match setup.model.has_free_flyer() {
        true => Some(subscription::<Odometry>(&mut node, &topics.odometry, state_qos(&config.qos, Qos::SUBSCRIPTION))?),
        false => None,
    };
    let commands_topic = config.commands_topic();
    let commands = publisher(&mut node, &commands_topic, profile(config.qos.commands.over(Qos::PUBLISHER)))?;
    let publisher = control_side(&mut node, setup, &io, ends, Some(commands), &mut tasks)?;
    job.hand_off_to(publisher.thread().clone());
    let base = if odometry.is_some() { format!(" and {}", topics.odometry) } else { String::new() };
    let banner = format!(
        "signorini: controlling {} ({} joints) from {} at {} Hz; state from {}{base}; torques on {commands_topic}; reference on {}",
        setup.robot.name,
        setup.joint_names.len(),
        setup.robot.origin,
        config.rate_hz.get(),
        topics.joint_states,
        topics.reference
    );
    let assembly = StateAssembly::new(setup.joint_names.clone(), odometry.is_some(), config.pairing_tolerance());
    let names = (topics.joint_states.to_string(), topics.odometry.to_string());
    let task = inputs::states(joint_states, odometry, states, assembly, io.counters.clone(), names);
    tasks.spawn(format!("{} subscription", topics.joint_states), task);
    serve(node, setup, job, vec![publisher], io, banner, tasks)
}

/// `mode: sim+control`: both in one loop, exchanging state and torques in memory; the
/// simulator's topics and the controller's predicted wrenches and reference as in the two
/// modes (no effort command subscription: the controller drives the simulator).
fn run_sim_and_control(mut node: r2r::Node, setup: &Setup, mut tasks: Tasks) -> Result<NodeSummary, NodeError> {
    let io = LoopIo::new(&mut node, setup)?;
    let SimAndControlLoop { mut job, sim, control } = SimAndControlLoop::new(setup, io.counters.clone())?;
    let sim_publisher = sim_side(&mut node, setup, &io, sim, &mut tasks)?;
    let control_publisher = control_side(&mut node, setup, &io, control, None, &mut tasks)?;
    job.hand_off_to(sim_publisher.thread().clone(), control_publisher.thread().clone());
    let banner =
        format!("{}; controlled in process (reference on {})", sim_banner(setup), setup.config.topics.reference);
    serve(node, setup, job, vec![sim_publisher, control_publisher], io, banner, tasks)
}

/// The simulator's topics and services: /clock, /joint_states, odometry, contact wrenches
/// and markers from its samples (on the returned publisher thread); the standard simulator
/// services ([`simulation_interfaces`]), ~/reset, ~/pause, ~/step and the external wrenches
/// as tasks.
fn sim_side(
    node: &mut r2r::Node,
    setup: &Setup,
    io: &LoopIo,
    ends: SimEnds,
    tasks: &mut Tasks,
) -> Result<std::thread::JoinHandle<()>, NodeError> {
    let (qos, topics) = (&setup.config.qos, &setup.config.topics);
    let services = QosProfile::services_default();
    let reset =
        node.create_service::<Trigger::Service>("~/reset", services.clone()).map_err(ros("creating ~/reset"))?;
    let pause = node.create_service::<SetBool::Service>("~/pause", services).map_err(ros("creating ~/pause"))?;
    let steps = subscription::<UInt32>(node, "~/step", QosProfile::default())?;
    let external = subscription::<WrenchStamped>(node, &topics.external_wrench, QosProfile::default())?;
    let mut state = StatePublisher::new(
        publisher::<Clock>(node, &topics.clock, profile(qos.clock.over(Qos::PUBLISHER)))?,
        publisher::<JointState>(node, &topics.joint_states, state_qos(qos, Qos::PUBLISHER))?,
        setup.joint_names.clone(),
        match &ends.layout.base_link {
            Some(link) => {
                Some((publisher::<Odometry>(node, &topics.odometry, state_qos(qos, Qos::PUBLISHER))?, link.clone()))
            }
            None => None,
        },
        wrench_publishers(node, &topics.contact_wrenches, &ends.layout, qos)?,
    );
    let mut bodies = Vec::new();
    for name in &ends.layout.body_names {
        let topic = format!("/{}/odom", topic_token(name));
        bodies.push((publisher::<Odometry>(node, &topic, state_qos(qos, Qos::PUBLISHER))?, name.clone()));
    }
    let robots = robot_publishers(node, setup)?;
    let has_poses = ends.layout.base_link.is_some()
        || !bodies.is_empty()
        || robots.iter().any(|r| r.odometry.is_some())
        || ends.spawns.capacity() > 0;
    state = state.with_bodies(bodies).with_robots(robots).with_spawned(ends.spawns.clone()).with_markers(publisher::<
        MarkerArray,
    >(
        node,
        &topics.contact_markers,
        QosProfile::default(),
    )?);
    if !setup.sensors.is_empty() {
        state = state.with_sensors(sensor_publishers(node, setup)?, setup.sensors.clone());
    }
    let tf = topics.tf.as_ref().filter(|_| has_poses);
    let state =
        with_tf(node, state, tf).map_err(ros(format!("creating the publisher on {}", tf.map_or("/tf", |t| t))))?;
    let (shutdown, counters) = (io.shutdown.clone(), io.counters.clone());
    let thread = spawn_publisher(move || state.run(ends.samples, shutdown, counters))?;
    let requests = ends.requests;
    simulation_interfaces::serve(
        node,
        &setup.config.simulation_interfaces,
        requests.clone(),
        ends.spawns,
        ends.entities,
        io.counters.clone(),
        tasks,
    )?;
    let aliases = inputs::simulation_requests(reset, pause, steps, requests, io.counters.clone());
    tasks.spawn("~/reset, ~/pause and ~/step".into(), aliases);
    let topic = topics.external_wrench.to_string();
    let task = inputs::external_wrenches(external, ends.wrenches, ends.targets, io.counters.clone(), topic.clone());
    tasks.spawn(format!("{topic} subscription"), task);
    Ok(thread)
}

/// The controller's topics: predicted contact wrenches (and the torques on `commands`)
/// from its samples, on the returned publisher thread; the joint and base references as
/// tasks.
fn control_side(
    node: &mut r2r::Node,
    setup: &Setup,
    io: &LoopIo,
    ends: ControlEnds,
    commands: Option<Publisher<Float64MultiArray>>,
    tasks: &mut Tasks,
) -> Result<std::thread::JoinHandle<()>, NodeError> {
    let topics = &setup.config.topics;
    let reference = subscription::<TrajectoryMsg>(node, &topics.reference, QosProfile::default())?;
    let wrenches = wrench_publishers(node, &topics.predicted_contact_wrenches, &ends.layout, &setup.config.qos)?;
    let state = CommandPublisher::new(commands, setup.joint_names.len(), wrenches);
    let (shutdown, counters) = (io.shutdown.clone(), io.counters.clone());
    let thread = spawn_publisher(move || state.run(ends.samples, shutdown, counters))?;
    let joints = (setup.joint_names.clone(), setup.posture_positions.clone());
    let task =
        inputs::references(reference, ends.references, joints, io.counters.clone(), topics.reference.to_string());
    tasks.spawn(format!("{} subscription", topics.reference), task);
    if setup.model.has_free_flyer() {
        let stream = subscription::<PoseStamped>(node, &topics.base_reference, QosProfile::default())?;
        let topic = topics.base_reference.to_string();
        let task = inputs::base_references(stream, ends.base_references, io.counters.clone(), topic.clone());
        tasks.spawn(format!("{topic} subscription"), task);
    }
    Ok(thread)
}

/// The simulator's start-up line.
fn sim_banner(setup: &Setup) -> String {
    let (config, topics) = (&setup.config, &setup.config.topics);
    let pace = match config.sim.realtime_factor.factor() {
        Some(f) => format!("real-time factor {f}"),
        None => "as fast as possible".to_owned(),
    };
    format!(
        "signorini: {} ({} joints) from {}, step {} s at {pace}; publishing {}, {}, {}",
        setup.robot.name,
        setup.joint_names.len(),
        setup.robot.origin,
        config.sim_dt(),
        topics.clock,
        topics.joint_states,
        topics.diagnostics,
    )
}

/// One WrenchStamped publisher per link of `layout`, on `<prefix>/<link>`.
fn wrench_publishers(
    node: &mut r2r::Node,
    prefix: &str,
    layout: &OutputLayout,
    qos: &QosOverrides,
) -> Result<Vec<Publisher<WrenchStamped>>, NodeError> {
    let topic = |link: &str| format!("{prefix}/{}", topic_token(link));
    layout.links.iter().map(|(link, _)| publisher(node, &topic(link), state_qos(qos, Qos::PUBLISHER))).collect()
}

/// The sensors' publishers, on their configured topics (QoS as `/joint_states`).
fn sensor_publishers(node: &mut r2r::Node, setup: &Setup) -> Result<SensorPublishers, NodeError> {
    let (config, qos) = (&setup.config.sensors, state_qos(&setup.config.qos, Qos::PUBLISHER));
    let mut imu = Vec::new();
    for s in &config.imu {
        let topic = robot_sensor_topic(setup, s.topic.is_none(), &s.link, "imu", &s.name).unwrap_or_else(|| s.topic());
        imu.push(publisher::<Imu>(node, &topic, qos.clone())?);
    }
    let mut force_torque = Vec::new();
    for s in &config.force_torque {
        let topic = robot_sensor_topic(setup, s.topic.is_none(), &s.joint, "force_torque", &s.name)
            .unwrap_or_else(|| s.topic());
        force_torque.push(publisher::<WrenchStamped>(node, &topic, qos.clone())?);
    }
    let foot_contacts = match config.foot_contact.feet.is_empty() {
        true => None,
        false => Some(publisher::<JointState>(node, &config.foot_contact.topic, qos)?),
    };
    Ok(SensorPublishers { imu, force_torque, foot_contacts })
}

/// With `robots:`, the default topic of a sensor on one robot's link or joint (`on`, named
/// `<ns>/...`): `/<ns>/<kind>/<name>`, beside that robot's other topics; None otherwise
/// (a configured topic, or a single robot: `~/<kind>/<name>`).
fn robot_sensor_topic(setup: &Setup, default: bool, on: &str, kind: &str, name: &str) -> Option<String> {
    let robot = setup.robots.iter().find(|r| on.starts_with(&format!("{}/", r.namespace)))?;
    default.then(|| robot.topic(&format!("{kind}/{}", crate::config::topic_token(name))))
}

/// A publishing thread, running `publish`.
fn spawn_publisher(publish: impl FnOnce() + Send + 'static) -> Result<std::thread::JoinHandle<()>, NodeError> {
    std::thread::Builder::new()
        .name("signorini-pub".into())
        .spawn(publish)
        .map_err(|e| NodeError::Thread(format!("starting the publisher thread: {e}")))
}

//! The r2r node `signorini`: parameters, publishers, subscriptions and the threads around
//! the real-time loop.
//!
//! Threads: the loop (absolute deadlines, [`crate::runtime`]); the state publisher (drains
//! the loop's sample ring into /clock and /joint_states); the ROS spinner (`spin_once` in a
//! tight loop on its own OS thread, which keeps up with kHz topics); and one tokio thread
//! for the command subscription, /diagnostics, the status line and signals. The node
//! converts messages and never does physics.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use r2r::diagnostic_msgs::msg::DiagnosticArray;
use r2r::geometry_msgs::msg::{PoseStamped, WrenchStamped};
use r2r::nav_msgs::msg::Odometry;
use r2r::rosgraph_msgs::msg::Clock;
use r2r::sensor_msgs::msg::JointState;
use r2r::std_msgs::msg::{Float64MultiArray, UInt32};
use r2r::std_srvs::srv::{SetBool, Trigger};
use r2r::trajectory_msgs::msg::JointTrajectory as TrajectoryMsg;
use r2r::visualization_msgs::msg::MarkerArray;

use super::diagnostics::diagnostic_array;
use super::qos::profile;
use super::state_publisher::{CommandPublisher, StatePublisher};
use crate::app::{
    ControlJob, ExternalWrenches, OutputLayout, ReferenceCommand, Setup, SetupError, SimAndControlJob, SimJob,
    SimRequests,
};
use crate::config::{Mode, Qos, topic_token};
use crate::control::{JointTrajectory, TrajectoryPoint};
use crate::model::FrameKind;
use crate::runtime::status::{WatchedInput, status, status_line};
use crate::runtime::{
    CommandRejection, CounterSnapshot, Counters, EffortCommand, Job, LoopReport, LoopSettings, LoopThread,
    MailboxReader, MailboxWriter, StateAssembly, mailbox, sample_ring, stamp_ns, validate_efforts,
};
use crate::runtime::{MeasuredState, Odometry as BaseOdometry};

pub use crate::config::NODE_NAME;

/// Output samples the publisher may lag behind the loop before samples are dropped
/// (0.25 s at 1 kHz).
const SAMPLE_RING_CAPACITY: usize = 256;

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
    let node = r2r::Node::create(ctx, NODE_NAME, "").map_err(ros("creating the node"))?;

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
    let robot_description = string_parameter(&node, "robot_description")?.filter(|s| !s.trim().is_empty());
    let setup = Setup::load(&config_file, robot_description.as_deref())?;
    match setup.config.mode {
        Mode::Sim => run_sim(node, &setup),
        Mode::Control => run_control(node, &setup),
        Mode::SimAndControl => run_sim_and_control(node, &setup),
    }
}

/// `mode: sim`: the simulator in the loop, effort commands in, the simulated state out.
fn run_sim(mut node: r2r::Node, setup: &Setup) -> Result<NodeSummary, NodeError> {
    let config = &setup.config;
    let n = setup.joint_names.len();
    let io = LoopIo::new(&mut node, setup)?;
    let commands_topic = config.commands_topic();
    let commands = node
        .subscribe::<Float64MultiArray>(&commands_topic, profile(config.qos.commands.over(Qos::SUBSCRIPTION)))
        .map_err(ros(format!("subscribing to {commands_topic}")))?;
    let (command_writer, command_reader) = mailbox(EffortCommand { effort: vec![0.0; n] });
    let sim = SimSide::new(&mut node, setup, &io, command_reader)?;
    let banner = format!("{}; effort commands on {}", sim.banner(setup), commands_topic);
    let counters = io.counters.clone();
    let SimSide { job, publisher, tasks } = sim;
    serve(node, setup, job, vec![publisher], io, banner, move || {
        tokio::spawn(consume_commands(commands, command_writer, n, counters, commands_topic.to_string()));
        tasks();
    })
}

/// `mode: control`: the measured state in, the controller's torques and predicted contact
/// wrenches out.
fn run_control(mut node: r2r::Node, setup: &Setup) -> Result<NodeSummary, NodeError> {
    let config = &setup.config;
    let n = setup.joint_names.len();
    let (qos, topics) = (&config.qos, &config.topics);
    let io = LoopIo::new(&mut node, setup)?;
    let joint_states = node
        .subscribe::<JointState>(&topics.joint_states, profile(qos.joint_states.over(Qos::SUBSCRIPTION)))
        .map_err(ros(format!("subscribing to {}", topics.joint_states)))?;
    let odometry = match setup.model.has_free_flyer() {
        true => Some(
            node.subscribe::<Odometry>(&topics.odometry, profile(qos.joint_states.over(Qos::SUBSCRIPTION)))
                .map_err(ros(format!("subscribing to {}", topics.odometry)))?,
        ),
        false => None,
    };
    let commands_topic = config.commands_topic();
    let commands_pub = node
        .create_publisher::<Float64MultiArray>(&commands_topic, profile(qos.commands.over(Qos::PUBLISHER)))
        .map_err(ros(format!("creating the publisher on {commands_topic}")))?;
    let (state_writer, state_reader) = mailbox(MeasuredState::of_joints(n));
    let control = ControlSide::new(&mut node, setup, &io, state_reader, Some(commands_pub))?;
    let banner = format!(
        "signorini: controlling {} ({} joints) from {} at {} Hz; state from {}{}; torques on {}; reference on {}",
        setup.robot.name,
        n,
        setup.robot.origin,
        config.rate_hz.get(),
        topics.joint_states,
        if odometry.is_some() { format!(" and {}", topics.odometry) } else { String::new() },
        commands_topic,
        topics.reference
    );
    let assembly = StateAssembly::new(setup.joint_names.clone(), odometry.is_some(), config.pairing_tolerance());
    let state_topics = (topics.joint_states.to_string(), topics.odometry.to_string());
    let counters = io.counters.clone();
    let ControlSide { job, publisher, tasks } = control;
    serve(node, setup, job, vec![publisher], io, banner, move || {
        tokio::spawn(consume_states(joint_states, odometry, state_writer, assembly, counters, state_topics));
        tasks();
    })
}

/// `mode: sim+control`: both in one loop, exchanging state and torques in memory; the
/// simulator's topics and the controller's predicted wrenches and reference as in the
/// two modes (no effort command subscription: the controller drives the simulator).
fn run_sim_and_control(mut node: r2r::Node, setup: &Setup) -> Result<NodeSummary, NodeError> {
    let n = setup.joint_names.len();
    let io = LoopIo::new(&mut node, setup)?;
    let (command_writer, command_reader) = mailbox(EffortCommand { effort: vec![0.0; n] });
    let (state_writer, state_reader) = mailbox(MeasuredState::of_joints(n));
    let sim = SimSide::new(&mut node, setup, &io, command_reader)?;
    let control = ControlSide::new(&mut node, setup, &io, state_reader, None)?;
    let banner =
        format!("{}; controlled in process (reference on {})", sim.banner(setup), setup.config.topics.reference);
    let (SimSide { job: sim_job, publisher: sim_pub, tasks: sim_tasks }, ControlSide { job, publisher, tasks }) =
        (sim, control);
    let control_job = job.with_command_output(command_writer).with_step(setup.config.sim_dt());
    let job = SimAndControlJob::new(sim_job.with_trusted_commands(), control_job, state_writer, setup.joint_slots());
    serve(node, setup, job, vec![sim_pub, publisher], io, banner, move || {
        sim_tasks();
        tasks();
    })
}

/// What the simulator adds to a node: its job, its publishing thread, and the async tasks
/// of its services and external wrenches.
struct SimSide {
    job: SimJob,
    publisher: std::thread::JoinHandle<()>,
    tasks: Box<dyn FnOnce() + Send>,
}

impl SimSide {
    /// The simulator of `setup` reading its effort commands from `commands`: /clock,
    /// /joint_states, odometry and contact wrench publishers, ~/reset, ~/pause, ~/step.
    fn new(
        node: &mut r2r::Node,
        setup: &Setup,
        io: &LoopIo,
        commands: MailboxReader<EffortCommand>,
    ) -> Result<Self, NodeError> {
        let config = &setup.config;
        let (qos, topics) = (&config.qos, &config.topics);
        let clock_pub = node
            .create_publisher::<Clock>(&topics.clock, profile(qos.clock.over(Qos::PUBLISHER)))
            .map_err(ros(format!("creating the publisher on {}", topics.clock)))?;
        let joint_state_pub = node
            .create_publisher::<JointState>(&topics.joint_states, profile(qos.joint_states.over(Qos::PUBLISHER)))
            .map_err(ros(format!("creating the publisher on {}", topics.joint_states)))?;
        // The simulation's services, and the step count (no standard service carries one).
        let reset_service = node
            .create_service::<Trigger::Service>("~/reset", r2r::QosProfile::services_default())
            .map_err(ros("creating the service ~/reset"))?;
        let pause_service = node
            .create_service::<SetBool::Service>("~/pause", r2r::QosProfile::services_default())
            .map_err(ros("creating the service ~/pause"))?;
        let steps =
            node.subscribe::<UInt32>("~/step", r2r::QosProfile::default()).map_err(ros("subscribing to ~/step"))?;
        let external = node
            .subscribe::<WrenchStamped>(&topics.external_wrench, r2r::QosProfile::default())
            .map_err(ros(format!("subscribing to {}", topics.external_wrench)))?;

        let world = setup.sim_world()?;
        let layout = OutputLayout::new(setup, &world);
        let (sample_producer, sample_consumer) = sample_ring(SAMPLE_RING_CAPACITY, &layout.outputs());
        // The sample's extra topics: odometry of a floating base, a wrench per link.
        let odometry = match &layout.base_link {
            Some(link) => {
                let publisher = node
                    .create_publisher::<Odometry>(&topics.odometry, profile(qos.joint_states.over(Qos::PUBLISHER)))
                    .map_err(ros(format!("creating the publisher on {}", topics.odometry)))?;
                Some((publisher, link.clone()))
            }
            None => None,
        };
        let wrenches = wrench_publishers(node, &topics.contact_wrenches, &layout, qos)?;
        let markers = node
            .create_publisher::<MarkerArray>(&topics.contact_markers, r2r::QosProfile::default())
            .map_err(ros(format!("creating the publisher on {}", topics.contact_markers)))?;
        let bodies = layout
            .body_names
            .iter()
            .map(|name| {
                let topic = format!("/{}/odom", topic_token(name));
                let publisher = node
                    .create_publisher::<Odometry>(&topic, profile(qos.joint_states.over(Qos::PUBLISHER)))
                    .map_err(ros(format!("creating the publisher on {topic}")))?;
                Ok((publisher, name.clone()))
            })
            .collect::<Result<Vec<_>, NodeError>>()?;
        let has_poses = odometry.is_some() || !bodies.is_empty();
        let publisher = StatePublisher::new(clock_pub, joint_state_pub, setup.joint_names.clone(), odometry, wrenches)
            .with_bodies(bodies)
            .with_markers(markers);
        let publisher = with_tf(node, publisher, topics.tf.as_ref().filter(|_| has_poses))?;
        let (shutdown, counters) = (io.shutdown.clone(), io.counters.clone());
        let publisher = spawn_publisher(move || publisher.run(sample_consumer, shutdown, counters))?;
        let job = SimJob::new(
            setup,
            world,
            commands,
            sample_producer,
            config.stale_after(),
            io.counters.clone(),
            Some(publisher.thread().clone()),
        );
        let (wrench_writer, wrench_reader) = mailbox(job.wrench_table());
        let targets = WrenchTargets::new(setup, job.world(), job.wrench_table());
        let job = job.with_external_wrenches(wrench_reader);
        let requests = job.requests();
        let (counters, topic) = (io.counters.clone(), topics.external_wrench.to_string());
        let tasks = Box::new(move || {
            tokio::spawn(serve_simulation(reset_service, pause_service, steps, requests));
            tokio::spawn(consume_external_wrenches(external, wrench_writer, targets, counters, topic));
        });
        Ok(Self { job, publisher, tasks })
    }

    /// The start-up line.
    fn banner(&self, setup: &Setup) -> String {
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
}

/// /tf (`topic`, tf2_msgs/TFMessage) for the poses `publisher` publishes as odometry;
/// reliable, volatile, keep last 100, as tf2_ros's broadcaster.
#[cfg(signorini_tf2_msgs)]
fn with_tf(
    node: &mut r2r::Node,
    publisher: StatePublisher,
    topic: Option<&crate::config::TopicName>,
) -> Result<StatePublisher, NodeError> {
    let Some(topic) = topic else { return Ok(publisher) };
    let qos = Qos {
        reliability: crate::config::Reliability::Reliable,
        durability: crate::config::Durability::Volatile,
        depth: 100,
    };
    let tf = node
        .create_publisher::<r2r::tf2_msgs::msg::TFMessage>(topic, profile(qos))
        .map_err(ros(format!("creating the publisher on {topic}")))?;
    Ok(publisher.with_tf(tf))
}

/// Built without tf2_msgs (none was installed, as with the ROS 2 wheels alone): says once
/// that /tf is off.
#[cfg(not(signorini_tf2_msgs))]
fn with_tf(
    _node: &mut r2r::Node,
    publisher: StatePublisher,
    topic: Option<&crate::config::TopicName>,
) -> Result<StatePublisher, NodeError> {
    if let Some(topic) = topic {
        r2r::log_warn!(
            NODE_NAME,
            "{topic} is off: signorini was built without tf2_msgs (not installed then, or not in IDL_PACKAGE_FILTER)"
        );
    }
    Ok(publisher)
}

/// What the controller adds to a node: its job, its publishing thread (predicted wrenches,
/// and the torques when `commands` is given) and the reference subscription's task.
struct ControlSide {
    job: ControlJob,
    publisher: std::thread::JoinHandle<()>,
    tasks: Box<dyn FnOnce() + Send>,
}

impl ControlSide {
    fn new(
        node: &mut r2r::Node,
        setup: &Setup,
        io: &LoopIo,
        states: MailboxReader<MeasuredState>,
        commands: Option<r2r::Publisher<Float64MultiArray>>,
    ) -> Result<Self, NodeError> {
        let config = &setup.config;
        let (qos, topics) = (&config.qos, &config.topics);
        let reference = node
            .subscribe::<TrajectoryMsg>(&topics.reference, r2r::QosProfile::default())
            .map_err(ros(format!("subscribing to {}", topics.reference)))?;
        let (reference_writer, reference_reader) = mailbox(ReferenceCommand::default());
        let base_reference = match setup.model.has_free_flyer() {
            true => Some(
                node.subscribe::<PoseStamped>(&topics.base_reference, r2r::QosProfile::default())
                    .map_err(ros(format!("subscribing to {}", topics.base_reference)))?,
            ),
            false => None,
        };
        let (base_writer, base_reader) = mailbox(None);
        let layout = OutputLayout::of_objects(setup, setup.collision_world()?.objects(), Vec::new());
        let (sample_producer, sample_consumer) = sample_ring(SAMPLE_RING_CAPACITY, &layout.outputs());
        let wrenches = wrench_publishers(node, &topics.predicted_contact_wrenches, &layout, qos)?;
        let counters = io.counters.clone();
        let publisher = CommandPublisher::new(commands, setup.joint_names.len(), wrenches);
        let (shutdown, published) = (io.shutdown.clone(), io.counters.clone());
        let publisher = spawn_publisher(move || publisher.run(sample_consumer, shutdown, published))?;
        let job = ControlJob::new(
            setup,
            states,
            sample_producer,
            config.stale_after(),
            counters,
            Some(publisher.thread().clone()),
        )?
        .with_references(reference_reader)
        .with_base_references(base_reader);
        let (names, hold) = (setup.joint_names.clone(), setup.posture_positions.clone());
        let (counters, topic) = (io.counters.clone(), topics.reference.to_string());
        let base_topic = topics.base_reference.to_string();
        let base_counters = counters.clone();
        let tasks = Box::new(move || {
            tokio::spawn(consume_references(reference, reference_writer, names, hold, counters, topic));
            if let Some(base) = base_reference {
                tokio::spawn(consume_base_references(base, base_writer, base_counters, base_topic));
            }
        });
        Ok(Self { job, publisher, tasks })
    }
}

/// One WrenchStamped publisher per link of `layout`, on `<prefix>/<link>`.
fn wrench_publishers(
    node: &mut r2r::Node,
    prefix: &str,
    layout: &OutputLayout,
    qos: &crate::config::QosOverrides,
) -> Result<Vec<r2r::Publisher<WrenchStamped>>, NodeError> {
    layout
        .links
        .iter()
        .map(|(link, _)| {
            let topic = format!("{prefix}/{}", topic_token(link));
            node.create_publisher::<WrenchStamped>(&topic, profile(qos.joint_states.over(Qos::PUBLISHER)))
                .map_err(ros(format!("creating the publisher on {topic}")))
        })
        .collect()
}

/// The publishing thread, running `publish`.
fn spawn_publisher(publish: impl FnOnce() + Send + 'static) -> Result<std::thread::JoinHandle<()>, NodeError> {
    std::thread::Builder::new()
        .name("signorini-pub".into())
        .spawn(publish)
        .map_err(|e| NodeError::Thread(format!("starting the publisher thread: {e}")))
}

/// The exchanges every mode's loop has with the node.
struct LoopIo {
    shutdown: Arc<AtomicBool>,
    counters: Arc<Counters>,
    report_writer: MailboxWriter<LoopReport>,
    report_reader: MailboxReader<LoopReport>,
    diagnostics_pub: r2r::Publisher<DiagnosticArray>,
}

impl LoopIo {
    /// The shutdown flag, the counters, the loop-report mailbox and /diagnostics.
    fn new(node: &mut r2r::Node, setup: &Setup) -> Result<Self, NodeError> {
        let (topic, qos) = (&setup.config.topics.diagnostics, &setup.config.qos.diagnostics);
        let diagnostics_pub = node
            .create_publisher::<DiagnosticArray>(topic, profile(qos.over(Qos::PUBLISHER)))
            .map_err(ros(format!("creating the publisher on {topic}")))?;
        let (report_writer, report_reader) = mailbox(LoopReport::default());
        let (shutdown, counters) = (Arc::new(AtomicBool::new(false)), Arc::new(Counters::default()));
        Ok(Self { shutdown, counters, report_writer, report_reader, diagnostics_pub })
    }
}

/// Runs `job` in the real-time loop next to the ROS spinner, the publisher thread and the
/// async tasks `tasks` spawns (with /diagnostics), until SIGINT or SIGTERM.
fn serve<J: Job + Send + 'static>(
    node: r2r::Node,
    setup: &Setup,
    job: J,
    publisher_threads: Vec<std::thread::JoinHandle<()>>,
    io: LoopIo,
    banner: String,
    tasks: impl FnOnce(),
) -> Result<NodeSummary, NodeError> {
    let config = &setup.config;
    let LoopIo { shutdown, counters, report_writer, report_reader, diagnostics_pub } = io;
    let settings = config.loop_settings("signorini-loop");
    let loop_thread = LoopThread::spawn(settings, job, shutdown.clone(), report_writer)
        .map_err(|e| NodeError::Thread(format!("starting the loop thread: {e}")))?;
    for w in &loop_thread.startup_warnings {
        r2r::log_warn!(NODE_NAME, "{}", w);
    }

    let node = Arc::new(Mutex::new(node));
    let spinner = {
        let (node, shutdown) = (node.clone(), shutdown.clone());
        std::thread::Builder::new()
            .name("signorini-spin".into())
            .spawn(move || {
                while !shutdown.load(Ordering::Relaxed) {
                    match node.lock() {
                        Ok(mut n) => n.spin_once(Duration::from_millis(5)),
                        Err(_) => return,
                    }
                }
            })
            .map_err(|e| NodeError::Thread(format!("starting the spin thread: {e}")))?
    };
    println!("{banner}");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| NodeError::Thread(format!("starting the async runtime: {e}")))?;
    let outcome = runtime.block_on(async {
        tasks();
        let reporter = report_diagnostics(
            report_reader,
            counters.clone(),
            diagnostics_pub,
            config.diagnostics.status_line,
            watched_input(config),
        );
        tokio::spawn(reporter);
        wait_for_stop(&loop_thread).await
    });

    shutdown.store(true, Ordering::Relaxed);
    let loop_result = loop_thread.stop();
    for publisher in publisher_threads {
        publisher.thread().unpark();
        let _ = publisher.join();
    }
    let _ = spinner.join();
    outcome?;
    let (_, report) = loop_result.map_err(|_| NodeError::Thread("the loop thread panicked".into()))?;
    Ok(NodeSummary { report, counters: counters.snapshot() })
}

/// Waits for SIGINT or SIGTERM; fails if the loop thread ends by itself.
async fn wait_for_stop<J: Job + 'static>(loop_thread: &LoopThread<J>) -> Result<(), NodeError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut sigterm =
        signal(SignalKind::terminate()).map_err(|e| NodeError::Thread(format!("SIGTERM handler: {e}")))?;
    let mut check = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = sigterm.recv() => return Ok(()),
            _ = check.tick() => {
                if loop_thread.is_finished() {
                    return Err(NodeError::Thread("the loop thread stopped unexpectedly".into()));
                }
            }
        }
    }
}

/// Validates each effort command and hands the valid ones to the loop. Rejections are
/// counted (reported on /diagnostics) and logged at most once per second.
async fn consume_commands(
    mut stream: impl futures::Stream<Item = Float64MultiArray> + Unpin,
    mut writer: MailboxWriter<EffortCommand>,
    n: usize,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut last_log: Option<Instant> = None;
    let mut unlogged = 0u64;
    while let Some(msg) = stream.next().await {
        match validate_efforts(&msg.data, n) {
            Ok(()) => {
                writer.write_with(|c| c.effort.copy_from_slice(&msg.data));
                Counters::bump(&counters.commands_accepted);
            }
            Err(why) => {
                counters.count_rejection(why);
                unlogged += 1;
                if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    log_rejection(&topic, why, unlogged);
                    last_log = Some(Instant::now());
                    unlogged = 0;
                }
            }
        }
    }
}

/// `~/reset` (std_srvs/Trigger), `~/pause` (std_srvs/SetBool: true pauses, false resumes)
/// and `~/step` (std_msgs/UInt32: while paused, run that many more steps).
async fn serve_simulation(
    mut reset: impl futures::Stream<Item = r2r::ServiceRequest<Trigger::Service>> + Unpin,
    mut pause: impl futures::Stream<Item = r2r::ServiceRequest<SetBool::Service>> + Unpin,
    mut steps: impl futures::Stream<Item = UInt32> + Unpin,
    requests: Arc<SimRequests>,
) {
    loop {
        tokio::select! {
            Some(req) = reset.next() => {
                requests.reset();
                let message = "the robot and the bodies are back at their initial state".to_owned();
                if req.respond(Trigger::Response { success: true, message }).is_err() {
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
                if requests.paused() {
                    requests.step(u64::from(msg.data));
                } else {
                    r2r::log_warn!(NODE_NAME, "~/step: ignored while running (pause with ~/pause first)");
                }
            }
            else => return,
        }
    }
}

/// Turns /joint_states (by joint name: any order, extra joints ignored) and, for a
/// floating base, its odometry into the measured state of the configured joints for the
/// loop, as [`StateAssembly`] pairs them (stamps within `control.pairing_tolerance`). A
/// JointState missing a configured joint, without velocities, or with a NaN or an
/// infinity, odometry that is not finite or not a rotation, and a JointState no odometry
/// pairs with are counted and logged at most once per second; the loop's watchdog then
/// sees no fresh state.
async fn consume_states(
    mut joint_states: impl futures::Stream<Item = JointState> + Unpin,
    mut odometry: Option<impl futures::Stream<Item = Odometry> + Unpin>,
    mut writer: MailboxWriter<MeasuredState>,
    mut assembly: StateAssembly,
    counters: Arc<Counters>,
    topics: (String, String),
) {
    let mut out = MeasuredState::of_joints(assembly.joints().len());
    let mut last_log: Option<Instant> = None;
    let mut log = |what: std::fmt::Arguments| {
        if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
            r2r::log_warn!(NODE_NAME, "{}", what);
            last_log = Some(Instant::now());
        }
    };
    loop {
        let assembled = tokio::select! {
            Some(o) = async { match odometry.as_mut() { Some(s) => s.next().await, None => None } } => {
                let (p, t) = (&o.pose.pose, &o.twist.twist);
                let base = BaseOdometry {
                    position: [p.position.x, p.position.y, p.position.z],
                    orientation: [p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w],
                    linear: [t.linear.x, t.linear.y, t.linear.z],
                    angular: [t.angular.x, t.angular.y, t.angular.z],
                };
                let stamp = (o.header.stamp.sec, o.header.stamp.nanosec);
                assembly.odometry(stamp, base, &mut out).map_err(|why| {
                    Counters::bump(&counters.odometry_rejected);
                    log(format_args!("{}: odometry rejected: {why}", topics.1));
                })
            }
            Some(m) = joint_states.next() => {
                let stamp = (m.header.stamp.sec, m.header.stamp.nanosec);
                assembly.joint_state(stamp, &m.name, &m.position, &m.velocity, &mut out).map_err(|why| {
                    Counters::bump(&counters.states_rejected);
                    log(format_args!("{}: state rejected: {}", topics.0, why.describe(assembly.joints(), &m.name)));
                })
            }
            else => return,
        };
        let Ok(assembled) = assembled else { continue };
        if assembled.unpaired > 0 {
            counters.states_unpaired.fetch_add(u64::from(assembled.unpaired), Ordering::Relaxed);
            log(format_args!("{}: joint states without odometry within the pairing tolerance", topics.0));
        }
        if assembled.ready {
            writer.write_with(|s| s.clone_from(&out));
        }
    }
}

/// Turns trajectory_msgs/JointTrajectory messages into the controller's reference: the
/// named joints (a subset of the controlled ones, in any order) follow the points, the
/// others hold the posture; the header stamp is the start (zero: now). A trajectory with
/// an unknown joint, wrong sizes, a NaN or times that do not increase is rejected,
/// counted and logged at most once per second; the controller keeps its reference. An
/// empty trajectory (no points) returns to the posture, as joint_trajectory_controller
/// stops on one.
async fn consume_references(
    mut stream: impl futures::Stream<Item = TrajectoryMsg> + Unpin,
    mut writer: MailboxWriter<ReferenceCommand>,
    joints: Vec<String>,
    hold: Vec<f64>,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut last_log: Option<Instant> = None;
    while let Some(msg) = stream.next().await {
        // A stamp before the epoch (or not a time) starts the trajectory now, as zero does.
        let start_ns = stamp_ns(msg.header.stamp.sec, msg.header.stamp.nanosec).unwrap_or(0);
        let trajectory = match msg.points.is_empty() {
            true => Ok(None),
            false => {
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
                JointTrajectory::for_joints(&joints, &hold, &msg.joint_names, &points).map(Some)
            }
        };
        match trajectory {
            Ok(trajectory) => {
                writer.write_with(|r| *r = ReferenceCommand { trajectory, start_ns });
                Counters::bump(&counters.references_accepted);
            }
            Err(why) => {
                Counters::bump(&counters.references_rejected);
                if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    r2r::log_warn!(NODE_NAME, "{}: trajectory rejected: {}", topic, why);
                    last_log = Some(Instant::now());
                }
            }
        }
    }
}

/// Where an external wrench named by `header.frame_id` goes: the robot link's joint, or
/// a free body; the wrenches in force per name, and the table the loop applies.
struct WrenchTargets {
    targets: std::collections::HashMap<String, WrenchTarget>,
    applied: std::collections::BTreeMap<String, (WrenchTarget, crate::spatial::Force)>,
    table: ExternalWrenches,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum WrenchTarget {
    Joint(usize),
    Body(usize),
}

impl WrenchTargets {
    fn new(setup: &Setup, world: &crate::sim::World, table: ExternalWrenches) -> Self {
        let mut targets = std::collections::HashMap::new();
        for f in setup.model.frames.iter().filter(|f| f.kind == FrameKind::Body && f.parent_joint > 0) {
            targets.insert(f.name.clone(), WrenchTarget::Joint(f.parent_joint));
        }
        for (b, body) in world.bodies.iter().enumerate() {
            targets.insert(body.name.clone(), WrenchTarget::Body(b));
        }
        Self { targets, applied: Default::default(), table }
    }

    /// Sets the wrench on `name` (replacing its previous one; zero removes it) and
    /// rebuilds the table: links of one joint add up.
    fn set(&mut self, name: &str, wrench: crate::spatial::Force) -> Result<&ExternalWrenches, String> {
        let finite = wrench.linear.iter().chain(wrench.angular.iter()).all(|x| x.is_finite());
        if !finite {
            return Err(format!("`{name}`: not a finite wrench"));
        }
        let target = *self.targets.get(name).ok_or_else(|| {
            format!("`header.frame_id` `{name}` is neither a moving link of the robot nor a free body")
        })?;
        if wrench == crate::spatial::Force::ZERO {
            self.applied.remove(name);
        } else {
            self.applied.insert(name.to_owned(), (target, wrench));
        }
        self.table.joints.fill(crate::spatial::Force::ZERO);
        self.table.bodies.fill(crate::spatial::Force::ZERO);
        for (target, w) in self.applied.values() {
            let slot = match *target {
                WrenchTarget::Joint(j) => &mut self.table.joints[j],
                WrenchTarget::Body(b) => &mut self.table.bodies[b],
            };
            *slot += *w;
        }
        Ok(&self.table)
    }
}

/// `~/external_wrench` (geometry_msgs/WrenchStamped): the wrench on the link or free body
/// named in `header.frame_id` (world axes; the torque about the origin of the joint frame
/// carrying the link, or of the body), in force from the next step until replaced (a zero
/// wrench removes it). An unknown name or a NaN is rejected, counted and logged at most
/// once per second.
async fn consume_external_wrenches(
    mut stream: impl futures::Stream<Item = WrenchStamped> + Unpin,
    mut writer: MailboxWriter<ExternalWrenches>,
    mut targets: WrenchTargets,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut last_log: Option<Instant> = None;
    while let Some(msg) = stream.next().await {
        let (f, t) = (&msg.wrench.force, &msg.wrench.torque);
        let wrench = crate::spatial::Force {
            linear: crate::spatial::Vec3::new(f.x, f.y, f.z),
            angular: crate::spatial::Vec3::new(t.x, t.y, t.z),
        };
        match targets.set(&msg.header.frame_id, wrench) {
            Ok(table) => writer.write_with(|w| w.clone_from(table)),
            Err(why) => {
                Counters::bump(&counters.wrenches_rejected);
                if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    r2r::log_warn!(NODE_NAME, "{}: wrench rejected: {}", topic, why);
                    last_log = Some(Instant::now());
                }
            }
        }
    }
}

/// geometry_msgs/PoseStamped in `world` → the floating base's pose reference (x, y, z,
/// qx, qy, qz, qw). A NaN or a quaternion whose norm is not 1 within 1e-3 is rejected
/// (counted with the references, logged at most once per second); the quaternion is
/// normalized.
async fn consume_base_references(
    mut stream: impl futures::Stream<Item = PoseStamped> + Unpin,
    mut writer: MailboxWriter<Option<[f64; 7]>>,
    counters: Arc<Counters>,
    topic: String,
) {
    let mut last_log: Option<Instant> = None;
    while let Some(msg) = stream.next().await {
        let (p, o) = (&msg.pose.position, &msg.pose.orientation);
        let pose = [p.x, p.y, p.z, o.x, o.y, o.z, o.w];
        let norm = (o.x * o.x + o.y * o.y + o.z * o.z + o.w * o.w).sqrt();
        if pose.iter().all(|x| x.is_finite()) && (norm - 1.0).abs() <= 1e-3 {
            let mut pose = pose;
            pose[3..].iter_mut().for_each(|x| *x /= norm);
            writer.write_with(|r| *r = Some(pose));
            Counters::bump(&counters.references_accepted);
        } else {
            Counters::bump(&counters.references_rejected);
            if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                r2r::log_warn!(NODE_NAME, "{}: pose rejected: not finite, or not a unit quaternion", topic);
                last_log = Some(Instant::now());
            }
        }
    }
}

fn log_rejection(topic: &str, why: CommandRejection, count: u64) {
    let also = if count > 1 { format!(" ({} rejected since the last message)", count) } else { String::new() };
    r2r::log_warn!(NODE_NAME, "{}: command rejected: {}{}", topic, why, also);
}

/// What the loop of `config`'s mode watches: the simulator's effort command, or the
/// controller's measured state.
fn watched_input(config: &crate::config::Config) -> WatchedInput {
    match config.mode {
        Mode::Control => WatchedInput {
            name: "measured state",
            when_stale: format!("the safe output: {}", config.control.safe_output),
        },
        Mode::Sim | Mode::SimAndControl => WatchedInput::effort_command(),
    }
}

/// Publishes /diagnostics (and prints the status line) once per loop report window.
async fn report_diagnostics(
    mut reports: MailboxReader<LoopReport>,
    counters: Arc<Counters>,
    publisher: r2r::Publisher<DiagnosticArray>,
    print_status: bool,
    watched: WatchedInput,
) {
    let mut poll = tokio::time::interval(Duration::from_millis(20));
    let mut seen = 0;
    let mut before = counters.snapshot();
    loop {
        poll.tick().await;
        let latest = reports.latest();
        if latest.sequence == seen {
            continue;
        }
        seen = latest.sequence;
        let report = latest.value;
        let now = counters.snapshot();
        let command = counters.input_freshness();
        let s = status(&report, &now, &before, command, &watched);
        let sim_time = counters.last_published_sim_time_ns.load(Ordering::Relaxed);
        if publisher.publish(&diagnostic_array(&s, sim_time, NODE_NAME)).is_err() {
            Counters::bump(&counters.publish_errors);
        }
        if print_status {
            println!("{}", status_line(&report, &now, command, &watched));
        }
        before = now;
    }
}

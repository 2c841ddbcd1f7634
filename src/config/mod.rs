//! The node configuration: one YAML file, parsed into typed structs.
//!
//! Every key is known (a misspelled key is an error, not ignored), every value is checked
//! by its type (see [`values`]), and every error names the file, the key, what was
//! expected and what was found:
//!
//! ```text
//! config/quadruped.yaml: key `rate_hz`: invalid value: floating point `-5`, expected a positive finite number (line 2, column 10)
//! ```
//!
//! Relative paths in the file (the URDF) are relative to the file's directory.
//! The reference of every key is in README.md ("Configuration reference"), checked
//! against these structs by a test.

pub mod contact;
pub mod control;
pub mod joint_commands;
pub mod ranges;
pub mod robots;
pub mod scene;
pub mod sensors;
pub mod sim;
pub mod simulation_interfaces;
pub mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use contact::{ContactConfig, Fallback, SolverKind};
pub use control::{ControlConfig, SafeOutput};
pub use joint_commands::{InterfaceName, JointCommandsConfig, PositionGains, VelocityGains};
pub use robots::RobotEntry;
pub use scene::{BoxConfig, CollisionConfig, EnvironmentConfig, GroundConfig, MeshConfig, NonNegativeF64, SlopeConfig};
pub use sensors::{FootConfig, FootContactConfig, ForceTorqueConfig, ImuConfig, MeasureDirection, SensorsConfig};
pub use sim::{BodyConfig, BodyShape, NonFinitePolicy, SimConfig};
pub use simulation_interfaces::{InitialState, ServiceNamespace, SimulationInterfacesConfig};
pub use values::{FiniteF64, Fraction, NameToken, PositiveF64, RealtimeFactor, RtPriority, TopicName, topic_token};

/// The node's name (its private topics `~/x` are `/signorini/x` unless remapped).
pub const NODE_NAME: &str = "signorini";

/// What the node does.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum Mode {
    /// Simulate the robot (replaces Gazebo): consume effort commands, publish its state.
    #[default]
    #[serde(rename = "sim")]
    Sim,
    /// Control a real robot: consume its state, publish torques.
    #[serde(rename = "control")]
    Control,
    /// Both in one process.
    #[serde(rename = "sim+control")]
    SimAndControl,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Sim => "sim",
            Mode::Control => "control",
            Mode::SimAndControl => "sim+control",
        })
    }
}

/// The whole configuration file.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of configuration keys")]
pub struct Config {
    /// `sim`, `control` or `sim+control`.
    #[serde(default)]
    pub mode: Mode,
    /// Loop rate (Hz). Default 1000.
    #[serde(default = "default_rate")]
    pub rate_hz: PositiveF64,
    /// The robot (with `robots:`, only the settings shared by every robot).
    pub robot: RobotConfig,
    /// Several robots in one simulation, each under its own namespace (`mode: sim`).
    /// Default: none (the one robot of `robot:`).
    #[serde(default)]
    pub robots: Vec<RobotEntry>,
    /// Controller name: effort commands arrive on `/<controller>/commands`, like
    /// ros2_control's JointGroupEffortController. Default `effort_controller`.
    #[serde(default = "default_controller")]
    pub controller: NameToken,
    /// Topic names.
    #[serde(default)]
    pub topics: Topics,
    /// QoS overrides per topic.
    #[serde(default)]
    pub qos: QosOverrides,
    /// Stale-input detection.
    #[serde(default)]
    pub watchdog: WatchdogConfig,
    /// /diagnostics and the terminal status line.
    #[serde(default)]
    pub diagnostics: DiagnosticsConfig,
    /// Scheduling of the loop thread.
    #[serde(default)]
    pub realtime: RealtimeConfig,
    /// Static objects around the robot (default: flat ground at z = 0).
    #[serde(default)]
    pub environment: EnvironmentConfig,
    /// Contact detection.
    #[serde(default)]
    pub collision: CollisionConfig,
    /// The contact problem and its solver.
    #[serde(default)]
    pub contact: ContactConfig,
    /// The simulator: base placement, posture hold, free bodies, time step.
    #[serde(default)]
    pub sim: SimConfig,
    /// The inverse-dynamics controller: gains, stance, posture reference.
    #[serde(default)]
    pub control: ControlConfig,
    /// The simulator's sensors: IMUs, joint force/torque, foot contacts.
    #[serde(default)]
    pub sensors: SensorsConfig,
    /// Per-joint position, velocity or effort commands on a JointState topic (`mode: sim`).
    #[serde(default)]
    pub joint_commands: JointCommandsConfig,
    /// The standard simulator API's services (`mode: sim`, `sim+control`).
    #[serde(default)]
    pub simulation_interfaces: SimulationInterfacesConfig,
}

/// `robot:`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of robot settings (urdf, floating_base, joints, initial_posture, ...)"
)]
pub struct RobotConfig {
    /// URDF file (relative to the configuration file). The node takes the URDF text from
    /// the ROS parameter `robot_description` first, then from `description_topic`, then
    /// from this file; the command line (no ROS) reads this file only. Required unless the
    /// URDF comes from the parameter or the topic.
    #[serde(default)]
    pub urdf: Option<PathBuf>,
    /// A topic carrying the URDF text as std_msgs/String, reliable and transient local
    /// (as robot_state_publisher publishes `/robot_description`, and as Gazebo's spawner
    /// and the controller_manager read it). The node waits for its first message before
    /// starting. Default: none (the URDF comes from the parameter or the file).
    #[serde(default)]
    pub description_topic: Option<TopicName>,
    /// How long the node waits for the first message on `description_topic` (s) before
    /// giving up with an error naming the topic. Default 10.
    #[serde(default = "default_description_timeout")]
    pub description_timeout: PositiveF64,
    /// Add a free-flyer root joint to a fixed-root URDF (legged robots).
    #[serde(default)]
    pub floating_base: bool,
    /// The controlled joints, in command and JointState order. Default: every revolute,
    /// continuous and prismatic joint, in the URDF's depth-first tree order.
    #[serde(default)]
    pub joints: Option<Vec<String>>,
    /// Initial joint positions (rad or m) by joint name; unlisted joints start at 0.
    #[serde(default)]
    pub initial_posture: BTreeMap<String, FiniteF64>,
    /// Directories holding packages, for `package://` mesh URIs (relative to the
    /// configuration file). AMENT_PREFIX_PATH's share directories are searched after.
    #[serde(default)]
    pub package_dirs: Vec<PathBuf>,
    /// `error` (default) refuses URDF mimic joints; `independent` loads them as ordinary
    /// joints, as Pinocchio does.
    #[serde(default)]
    pub mimic_joints: MimicJoints,
    /// Accept moving bodies whose rotational inertia is not positive semi-definite.
    #[serde(default)]
    pub allow_invalid_inertia: bool,
    /// Let `package://` and relative mesh paths climb (`..`) out of their package or the
    /// URDF's folder. Off by default.
    #[serde(default)]
    pub meshes_outside_packages: bool,
}

impl RobotConfig {
    /// What `robot.meshes_outside_packages` lets mesh paths do.
    pub fn mesh_paths(&self) -> crate::model::Containment {
        match self.meshes_outside_packages {
            true => crate::model::Containment::Anywhere,
            false => crate::model::Containment::Inside,
        }
    }

    /// `robot.description_timeout` as a Duration (saturating).
    pub fn description_wait(&self) -> std::time::Duration {
        seconds(self.description_timeout.get())
    }
}

/// `robot.mimic_joints`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MimicJoints {
    /// Refuse the URDF.
    #[default]
    Error,
    /// Load them as independent joints.
    Independent,
}

/// `topics:` (defaults in parentheses).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of topic names")]
pub struct Topics {
    /// (`/joint_states`)
    pub joint_states: TopicName,
    /// (`/clock`)
    pub clock: TopicName,
    /// (`/diagnostics`)
    pub diagnostics: TopicName,
    /// Effort commands (`/<controller>/commands`).
    pub commands: Option<TopicName>,
    /// The floating base's nav_msgs/Odometry (`/odom`).
    pub odometry: TopicName,
    /// Prefix of the per-link contact wrenches, `<prefix>/<link>` (`~/contact_wrenches`).
    pub contact_wrenches: TopicName,
    /// Prefix of the controller's predicted contact wrenches, `<prefix>/<link>`
    /// (`~/predicted_contact_wrenches`).
    pub predicted_contact_wrenches: TopicName,
    /// The controller's trajectory_msgs/JointTrajectory reference (`~/reference`).
    pub reference: TopicName,
    /// The controller's floating-base pose reference, geometry_msgs/PoseStamped in `world`
    /// (`~/base_reference`).
    pub base_reference: TopicName,
    /// External wrenches on the simulated links and bodies, geometry_msgs/WrenchStamped
    /// with the link or body in `header.frame_id` (`~/external_wrench`).
    pub external_wrench: TopicName,
    /// Contact arrows, visualization_msgs/MarkerArray (`~/contact_markers`).
    pub contact_markers: TopicName,
    /// The simulated floating base's and free bodies' transforms, tf2_msgs/TFMessage
    /// (`/tf`); an empty string publishes none.
    #[serde(with = "optional_topic")]
    pub tf: Option<TopicName>,
}

/// A topic that an empty string turns off (`""` ↔ `None`).
mod optional_topic {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::TopicName;

    pub fn serialize<S: Serializer>(topic: &Option<TopicName>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(topic.as_ref().map_or("", |t| t.as_str()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TopicName>, D::Error> {
        let s = String::deserialize(d)?;
        match s.is_empty() {
            true => Ok(None),
            false => TopicName::new(&s).map(Some).ok_or_else(|| {
                serde::de::Error::invalid_value(
                    serde::de::Unexpected::Str(&s),
                    &"a ROS topic name such as /tf, or \"\" for none",
                )
            }),
        }
    }
}

/// Reliability QoS policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reliability {
    /// Retransmit until acknowledged.
    Reliable,
    /// Send once.
    BestEffort,
}

/// Durability QoS policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Late joiners get nothing old.
    Volatile,
    /// Late joiners get the last `depth` messages.
    TransientLocal,
}

/// A (partial) QoS profile: history is always keep-last.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of QoS settings (reliability, durability, depth)")]
pub struct QosOverride {
    /// Reliability.
    pub reliability: Option<Reliability>,
    /// Durability.
    pub durability: Option<Durability>,
    /// Keep-last depth (≥ 1).
    pub depth: Option<std::num::NonZeroUsize>,
}

/// A complete QoS profile.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Qos {
    /// Reliability.
    pub reliability: Reliability,
    /// Durability.
    pub durability: Durability,
    /// Keep-last depth.
    pub depth: usize,
}

/// `qos:` overrides, per topic. Defaults: publishers reliable, volatile, keep last 10;
/// the command subscription best effort, volatile, keep last 1 (it accepts both reliable
/// and best-effort publishers, and only the newest command matters).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping from topic to QoS settings")]
pub struct QosOverrides {
    /// /joint_states publisher.
    pub joint_states: QosOverride,
    /// /clock publisher.
    pub clock: QosOverride,
    /// /diagnostics publisher.
    pub diagnostics: QosOverride,
    /// Effort command subscription.
    pub commands: QosOverride,
    /// JointState command subscription (default reliable, volatile, keep last 10: its
    /// publisher sends only changes, none may be lost).
    pub joint_commands: QosOverride,
}

/// `watchdog:`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of watchdog settings")]
pub struct WatchdogConfig {
    /// An input older than this many loop periods is stale: a stale effort command is
    /// replaced by zero effort until a new one arrives. Default 100 (0.1 s at 1 kHz).
    pub stale_after_periods: PositiveF64,
}

/// `diagnostics:`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of diagnostics settings")]
pub struct DiagnosticsConfig {
    /// /diagnostics publication rate (Hz). Default 1.
    pub rate_hz: PositiveF64,
    /// Print a one-line status (rate, jitter, overruns, inputs) at that rate. Default true.
    pub status_line: bool,
}

/// `realtime:`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of real-time settings (priority, cpu)")]
pub struct RealtimeConfig {
    /// SCHED_FIFO priority 1–99 for the loop thread, 0 for the normal scheduler. Needs
    /// CAP_SYS_NICE or an rtprio limit (`ulimit -r`); without, the node warns once and runs
    /// with normal scheduling. Default 50 (as ros2_control's controller manager).
    pub priority: RtPriority,
    /// Pin the loop thread to this CPU. Default: not pinned.
    pub cpu: Option<usize>,
}

/// `x` seconds (a checked positive number) as a Duration, saturating: a rate so small that
/// its period overflows a Duration is a period longer than any run.
fn seconds(x: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(x).unwrap_or(std::time::Duration::MAX)
}

fn default_rate() -> PositiveF64 {
    PositiveF64::new(1000.0).expect("1000 is positive")
}

fn default_description_timeout() -> PositiveF64 {
    PositiveF64::new(10.0).expect("10 is positive")
}

fn default_controller() -> NameToken {
    NameToken::new("effort_controller").expect("a valid token")
}

fn topic(s: &str) -> TopicName {
    TopicName::new(s).expect("a valid default topic")
}

impl Default for Topics {
    fn default() -> Self {
        Self {
            joint_states: topic("/joint_states"),
            clock: topic("/clock"),
            diagnostics: topic("/diagnostics"),
            commands: None,
            odometry: topic("/odom"),
            contact_wrenches: topic("~/contact_wrenches"),
            predicted_contact_wrenches: topic("~/predicted_contact_wrenches"),
            reference: topic("~/reference"),
            base_reference: topic("~/base_reference"),
            external_wrench: topic("~/external_wrench"),
            contact_markers: topic("~/contact_markers"),
            tf: Some(topic("/tf")),
        }
    }
}

impl Default for WatchdogConfig {
    fn default() -> Self {
        Self { stale_after_periods: PositiveF64::new(100.0).expect("positive") }
    }
}

impl Default for RealtimeConfig {
    fn default() -> Self {
        Self { priority: RtPriority::new(50).expect("in range"), cpu: None }
    }
}

impl Default for DiagnosticsConfig {
    fn default() -> Self {
        Self { rate_hz: PositiveF64::new(1.0).expect("positive"), status_line: true }
    }
}

impl QosOverride {
    /// This override applied on top of `base`.
    pub fn over(self, base: Qos) -> Qos {
        Qos {
            reliability: self.reliability.unwrap_or(base.reliability),
            durability: self.durability.unwrap_or(base.durability),
            depth: self.depth.map_or(base.depth, |d| d.get()),
        }
    }
}

impl Qos {
    /// Default for the node's publishers.
    pub const PUBLISHER: Qos = Qos { reliability: Reliability::Reliable, durability: Durability::Volatile, depth: 10 };
    /// Default for the node's input subscriptions.
    pub const SUBSCRIPTION: Qos =
        Qos { reliability: Reliability::BestEffort, durability: Durability::Volatile, depth: 1 };
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not YAML at all.
    #[error("{file}: not valid YAML: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A key with a wrong, missing or unknown value.
    #[error("{file}: key `{key}`: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// Dotted path of the key (`robot.joints[2]`; `(top level)` for the document).
        key: String,
        /// Expected and found.
        message: String,
    },
}

impl Config {
    /// The node loop (named `name`): its period and catch-up for the mode, one report per
    /// /diagnostics message (each window published exactly once), the configured priority
    /// and CPU. A free loop (`realtime_factor: max`) never sleeps and runs at normal
    /// priority: under SCHED_FIFO it would starve the publisher and the spinner.
    pub fn loop_settings(&self, name: &str) -> crate::runtime::LoopSettings {
        let period = self.loop_period();
        crate::runtime::LoopSettings {
            name: name.to_owned(),
            period,
            report_interval: seconds(1.0 / self.diagnostics.rate_hz.get()),
            realtime_priority: self.realtime.priority.fifo().filter(|_| !period.is_zero()),
            cpu: self.realtime.cpu,
            catch_up: self.loop_catch_up(),
        }
    }

    /// Reads and parses a configuration file; relative paths in it are made relative to
    /// the file's directory.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ConfigError::Read { file: path.display().to_string(), source })?;
        let mut config = Self::from_yaml(&text, &path.display().to_string())?;
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Some(urdf) = &mut config.robot.urdf
            && urdf.is_relative()
        {
            *urdf = lexically_normal(&dir.join(&*urdf));
        }
        for r in &mut config.robots {
            if r.urdf.is_relative() {
                r.urdf = lexically_normal(&dir.join(&r.urdf));
            }
        }
        if let Some(srdf) = &mut config.collision.srdf
            && srdf.is_relative()
        {
            *srdf = lexically_normal(&dir.join(&*srdf));
        }
        for m in &mut config.environment.meshes {
            if m.file.is_relative() {
                m.file = lexically_normal(&dir.join(&m.file));
            }
        }
        for p in &mut config.robot.package_dirs {
            if p.is_relative() {
                *p = lexically_normal(&dir.join(&*p));
            }
        }
        Ok(config)
    }

    /// Parses YAML text and checks every number against its physical range
    /// ([`ranges`]); `file` names it in errors. Paths are kept as written.
    pub fn from_yaml(text: &str, file: &str) -> Result<Self, ConfigError> {
        let de = serde_yaml_ng::Deserializer::from_str(text);
        let config: Self = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            let message = describe_yaml_error(e.inner(), &path);
            if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
                let key = if path.is_empty() { field.to_owned() } else { format!("{path}.{field}") };
                return ConfigError::Invalid {
                    file: file.to_owned(),
                    key,
                    message: "required, but missing".to_owned(),
                };
            }
            if path.is_empty() && is_syntax_error(&message) {
                return ConfigError::Syntax { file: file.to_owned(), message };
            }
            let key = if path.is_empty() { "(top level)".to_owned() } else { path };
            ConfigError::Invalid { file: file.to_owned(), key, message }
        })?;
        ranges::check(&config, file)?;
        Ok(config)
    }

    /// The effort command topic.
    pub fn commands_topic(&self) -> TopicName {
        self.topics.commands.clone().unwrap_or_else(|| topic(&format!("/{}/commands", self.controller)))
    }

    /// The period 1/`rate_hz`: the controller's loop period, and the simulator's default
    /// step.
    pub fn period(&self) -> std::time::Duration {
        seconds(1.0 / self.rate_hz.get())
    }

    /// How far apart a JointState's and an odometry's stamps may be to make one state:
    /// `control.pairing_tolerance`, else half the period.
    pub fn pairing_tolerance(&self) -> std::time::Duration {
        match self.control.pairing_tolerance {
            Some(t) => seconds(t.get()),
            None => self.period() / 2,
        }
    }

    /// The simulator's time step (s): `sim.dt`, else 1/`rate_hz`.
    pub fn sim_dt(&self) -> f64 {
        self.sim.dt.map_or_else(|| self.period().as_secs_f64(), |d| d.get())
    }

    /// The node loop's period: 1/`rate_hz` in `mode: control`; while simulating, one step
    /// per `sim.dt` / `sim.realtime_factor` of wall time, and zero (a free loop) at `max`.
    pub fn loop_period(&self) -> std::time::Duration {
        match (self.mode, self.sim.realtime_factor.factor()) {
            (Mode::Control, _) => self.period(),
            (_, Some(factor)) => seconds(self.sim_dt() / factor),
            (_, None) => std::time::Duration::ZERO,
        }
    }

    /// How far behind the wall clock a paced simulation may fall and still catch up by
    /// stepping back to back (`sim.catch_up`; beyond, it skips and simulated time falls
    /// behind); none for the controller, which must not burst.
    pub fn loop_catch_up(&self) -> std::time::Duration {
        match self.mode {
            Mode::Control => std::time::Duration::ZERO,
            Mode::Sim | Mode::SimAndControl => seconds(self.sim.catch_up.get()),
        }
    }

    /// How old an input may get before it is stale: `watchdog.stale_after_periods` loop
    /// periods (simulated steps' worth of wall time for a free loop).
    pub fn stale_after(&self) -> std::time::Duration {
        let period = self.loop_period();
        let period = if period.is_zero() { seconds(self.sim_dt()) } else { period };
        period.mul_f64(self.watchdog.stale_after_periods.get())
    }
}

/// serde_yaml_ng's message without its own path prefix (the key is reported separately)
/// and with its position spelled "(line L, column C)".
fn describe_yaml_error(e: &serde_yaml_ng::Error, path: &str) -> String {
    let text = e.to_string();
    let mut core = text.as_str();
    if let Some((prefix, rest)) = core.split_once(": ")
        && !prefix.contains(' ')
        && path.starts_with(prefix)
    {
        core = rest;
    }
    match e.location() {
        Some(loc) => {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            let core = core.strip_suffix(&suffix).unwrap_or(core);
            format!("{core} (line {}, column {})", loc.line(), loc.column())
        }
        None => core.to_owned(),
    }
}

fn is_syntax_error(message: &str) -> bool {
    !(message.contains("missing field")
        || message.contains("unknown field")
        || message.contains("invalid type")
        || message.contains("invalid value")
        || message.contains("unknown variant"))
}

/// `a/b/../c` → `a/c`, without touching the file system (symlinks are not resolved).
pub fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

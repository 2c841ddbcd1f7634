//! `sensors:` — the simulator's IMUs, joint force/torque sensors and foot contacts, by
//! link or joint name; [`SensorsConfig::settings`] checks the names against the robot
//! and converts to the simulator's [`SensorSettings`].

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::scene::{NonNegativeF64, one, zero, zero3};
use super::values::{FiniteF64, PositiveF64, TopicName};
use crate::model::{FrameKind, Model};
use crate::sim::sensors::{
    ChannelNoise, Direction, FootContactSettings, ForceTorqueSettings, ImuSettings, Mount, SensorSettings,
};
use crate::spatial::{SE3, Vec3, rotation_from_rpy};

/// `sensors:` (none by default).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of sensors (imu, force_torque, foot_contact)")]
pub struct SensorsConfig {
    /// IMUs, `sensor_msgs/Imu` each.
    pub imu: Vec<ImuConfig>,
    /// Joint force/torque sensors, `geometry_msgs/WrenchStamped` each.
    pub force_torque: Vec<ForceTorqueConfig>,
    /// Foot contacts, all in one `sensor_msgs/JointState`.
    pub foot_contact: FootContactConfig,
}

/// `sensors.imu[]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of IMU settings (name, link, xyz, rpy, topic, rate_hz, gyro_noise, gyro_bias, accel_noise, accel_bias, seed)"
)]
pub struct ImuConfig {
    /// Name: the messages' `frame_id` and the default topic `~/imu/<name>`.
    pub name: String,
    /// The URDF link carrying it.
    pub link: String,
    /// Sensor origin in the link frame (m). Default 0.
    #[serde(default = "zero3")]
    pub xyz: [FiniteF64; 3],
    /// Sensor orientation in the link frame, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub rpy: [FiniteF64; 3],
    /// Topic (`~/imu/<name>`).
    #[serde(default)]
    pub topic: Option<TopicName>,
    /// Measurement rate (Hz), rounded to a whole number of steps. Default: every step.
    #[serde(default)]
    pub rate_hz: Option<PositiveF64>,
    /// Gyroscope white noise, standard deviation per axis (rad/s). Default 0.
    #[serde(default = "zero_noise")]
    pub gyro_noise: [NonNegativeF64; 3],
    /// Gyroscope bias per axis (rad/s). Default 0.
    #[serde(default = "zero3")]
    pub gyro_bias: [FiniteF64; 3],
    /// Accelerometer white noise, standard deviation per axis (m/s²). Default 0.
    #[serde(default = "zero_noise")]
    pub accel_noise: [NonNegativeF64; 3],
    /// Accelerometer bias per axis (m/s²). Default 0.
    #[serde(default = "zero3")]
    pub accel_bias: [FiniteF64; 3],
    /// Seed of the noise generator. Default: 1 + the IMU's index.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// `sensors.force_torque[]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of force/torque sensor settings (name, joint, xyz, rpy, topic, rate_hz, direction)"
)]
pub struct ForceTorqueConfig {
    /// Name: the messages' `frame_id` and the default topic `~/force_torque/<name>`.
    pub name: String,
    /// The movable joint whose transmitted wrench it measures.
    pub joint: String,
    /// Sensor origin in the joint frame (m). Default 0.
    #[serde(default = "zero3")]
    pub xyz: [FiniteF64; 3],
    /// Sensor orientation in the joint frame, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub rpy: [FiniteF64; 3],
    /// Topic (`~/force_torque/<name>`).
    #[serde(default)]
    pub topic: Option<TopicName>,
    /// Measurement rate (Hz). Default: every step.
    #[serde(default)]
    pub rate_hz: Option<PositiveF64>,
    /// `parent_to_child` (default) or `child_to_parent`.
    #[serde(default)]
    pub direction: MeasureDirection,
}

/// Which side's wrench a force/torque sensor reports (Gazebo's `measure_direction`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasureDirection {
    /// The parent's wrench on the child (Pinocchio's `data.f`).
    #[default]
    ParentToChild,
    /// The child's wrench on the parent.
    ChildToParent,
}

/// `sensors.foot_contact`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of foot contact settings (topic, rate_hz, feet)")]
pub struct FootContactConfig {
    /// The one message of every foot (`~/foot_contacts`).
    pub topic: TopicName,
    /// Publication rate (Hz); the flags are updated every step. Default: every step.
    pub rate_hz: Option<PositiveF64>,
    /// The feet.
    pub feet: Vec<FootConfig>,
}

/// `sensors.foot_contact.feet[]`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of foot settings (link, threshold, debounce)")]
pub struct FootConfig {
    /// A URDF link with collision shapes.
    pub link: String,
    /// Normal force (N) above which it is in contact. Default 1.
    #[serde(default = "one")]
    pub threshold: NonNegativeF64,
    /// How long (s) a new contact state must hold before the flag takes it. Default 0.
    #[serde(default = "zero")]
    pub debounce: NonNegativeF64,
}

impl Default for FootContactConfig {
    fn default() -> Self {
        Self { topic: TopicName::new("~/foot_contacts").expect("a valid topic"), rate_hz: None, feet: Vec::new() }
    }
}

fn zero_noise() -> [NonNegativeF64; 3] {
    [zero(); 3]
}

fn values(x: &[FiniteF64; 3]) -> [f64; 3] {
    x.map(|v| v.get())
}

/// `link_m_sensor` of an offset.
fn offset(xyz: &[FiniteF64; 3], rpy: &[FiniteF64; 3]) -> SE3 {
    let [r, p, y] = values(rpy);
    SE3::new(rotation_from_rpy(r, p, y), Vec3::from(values(xyz)))
}

impl ImuConfig {
    /// The topic: `topic`, else `~/imu/<name>`.
    pub fn topic(&self) -> String {
        self.topic.as_ref().map_or_else(|| format!("~/imu/{}", super::topic_token(&self.name)), |t| t.to_string())
    }
}

impl ForceTorqueConfig {
    /// The topic: `topic`, else `~/force_torque/<name>`.
    pub fn topic(&self) -> String {
        self.topic
            .as_ref()
            .map_or_else(|| format!("~/force_torque/{}", super::topic_token(&self.name)), |t| t.to_string())
    }
}

impl SensorsConfig {
    /// The sensors on `model`, stepped every `dt` seconds: links and joints found by name,
    /// rates as whole numbers of steps. An unknown link or joint, a fixed joint, a foot
    /// without collision shapes, a name or topic used twice, or a rate above the step rate
    /// is an error naming `file` and the key.
    pub fn settings(&self, model: &Model, dt: f64, file: &str) -> Result<SensorSettings, ConfigError> {
        let invalid = |key: String, message: String| ConfigError::Invalid { file: file.to_owned(), key, message };
        let every = |key: String, rate: Option<PositiveF64>| -> Result<u64, ConfigError> {
            let Some(rate) = rate else { return Ok(1) };
            if rate.get() * dt > 1.0 + 1e-9 {
                return Err(invalid(
                    key,
                    format!("expected at most the step rate {} Hz, got {}", 1.0 / dt, rate.get()),
                ));
            }
            Ok((1.0 / (rate.get() * dt)).round().max(1.0) as u64)
        };
        let link = |key: String, name: &str| -> Result<Mount, ConfigError> {
            let frame = model.frame_id(name, Some(FrameKind::Body)).map(|f| &model.frames[f]);
            frame.map(|f| Mount { joint: f.parent_joint, placement: f.placement }).ok_or_else(|| {
                let links: Vec<&str> =
                    model.frames.iter().filter(|f| f.kind == FrameKind::Body).map(|f| f.name.as_str()).collect();
                invalid(key, format!("expected a link of {} (one of {}), got `{name}`", model.name, links.join(", ")))
            })
        };
        self.check_unique(&invalid)?;
        let mut settings = SensorSettings::default();
        for (i, s) in self.imu.iter().enumerate() {
            let key = |field: &str| format!("sensors.imu[{i}].{field}");
            let mount = link(key("link"), &s.link)?;
            settings.imu.push(ImuSettings {
                name: s.name.clone(),
                mount: Mount { joint: mount.joint, placement: mount.placement.compose(&offset(&s.xyz, &s.rpy)) },
                every: every(key("rate_hz"), s.rate_hz)?,
                gyro: ChannelNoise { std_dev: s.gyro_noise.map(|v| v.get()), bias: values(&s.gyro_bias) },
                accel: ChannelNoise { std_dev: s.accel_noise.map(|v| v.get()), bias: values(&s.accel_bias) },
                seed: s.seed.unwrap_or(1 + i as u64),
            });
        }
        for (i, s) in self.force_torque.iter().enumerate() {
            let key = |field: &str| format!("sensors.force_torque[{i}].{field}");
            let joint = model.joint_id(&s.joint).filter(|&j| j > 0).ok_or_else(|| {
                let movable = model.joint_names.iter().skip(1).map(String::as_str).collect::<Vec<_>>().join(", ");
                invalid(
                    key("joint"),
                    format!(
                        "expected a movable joint of {} (one of {movable}; fixed joints are merged into their parent link), got `{}`",
                        model.name, s.joint
                    ),
                )
            })?;
            settings.force_torque.push(ForceTorqueSettings {
                name: s.name.clone(),
                mount: Mount { joint, placement: offset(&s.xyz, &s.rpy) },
                every: every(key("rate_hz"), s.rate_hz)?,
                direction: match s.direction {
                    MeasureDirection::ParentToChild => Direction::ParentToChild,
                    MeasureDirection::ChildToParent => Direction::ChildToParent,
                },
            });
        }
        let feet = &self.foot_contact;
        let every_foot = every("sensors.foot_contact.rate_hz".into(), feet.rate_hz)?;
        for (i, f) in feet.feet.iter().enumerate() {
            let key = format!("sensors.foot_contact.feet[{i}].link");
            link(key.clone(), &f.link)?;
            if !model.collision_geometries.iter().any(|g| g.link == f.link) {
                return Err(invalid(key, format!("expected a link with collision shapes, got `{}`", f.link)));
            }
            settings.foot_contact.push(FootContactSettings {
                name: f.link.clone(),
                objects: Vec::new(),
                threshold: f.threshold.get(),
                debounce_steps: (f.debounce.get() / dt - 1e-9).ceil().max(0.0) as u64,
                every: every_foot,
            });
        }
        Ok(settings)
    }

    /// Names (frame ids), feet and topics used once each.
    fn check_unique(&self, invalid: &impl Fn(String, String) -> ConfigError) -> Result<(), ConfigError> {
        let names = self.imu.iter().map(|s| (s.name.as_str(), s.topic()));
        let names = names.chain(self.force_torque.iter().map(|s| (s.name.as_str(), s.topic())));
        let keys = (0..self.imu.len())
            .map(|i| format!("sensors.imu[{i}]"))
            .chain((0..self.force_torque.len()).map(|i| format!("sensors.force_torque[{i}]")));
        let mut seen: Vec<(&str, String)> = vec![("", self.foot_contact.topic.to_string())];
        for (key, (name, topic)) in keys.zip(names) {
            if name.is_empty() || seen.iter().any(|(n, _)| *n == name) {
                return Err(invalid(format!("{key}.name"), format!("expected a unique, non-empty name, got `{name}`")));
            }
            if seen.iter().any(|(_, t)| *t == topic) {
                return Err(invalid(format!("{key}.topic"), format!("topic {topic} is used by another sensor")));
            }
            seen.push((name, topic));
        }
        for (i, f) in self.foot_contact.feet.iter().enumerate() {
            if self.foot_contact.feet[..i].iter().any(|g| g.link == f.link) {
                let key = format!("sensors.foot_contact.feet[{i}].link");
                return Err(invalid(key, format!("link `{}` is listed twice", f.link)));
            }
        }
        Ok(())
    }
}

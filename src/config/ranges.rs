//! The physical range of every configuration number, checked once the file is parsed.
//!
//! The value types of [`super::values`] make a number finite, positive or non-negative;
//! this module bounds it by what the quantity can physically be and what the loop can
//! run: a rate of 10⁻²⁰ Hz has a period no `Duration` holds, one of 10¹⁰ Hz a step that
//! rounds to zero, 10⁶ contacts a Delassus matrix of (3·10⁶)² numbers. A number outside its
//! range is the usual one-line error naming the file and the key:
//!
//! ```text
//! robot.yaml: key `rate_hz`: expected a rate from 1 to 100000 Hz, got 1e-20
//! ```
//!
//! The ranges are the `RANGE` constants below; README's "Configuration reference" quotes
//! them, and tests/config_errors.rs checks one key of each.

use super::values::{FiniteF64, PositiveF64};
use super::{Config, ConfigError, NonNegativeF64};

/// A closed interval [min, max] of one kind of quantity.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Range {
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// What the quantity is, as the error says it: "a rate".
    pub what: &'static str,
    /// Its unit ("" for none).
    pub unit: &'static str,
}

impl Range {
    const fn new(min: f64, max: f64, what: &'static str, unit: &'static str) -> Self {
        Self { min, max, what, unit }
    }

    /// True if `x` is within the range.
    pub fn contains(&self, x: f64) -> bool {
        (self.min..=self.max).contains(&x)
    }
}

/// The loop rate `rate_hz`: 1 Hz to 100 kHz.
pub const LOOP_RATE: Range = Range::new(1.0, 1e5, "a rate", "Hz");
/// `diagnostics.rate_hz`: one report every 100 s to 1000 a second.
pub const REPORT_RATE: Range = Range::new(0.01, 1e3, "a rate", "Hz");
/// A sensor's `rate_hz` (also at most the step rate, checked against the robot).
pub const SENSOR_RATE: Range = Range::new(1e-3, 1e5, "a rate", "Hz");
/// `sim.dt`: 1 µs to 1 s.
pub const TIME_STEP: Range = Range::new(1e-6, 1.0, "a time step", "s");
/// `sim.realtime_factor`: a thousandth to a thousand times real time.
pub const REALTIME_FACTOR: Range = Range::new(1e-3, 1e3, "a real-time factor", "");
/// `sim.catch_up` and `sensors.foot_contact.feet[].debounce`: up to a minute.
pub const DELAY: Range = Range::new(0.0, 60.0, "a duration", "s");
/// `control.pairing_tolerance`: 1 ns to 1 s.
pub const PAIRING: Range = Range::new(1e-9, 1.0, "a duration", "s");
/// `robot.description_timeout`: 1 ms to a day.
pub const TIMEOUT: Range = Range::new(1e-3, 86_400.0, "a duration", "s");
/// `watchdog.stale_after_periods`: one period to a million.
pub const PERIODS: Range = Range::new(1.0, 1e6, "a number of periods", "");
/// Positions and offsets: within 10 km of the origin.
pub const POSITION: Range = Range::new(-1e4, 1e4, "a coordinate", "m");
/// Roll, pitch, yaw and a slope's yaw: within ±10 rad (more than a turn either way).
pub const ANGLE: Range = Range::new(-10.0, 10.0, "an angle", "rad");
/// A slope's inclination: less than a quarter turn either way.
pub const INCLINATION: Range = Range::new(-1.57, 1.57, "an inclination", "rad");
/// A direction's component (the ground normal, normalized on load).
pub const DIRECTION: Range = Range::new(-1e3, 1e3, "a direction component", "");
/// Sizes, radii and lengths: 1 µm to 10 km.
pub const LENGTH: Range = Range::new(1e-6, 1e4, "a length", "m");
/// A mesh's scale factor per axis.
pub const SCALE: Range = Range::new(1e-6, 1e6, "a scale factor", "");
/// Distances that may be zero (margins, gaps, patch radius, release height): up to 10 m.
pub const DISTANCE: Range = Range::new(0.0, 10.0, "a distance", "m");
/// A free body's mass: 1 mg to 10 000 t.
pub const MASS: Range = Range::new(1e-6, 1e7, "a mass", "kg");
/// A free body's initial speed per axis.
pub const VELOCITY: Range = Range::new(-1e3, 1e3, "a velocity", "m/s");
/// Coulomb friction coefficients.
pub const FRICTION: Range = Range::new(0.0, 100.0, "a friction coefficient", "");
/// Restitution coefficients: inelastic to elastic.
pub const RESTITUTION: Range = Range::new(0.0, 1.0, "a restitution coefficient", "");
/// The controller's stiffnesses on accelerations (`kp`, `base_kp`): ω up to 10⁴ rad/s.
pub const STIFFNESS_RATE: Range = Range::new(0.0, 1e8, "a stiffness", "1/s²");
/// The controller's damping rates (`kd`, `base_kd`, `stance_damping`).
pub const DAMPING_RATE: Range = Range::new(0.0, 1e6, "a damping rate", "1/s");
/// `control.joint_weight`.
pub const WEIGHT: Range = Range::new(1e-9, 1e9, "a weight", "");
/// Joint gains in torque units (`sim.hold_kp`/`hold_kd`, the servos' PID, `safe_damping`).
pub const JOINT_GAIN: Range = Range::new(0.0, 1e9, "a gain", "");
/// Forces (`control.max_contact_force`, a foot's `threshold`).
pub const FORCE: Range = Range::new(0.0, 1e9, "a force", "N");
/// `contact.tolerance`.
pub const TOLERANCE: Range = Range::new(1e-15, 1.0, "a tolerance", "");
/// `contact.restitution_threshold`.
pub const SPEED: Range = Range::new(0.0, 100.0, "a speed", "m/s");
/// `contact.compliance_normal`/`compliance_tangential`.
pub const COMPLIANCE: Range = Range::new(0.0, 1.0, "a compliance", "m/N");
/// IMU noise standard deviations and biases (rad/s or m/s²).
pub const IMU_ERROR: Range = Range::new(-1e3, 1e3, "a sensor error", "rad/s or m/s²");
/// Joint positions (`robot.initial_posture`, `control.posture`; also within the URDF
/// limits, checked against the robot).
pub const JOINT_POSITION: Range = Range::new(-1e4, 1e4, "a joint position", "rad or m");
/// `contact.max_iterations`.
pub const ITERATIONS: Range = Range::new(1.0, 1e6, "an iteration count", "");
/// `contact.anderson` (0: off).
pub const ANDERSON: Range = Range::new(0.0, crate::contact::MAX_ANDERSON as f64, "an Anderson depth", "");
/// `contact.regenerate` (0: off).
pub const REGENERATE: Range = Range::new(0.0, crate::contact::MAX_REGENERATE as f64, "a number of solves", "");
/// `contact.scaling`.
pub const SCALING_EXPONENT: Range = Range::new(0.0, crate::contact::MAX_CONTACT_SCALING, "a scaling exponent", "");
/// `sim.publish_every`.
pub const STEPS: Range = Range::new(1.0, 1e6, "a number of steps", "");
/// QoS keep-last depths.
pub const DEPTH: Range = Range::new(1.0, 1e4, "a queue depth", "");
/// `realtime.cpu`: below CPU_SETSIZE (1024), the largest CPU a thread can be pinned to.
pub const CPU: Range = Range::new(0.0, 1023.0, "a CPU index", "");

/// The largest `collision.max_contacts`: the dense contact problem of n contacts holds
/// (3n)² numbers per matrix, 75 MB at 1024 (a robot standing on a rough mesh makes tens).
pub const MAX_CONTACTS: usize = 1024;
/// `collision.max_contacts`: 1 to [`MAX_CONTACTS`].
pub const CONTACTS: Range = Range::new(1.0, MAX_CONTACTS as f64, "a number of contacts", "");

/// `x` as the errors print it: `1e-20`, `0.001`, `100000`.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) { format!("{x:e}") } else { format!("{x}") }
}

/// Checks keys against their ranges, naming `file`.
struct Check<'a> {
    file: &'a str,
}

impl Check<'_> {
    fn at(&self, key: &str, x: f64, r: &Range) -> Result<(), ConfigError> {
        if r.contains(x) {
            return Ok(());
        }
        let unit = if r.unit.is_empty() { String::new() } else { format!(" {}", r.unit) };
        Err(ConfigError::Invalid {
            file: self.file.to_owned(),
            key: key.to_owned(),
            message: format!(
                "expected {} from {} to {}{unit}, got {}",
                r.what,
                number(r.min),
                number(r.max),
                number(x)
            ),
        })
    }
    fn positive(&self, key: &str, x: PositiveF64, r: &Range) -> Result<(), ConfigError> {
        self.at(key, x.get(), r)
    }
    fn non_negative(&self, key: &str, x: NonNegativeF64, r: &Range) -> Result<(), ConfigError> {
        self.at(key, x.get(), r)
    }
    fn optional(&self, key: &str, x: Option<PositiveF64>, r: &Range) -> Result<(), ConfigError> {
        x.map_or(Ok(()), |x| self.at(key, x.get(), r))
    }
    fn three(&self, key: &str, xs: &[FiniteF64; 3], r: &Range) -> Result<(), ConfigError> {
        xs.iter().enumerate().try_for_each(|(i, x)| self.at(&format!("{key}[{i}]"), x.get(), r))
    }
    fn three_positive(&self, key: &str, xs: &[PositiveF64; 3], r: &Range) -> Result<(), ConfigError> {
        xs.iter().enumerate().try_for_each(|(i, x)| self.at(&format!("{key}[{i}]"), x.get(), r))
    }
    fn three_non_negative(&self, key: &str, xs: &[NonNegativeF64; 3], r: &Range) -> Result<(), ConfigError> {
        xs.iter().enumerate().try_for_each(|(i, x)| self.at(&format!("{key}[{i}]"), x.get(), r))
    }
    fn count(&self, key: &str, n: usize, r: &Range) -> Result<(), ConfigError> {
        // Counts beyond 2⁵³ lose precision as f64 but stay far outside every range.
        self.at(key, n as f64, r)
    }
    fn postures<'k>(
        &self,
        key: &str,
        map: impl IntoIterator<Item = (&'k String, &'k FiniteF64)>,
    ) -> Result<(), ConfigError> {
        map.into_iter().try_for_each(|(name, x)| self.at(&format!("{key}.{name}"), x.get(), &JOINT_POSITION))
    }
}

/// Every number of `config` within its range, else the error naming `file` and the first
/// key outside.
pub fn check(config: &Config, file: &str) -> Result<(), ConfigError> {
    let c = Check { file };
    top_level(&c, config)?;
    environment(&c, config)?;
    collision_and_contact(&c, config)?;
    sim(&c, config)?;
    control(&c, config)?;
    sensors(&c, config)?;
    joint_commands(&c, config)
}

fn top_level(c: &Check, config: &Config) -> Result<(), ConfigError> {
    c.positive("rate_hz", config.rate_hz, &LOOP_RATE)?;
    c.positive("robot.description_timeout", config.robot.description_timeout, &TIMEOUT)?;
    c.postures("robot.initial_posture", &config.robot.initial_posture)?;
    for (i, r) in config.robots.iter().enumerate() {
        c.postures(&format!("robots[{i}].initial_posture"), &r.initial_posture)?;
        if let Some(p) = &r.base_position {
            c.three(&format!("robots[{i}].base_position"), p, &POSITION)?;
        }
        c.three(&format!("robots[{i}].base_rpy"), &r.base_rpy, &ANGLE)?;
    }
    let q = &config.qos;
    let depths = [
        ("joint_states", q.joint_states),
        ("clock", q.clock),
        ("diagnostics", q.diagnostics),
        ("commands", q.commands),
        ("joint_commands", q.joint_commands),
    ];
    for (topic, o) in depths {
        if let Some(d) = o.depth {
            c.count(&format!("qos.{topic}.depth"), d.get(), &DEPTH)?;
        }
    }
    c.positive("watchdog.stale_after_periods", config.watchdog.stale_after_periods, &PERIODS)?;
    c.positive("diagnostics.rate_hz", config.diagnostics.rate_hz, &REPORT_RATE)?;
    if let Some(cpu) = config.realtime.cpu {
        c.count("realtime.cpu", cpu, &CPU)?;
    }
    Ok(())
}

fn environment(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let e = &config.environment;
    if let Some(g) = &e.ground {
        c.at("environment.ground.height", g.height.get(), &POSITION)?;
        c.three("environment.ground.normal", &g.normal, &DIRECTION)?;
        c.non_negative("environment.ground.friction", g.friction, &FRICTION)?;
        c.non_negative("environment.ground.restitution", g.restitution, &RESTITUTION)?;
    }
    for (i, b) in e.boxes.iter().enumerate() {
        let key = |field: &str| format!("environment.boxes[{i}].{field}");
        c.three_positive(&key("size"), &b.size, &LENGTH)?;
        c.three(&key("position"), &b.position, &POSITION)?;
        c.three(&key("rpy"), &b.rpy, &ANGLE)?;
        c.non_negative(&key("friction"), b.friction, &FRICTION)?;
        c.non_negative(&key("restitution"), b.restitution, &RESTITUTION)?;
    }
    for (i, s) in e.slopes.iter().enumerate() {
        let key = |field: &str| format!("environment.slopes[{i}].{field}");
        c.three(&key("position"), &s.position, &POSITION)?;
        c.at(&key("angle"), s.angle.get(), &INCLINATION)?;
        c.at(&key("yaw"), s.yaw.get(), &ANGLE)?;
        c.three_positive(&key("size"), &s.size, &LENGTH)?;
        c.non_negative(&key("friction"), s.friction, &FRICTION)?;
        c.non_negative(&key("restitution"), s.restitution, &RESTITUTION)?;
    }
    for (i, m) in e.meshes.iter().enumerate() {
        let key = |field: &str| format!("environment.meshes[{i}].{field}");
        c.three_positive(&key("scale"), &m.scale, &SCALE)?;
        c.three(&key("position"), &m.position, &POSITION)?;
        c.three(&key("rpy"), &m.rpy, &ANGLE)?;
        c.non_negative(&key("friction"), m.friction, &FRICTION)?;
    }
    Ok(())
}

fn collision_and_contact(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let k = &config.collision;
    c.non_negative("collision.margin", k.margin, &DISTANCE)?;
    if let Some(f) = k.robot_friction {
        c.non_negative("collision.robot_friction", f, &FRICTION)?;
    }
    for (link, &f) in &k.link_friction {
        c.non_negative(&format!("collision.link_friction.{link}"), f, &FRICTION)?;
    }
    c.non_negative("collision.self_friction", k.self_friction, &FRICTION)?;
    c.count("collision.max_contacts", k.max_contacts.get(), &CONTACTS)?;
    let s = &config.contact;
    c.positive("contact.tolerance", s.tolerance, &TOLERANCE)?;
    c.count("contact.max_iterations", s.max_iterations.get(), &ITERATIONS)?;
    c.count("contact.anderson", s.anderson, &ANDERSON)?;
    c.count("contact.regenerate", s.regenerate, &REGENERATE)?;
    c.non_negative("contact.scaling", s.scaling, &SCALING_EXPONENT)?;
    c.non_negative("contact.restitution_threshold", s.restitution_threshold, &SPEED)?;
    c.non_negative("contact.compliance_normal", s.compliance_normal, &COMPLIANCE)?;
    c.non_negative("contact.compliance_tangential", s.compliance_tangential, &COMPLIANCE)
}

fn sim(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let s = &config.sim;
    c.optional("sim.dt", s.dt, &TIME_STEP)?;
    if let Some(p) = &s.base_position {
        c.three("sim.base_position", p, &POSITION)?;
    }
    c.three("sim.base_rpy", &s.base_rpy, &ANGLE)?;
    c.non_negative("sim.hold_kp", s.hold_kp, &JOINT_GAIN)?;
    c.non_negative("sim.hold_kd", s.hold_kd, &JOINT_GAIN)?;
    if let Some(f) = s.realtime_factor.factor() {
        c.at("sim.realtime_factor", f, &REALTIME_FACTOR)?;
    }
    c.count("sim.publish_every", s.publish_every.get(), &STEPS)?;
    c.non_negative("sim.catch_up", s.catch_up, &DELAY)?;
    for (i, b) in s.bodies.iter().enumerate() {
        let key = |field: &str| format!("sim.bodies[{i}].{field}");
        match &b.shape {
            super::BodyShape::Box { size } => c.three_positive(&key("shape.size"), size, &LENGTH)?,
            super::BodyShape::Sphere { radius } => c.positive(&key("shape.radius"), *radius, &LENGTH)?,
            super::BodyShape::Cylinder { radius, length } => {
                c.positive(&key("shape.radius"), *radius, &LENGTH)?;
                c.positive(&key("shape.length"), *length, &LENGTH)?;
            }
        }
        c.positive(&key("mass"), b.mass, &MASS)?;
        c.three(&key("position"), &b.position, &POSITION)?;
        c.three(&key("rpy"), &b.rpy, &ANGLE)?;
        c.three(&key("velocity"), &b.velocity, &VELOCITY)?;
        c.non_negative(&key("friction"), b.friction, &FRICTION)?;
        c.non_negative(&key("restitution"), b.restitution, &RESTITUTION)?;
    }
    Ok(())
}

fn control(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let k = &config.control;
    c.non_negative("control.kp", k.kp, &STIFFNESS_RATE)?;
    c.non_negative("control.kd", k.kd, &DAMPING_RATE)?;
    c.non_negative("control.base_kp", k.base_kp, &STIFFNESS_RATE)?;
    c.non_negative("control.base_kd", k.base_kd, &DAMPING_RATE)?;
    c.positive("control.joint_weight", k.joint_weight, &WEIGHT)?;
    c.non_negative("control.stance_gap", k.stance_gap, &DISTANCE)?;
    c.non_negative("control.stance_damping", k.stance_damping, &DAMPING_RATE)?;
    c.non_negative("control.patch_radius", k.patch_radius, &DISTANCE)?;
    c.optional("control.max_contact_force", k.max_contact_force, &FORCE)?;
    c.optional("control.pairing_tolerance", k.pairing_tolerance, &PAIRING)?;
    c.non_negative("control.release_height", k.release_height, &DISTANCE)?;
    c.postures("control.posture", &k.posture)?;
    c.non_negative("control.safe_damping", k.safe_damping, &JOINT_GAIN)
}

fn sensors(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let s = &config.sensors;
    for (i, imu) in s.imu.iter().enumerate() {
        let key = |field: &str| format!("sensors.imu[{i}].{field}");
        c.three(&key("xyz"), &imu.xyz, &POSITION)?;
        c.three(&key("rpy"), &imu.rpy, &ANGLE)?;
        c.optional(&key("rate_hz"), imu.rate_hz, &SENSOR_RATE)?;
        c.three_non_negative(&key("gyro_noise"), &imu.gyro_noise, &IMU_ERROR)?;
        c.three(&key("gyro_bias"), &imu.gyro_bias, &IMU_ERROR)?;
        c.three_non_negative(&key("accel_noise"), &imu.accel_noise, &IMU_ERROR)?;
        c.three(&key("accel_bias"), &imu.accel_bias, &IMU_ERROR)?;
    }
    for (i, ft) in s.force_torque.iter().enumerate() {
        let key = |field: &str| format!("sensors.force_torque[{i}].{field}");
        c.three(&key("xyz"), &ft.xyz, &POSITION)?;
        c.three(&key("rpy"), &ft.rpy, &ANGLE)?;
        c.optional(&key("rate_hz"), ft.rate_hz, &SENSOR_RATE)?;
    }
    c.optional("sensors.foot_contact.rate_hz", s.foot_contact.rate_hz, &SENSOR_RATE)?;
    for (i, f) in s.foot_contact.feet.iter().enumerate() {
        c.non_negative(&format!("sensors.foot_contact.feet[{i}].threshold"), f.threshold, &FORCE)?;
        c.non_negative(&format!("sensors.foot_contact.feet[{i}].debounce"), f.debounce, &DELAY)?;
    }
    Ok(())
}

fn joint_commands(c: &Check, config: &Config) -> Result<(), ConfigError> {
    let j = &config.joint_commands;
    for (name, g) in &j.position_gains {
        let key = |field: &str| format!("joint_commands.position_gains.{name}.{field}");
        c.non_negative(&key("kp"), g.kp, &JOINT_GAIN)?;
        c.non_negative(&key("kd"), g.kd, &JOINT_GAIN)?;
        c.non_negative(&key("ki"), g.ki, &JOINT_GAIN)?;
    }
    for (name, g) in &j.velocity_gains {
        let key = |field: &str| format!("joint_commands.velocity_gains.{name}.{field}");
        c.non_negative(&key("kp"), g.kp, &JOINT_GAIN)?;
        c.non_negative(&key("ki"), g.ki, &JOINT_GAIN)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_short() {
        assert_eq!(number(1e-20), "1e-20");
        assert_eq!(number(100000.0), "100000");
        assert_eq!(number(1e6), "1e6");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-10.0), "-10");
    }

    #[test]
    fn the_defaults_are_within_range() {
        assert!(check(&Config::from_yaml("robot: {urdf: r.urdf}\n", "d.yaml").unwrap(), "d.yaml").is_ok());
    }
}

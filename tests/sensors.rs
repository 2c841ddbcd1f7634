//! The simulated sensors against independent references: the IMU of the standing
//! quadruped against gravity and the base's own state, its noise against the configured
//! statistics; the arm's joint force/torque sensors at rest against Pinocchio's RNEA
//! (tests/fixtures/sensors, scripts/gen_sensor_fixtures.py); the quadruped's foot contacts
//! dropped from 0.3 m against the free-fall touchdown time √(2h/g).

mod common;

use signorini::app::Setup;
use signorini::config::{Config, PositiveF64, SensorsConfig};
use signorini::dynamics;
use signorini::model::{FrameKind, RobotDescription, Shape};
use signorini::sim::sensors::{ImuReading, SensorReadings, Sensors};
use signorini::sim::{JointPd, Stepper, World};
use signorini::spatial::{Mat3, Vec3, rotation_from_rpy};

use common::repo;

const G: f64 = 9.81;

/// The contact solver's tolerance (N·s) of the settled robot.
const SETTLED_TOLERANCE: f64 = 1e-9;

/// The bundled configuration `config` with `sensors` (YAML) as its `sensors:`.
fn setup_with_sensors(config: &str, sensors: &str) -> Setup {
    setup_with(config, sensors, |_| {})
}

/// The same, with `change` made to the configuration.
fn setup_with(config: &str, sensors: &str, change: impl FnOnce(&mut Config)) -> Setup {
    let path = repo(config);
    let mut config = Config::from_file(&path).unwrap();
    config.sensors = serde_yaml_ng::from_str::<SensorsConfig>(sensors).unwrap();
    change(&mut config);
    let urdf = config.robot.urdf.clone().expect("the configuration names its URDF");
    let robot = RobotDescription::from_file(&urdf).unwrap();
    Setup::new(&path, config, robot).unwrap()
}

/// The simulator of a setup with its sensors, under a torque law.
struct Run {
    world: World,
    stepper: Stepper,
    sensors: Sensors,
    readings: SensorReadings,
    tau: Vec<f64>,
}

impl Run {
    fn new(setup: &Setup, world: World) -> Self {
        let config = &setup.config;
        let stepper =
            Stepper::new(&world, config.sim_dt(), &config.contact.settings(), config.collision.max_contacts.get());
        let r = world.robot.as_ref().unwrap();
        let sensors = Sensors::new(&r.model, world.collision.objects(), setup.sensors.clone());
        let readings = SensorReadings::of(&setup.sensors);
        let tau = vec![0.0; r.model.nv];
        Self { world, stepper, sensors, readings, tau }
    }

    /// One step under the torques `law` writes, the sensors measured and read.
    fn step(&mut self, law: &mut impl FnMut(&World, &mut [f64])) {
        law(&self.world, &mut self.tau);
        self.sensors.before_step(&self.world);
        self.stepper.step(&mut self.world, &self.tau);
        self.sensors.after_step(&self.world, &self.stepper);
        self.sensors.take_readings(&mut self.readings);
    }
}

fn hold(setup: &Setup) -> impl FnMut(&World, &mut [f64]) {
    let mut pd: JointPd = setup.hold_pd();
    move |w: &World, tau: &mut [f64]| {
        let r = w.robot.as_ref().unwrap();
        pd.torques(&r.model, &r.q, &r.v, tau)
    }
}

fn quaternion_rotation(q: &[f64]) -> Mat3 {
    let uq = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]));
    uq.to_rotation_matrix().into_inner()
}

fn max_abs(a: impl IntoIterator<Item = f64>) -> f64 {
    a.into_iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Deviation of an IMU's reading from its frame `world_from_sensor` at rest under the
/// base's angular velocity `omega_base` (base axes) seen through `base_from_sensor`:
/// (|a − R⁻¹(0, 0, g)|, |ω − expected|, |R − expected|).
fn imu_errors(reading: &ImuReading, world_from_sensor: &Mat3, base_from_sensor: &Mat3, omega_base: Vec3) -> [f64; 3] {
    let expected_a = world_from_sensor.transpose() * Vec3::new(0.0, 0.0, G);
    let a = Vec3::from(reading.linear_acceleration);
    let omega = base_from_sensor.transpose() * omega_base;
    let r = quaternion_rotation(&reading.orientation);
    [
        (a - expected_a).norm(),
        (Vec3::from(reading.angular_velocity) - omega).norm(),
        max_abs((r - world_from_sensor).iter().copied()),
    ]
}

/// The quadruped standing on the hold PD, settled for 8 s with the contact tolerance at 1e-9 N·s: its base IMU reads the specific
/// force +g upwards (|a − g| < 5e-7 m/s²) and the base's angular velocity and orientation
/// (exactly, and to 4e-15); an IMU offset from the base (xyz, rpy) reads the same in its own axes.
#[test]
fn the_imu_of_the_standing_quadruped_reads_gravity_and_the_base_motion() {
    let offset_rpy = [0.3, -0.2, 0.5];
    let setup = setup_with(
        "config/quadruped.yaml",
        "imu:\n  - {name: base_imu, link: base}\n  - {name: tilted, link: base, xyz: [0.1, 0.05, 0.02], rpy: [0.3, -0.2, 0.5]}\n",
        // The default tolerance (1e-6 N·s) leaves the standing robot jittering at ~1e-4 m/s².
        |c| c.contact.tolerance = PositiveF64::new(SETTLED_TOLERANCE).unwrap(),
    );
    let mut run = Run::new(&setup, setup.sim_world().unwrap());
    let mut law = hold(&setup);
    let base_from_tilted = rotation_from_rpy(offset_rpy[0], offset_rpy[1], offset_rpy[2]);
    let mut worst = [[0.0f64; 3]; 2];
    for k in 0..9000 {
        run.step(&mut law);
        if k < 8000 {
            continue;
        }
        let r = run.world.robot.as_ref().unwrap();
        let world_from_base = quaternion_rotation(&r.q[3..7]);
        let omega_base = Vec3::new(r.v[3], r.v[4], r.v[5]);
        for (i, base_from_sensor) in [Mat3::identity(), base_from_tilted].iter().enumerate() {
            let reading = run.readings.imu[i];
            assert!(reading.fresh && reading.stamp_ns == run.world.time_ns());
            let e = imu_errors(&reading.value, &(world_from_base * base_from_sensor), base_from_sensor, omega_base);
            for (w, e) in worst[i].iter_mut().zip(e) {
                *w = w.max(e);
            }
        }
    }
    println!("worst |a - g|, |w - w_base|, |R - R_base| over 8-9 s: base {:?}, tilted {:?}", worst[0], worst[1]);
    // The floors are 1e-6 and 1e-9; the bounds are within 10x of the figures.
    for w in worst {
        assert!(w[0] < 5e-7, "|a - g| = {:e} m/s²", w[0]);
        assert!(w[1] == 0.0 && w[2] < 4e-15, "angular velocity {:e}, orientation {:e}", w[1], w[2]);
    }
}

/// Noise on: over 10 000 samples of the standing quadruped, each axis' sample standard
/// deviation is the configured one within 10 % (the sampling error is 0.7 %) and the mean
/// the bias within 4 standard errors; the noise-free twin at the same place gives the
/// true value.
#[test]
fn imu_noise_has_the_configured_standard_deviation_and_bias() {
    let setup = setup_with_sensors(
        "config/quadruped.yaml",
        "imu:\n  - {name: exact, link: base}\n  - {name: noisy, link: base, seed: 42, \
         gyro_noise: [0.01, 0.02, 0.005], gyro_bias: [0.001, -0.002, 0.003], \
         accel_noise: [0.1, 0.05, 0.2], accel_bias: [0.05, -0.1, 0.02]}\n",
    );
    let noisy = &setup.sensors.imu[1];
    let mut run = Run::new(&setup, setup.sim_world().unwrap());
    let mut law = hold(&setup);
    let n = 10_000;
    let mut errors: Vec<[f64; 6]> = Vec::with_capacity(n);
    for _ in 0..n {
        run.step(&mut law);
        let (exact, noisy) = (run.readings.imu[0].value, run.readings.imu[1].value);
        let mut e = [0.0; 6];
        for a in 0..3 {
            e[a] = noisy.angular_velocity[a] - exact.angular_velocity[a];
            e[3 + a] = noisy.linear_acceleration[a] - exact.linear_acceleration[a];
        }
        errors.push(e);
    }
    let configured: Vec<(f64, f64)> = (0..3)
        .map(|a| (noisy.gyro.std_dev[a], noisy.gyro.bias[a]))
        .chain((0..3).map(|a| (noisy.accel.std_dev[a], noisy.accel.bias[a])))
        .collect();
    let mut worst_ratio = 0.0f64;
    for (c, (sigma, bias)) in configured.iter().enumerate() {
        let mean = errors.iter().map(|e| e[c]).sum::<f64>() / n as f64;
        let std = (errors.iter().map(|e| (e[c] - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        worst_ratio = worst_ratio.max((std / sigma - 1.0).abs());
        println!("channel {c}: std {std:.5} (configured {sigma}), mean {mean:.5} (bias {bias})");
        assert!((std / sigma - 1.0).abs() < 0.1, "channel {c}: std {std}, configured {sigma}");
        assert!((mean - bias).abs() < 4.0 * sigma / (n as f64).sqrt(), "channel {c}: mean {mean}, bias {bias}");
    }
    println!("largest relative error of the standard deviation: {:.2} %", 100.0 * worst_ratio);
    let cov = noisy.gyro.covariance();
    assert_eq!([cov[0], cov[4], cov[8]], [1e-4, 4e-4, 0.005 * 0.005]);
    assert!(cov.iter().enumerate().all(|(k, c)| k % 4 == 0 || *c == 0.0));
}

/// The arm held at rest by its gravity torques: each joint force/torque sensor reads the
/// wrench of Pinocchio's RNEA (data.f of the joint, in the sensor frame) to 5e-14, whose
/// force is the weight of the links beyond the joint.
#[test]
fn the_force_torque_sensors_of_the_arm_at_rest_read_the_weight_beyond_them() {
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo("tests/fixtures/sensors/arm7_force_torque.json")).unwrap())
            .unwrap();
    let sensors = fixture["sensors"].as_array().unwrap();
    let entries: Vec<String> = sensors
        .iter()
        .map(|s| {
            format!(
                "  - {{name: {}, joint: {}, xyz: {}, rpy: {}, direction: {}}}\n",
                s["name"].as_str().unwrap(),
                s["joint"].as_str().unwrap(),
                s["xyz"],
                s["rpy"],
                s["direction"].as_str().unwrap()
            )
        })
        .collect();
    let setup = setup_with_sensors("config/arm7.yaml", &format!("force_torque:\n{}", entries.concat()));
    let world = setup.sim_world().unwrap();
    let q0: Vec<f64> = fixture["q"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(world.robot.as_ref().unwrap().q, q0, "the fixture's posture is the configuration's");
    let mut run = Run::new(&setup, world);
    let mut gravity = |w: &World, tau: &mut [f64]| {
        let r = w.robot.as_ref().unwrap();
        let mut data = signorini::model::Data::new(&r.model);
        tau.copy_from_slice(dynamics::gravity_torque(&r.model, &mut data, &q0).as_slice());
    };
    let mut worst = 0.0f64;
    for _ in 0..500 {
        run.step(&mut gravity);
        assert_eq!(run.readings.force_torque.len(), sensors.len(), "one reading per sensor of the fixture");
        for (reading, expected) in run.readings.force_torque.iter().zip(sensors) {
            let f = |key: &str| -> Vec<f64> {
                expected[key].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
            };
            let (force, torque) = (f("force"), f("torque"));
            let e =
                max_abs((0..3).flat_map(|a| [reading.value.force[a] - force[a], reading.value.torque[a] - torque[a]]));
            worst = worst.max(e);
            let weight = expected["subtree_mass"].as_f64().unwrap() * G;
            assert!((Vec3::from(reading.value.force).norm() - weight).abs() < 1e-6);
        }
    }
    println!("largest deviation from Pinocchio's RNEA over 0.5 s at rest: {worst:e}");
    // The floor is 1e-6; the bound within 10x of the figure (round-off).
    assert!(worst < 5e-14, "{worst:e}");
}

/// The lowest point (z, m) of each foot's sphere at the robot's configuration.
fn foot_heights(world: &mut World, feet: &[&str]) -> Vec<f64> {
    let r = world.robot.as_mut().unwrap();
    dynamics::forward_kinematics(&r.model, &mut r.data, &r.q);
    feet.iter()
        .map(|foot| {
            let g = r.model.collision_geometries.iter().find(|g| g.link == *foot).unwrap();
            let Shape::Sphere { radius } = g.shape else { panic!("{foot}: a sphere") };
            r.data.o_m_i[g.parent_joint].act_point(&g.placement.translation).z - radius
        })
        .collect()
}

/// Each foot's flag changes: (simulated time, the new flag, the foot's height then).
type Switches = Vec<Vec<(f64, bool, f64)>>;

const FEET: [&str; 4] = ["lf_foot", "lh_foot", "rf_foot", "rh_foot"];
const DEBOUNCE: f64 = 0.01;

/// The quadruped dropped from 0.3 m for 1.5 s, its posture held by `sim.hold_kp`/`hold_kd`
/// and its leg joints with viscous damping `leg_damping` (N·m·s/rad, as a URDF's
/// `<dynamics damping>`: taken implicitly by the stepper): each foot's flag changes, its
/// clearance at the start, and the largest specific force the base IMU read in free fall.
fn drop_quadruped(leg_damping: f64) -> (Switches, Vec<f64>, f64) {
    let entries: String =
        FEET.iter().map(|f| format!("    - {{link: {f}, threshold: 5, debounce: {DEBOUNCE}}}\n")).collect();
    let setup = setup_with_sensors(
        "config/quadruped.yaml",
        &format!("imu:\n  - {{name: base_imu, link: base}}\nfoot_contact:\n  feet:\n{entries}"),
    );
    let mut world = setup.sim_world().unwrap();
    let robot = world.robot.as_mut().unwrap();
    assert!(robot.model.frame_id("lf_foot", Some(FrameKind::Body)).is_some());
    robot.q[2] += 0.3;
    let model = std::sync::Arc::make_mut(&mut robot.model);
    for k in 6..model.nv {
        model.damping[k] += leg_damping;
    }
    let clearance = foot_heights(&mut world, &FEET);
    let mut run = Run::new(&setup, world);
    let mut law = hold(&setup);
    let mut switches: Switches = vec![Vec::new(); FEET.len()];
    let mut flags = [false; 4];
    let mut worst_free_fall = 0.0f64;
    for _ in 0..1500 {
        run.step(&mut law);
        let t = run.world.time;
        let heights = foot_heights(&mut run.world, &FEET);
        for (k, reading) in run.readings.foot_contact.iter().enumerate() {
            assert!(reading.fresh && reading.value.normal_force.is_finite());
            if reading.value.contact != flags[k] {
                flags[k] = reading.value.contact;
                switches[k].push((t, flags[k], heights[k]));
            }
        }
        if run.readings.foot_contact.iter().all(|c| c.value.normal_force == 0.0) && t < 0.2 {
            worst_free_fall = worst_free_fall.max(Vec3::from(run.readings.imu[0].value.linear_acceleration).norm());
        }
    }
    (switches, clearance, worst_free_fall)
}

/// Each foot's first switch is on, at the free-fall touchdown time √(2h/g) of its
/// clearance h plus the debounce, within 2 ms (printed).
fn assert_touchdowns(switches: &Switches, clearance: &[f64]) {
    for (k, foot) in FEET.iter().enumerate() {
        let touchdown = (2.0 * clearance[k] / G).sqrt();
        let (t, on, _) = switches[k][0];
        let late = t - (touchdown + DEBOUNCE);
        println!(
            "{foot}: h = {:.4} m, on at {t:.3} s, touchdown + debounce {:.4} s: {:+.2} ms; switches (t, on, foot height) {:?}",
            clearance[k],
            touchdown + DEBOUNCE,
            late * 1e3,
            switches[k]
        );
        assert!(on && late.abs() <= 0.002, "{foot}: {late} s off");
    }
}

/// Issue 24's drop: the quadruped dropped from 0.3 m with drives that have a little
/// viscous friction (5 N·m·s/rad on each leg joint, as a URDF's `<dynamics damping>`)
/// lands and stays down: each foot's flag switches exactly once, on, within 2 ms of the
/// free-fall touchdown time plus the debounce (measured 0.30 ms early); its IMU reads free
/// fall (specific force 0) until then.
#[test]
fn the_foot_contacts_of_the_dropped_quadruped_switch_once_at_touchdown() {
    let (switches, clearance, worst_free_fall) = drop_quadruped(5.0);
    assert!(worst_free_fall < 5e-13, "free fall reads {worst_free_fall}");
    println!("free fall: |a| <= {worst_free_fall:e} m/s²");
    assert_touchdowns(&switches, &clearance);
    for (k, foot) in FEET.iter().enumerate() {
        assert_eq!(switches[k].len(), 1, "{foot} switched more than once: {:?}", switches[k]);
    }
}

/// Without joint damping, the posture hold (`sim.hold_kd` is explicit, so it cannot damp
/// the loaded legs much) lets the robot hop after landing: its front feet leave the ground
/// for about 0.3 s. The flags follow the motion, never chatter: every later switch is a
/// real lift-off (the foot more than 0.1 mm above the ground when its flag turns off) or
/// landing (within the 5 mm contact margin when it turns on), no two closer than the
/// debounce.
#[test]
fn the_foot_contacts_of_a_hopping_quadruped_follow_its_feet() {
    let (switches, clearance, _) = drop_quadruped(0.0);
    assert_touchdowns(&switches, &clearance);
    assert!(switches.iter().any(|s| s.len() > 1), "it hops: {switches:?}");
    for (k, foot) in FEET.iter().enumerate() {
        for (&(t0, _, _), &(t1, on, z)) in switches[k].iter().zip(&switches[k][1..]) {
            assert!(t1 - t0 > DEBOUNCE, "{foot}: switches {t0} and {t1} closer than the debounce");
            assert!(if on { z < 0.005 } else { z > 1e-4 }, "{foot} at {t1} s: on {on} at height {z}");
        }
    }
}

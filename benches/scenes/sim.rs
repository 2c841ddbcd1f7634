//! Simulation scenes shared by tests/sim_scenarios.rs, tests/sim_robots.rs,
//! examples/sim_timing.rs and examples/sim_accuracy.rs: the analytic free-body scenes
//! (a cube on an incline, a ton on a gram) and the robots standing under a joint PD.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use signorini::app::Setup;
use signorini::collision::{CollisionShape, FreeBodyShape};
use signorini::config::{CollisionConfig, EnvironmentConfig};
use signorini::model::{FreeBody, FreeBodyState, Model, ModelOptions, Srdf};
use signorini::sim::{JointPd, Robot, Stepper, World};
use signorini::spatial::{SE3, Vec3, rotation_from_rpy};

#[path = "contact.rs"]
pub mod contact_scenes;

/// A world with a ground plane of `normal` (through the origin), friction μ and
/// restitution e, and no robot.
pub fn ground(normal: Vec3, mu: f64, e: f64) -> World {
    let yaml =
        format!("ground: {{normal: [{}, {}, {}], friction: {mu}, restitution: {e}}}", normal.x, normal.y, normal.z);
    let env: EnvironmentConfig = serde_yaml_ng::from_str(&yaml).unwrap();
    World::new(None, &env.description(), &CollisionConfig::default().settings()).unwrap()
}

/// A free body's shape in its frame, taking its partner's friction and no restitution.
pub fn shape(name: &str, s: CollisionShape) -> FreeBodyShape {
    FreeBodyShape {
        name: name.into(),
        shape: Arc::new(s),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    }
}

/// Adds a uniform cube of `mass` and half side `half` at rest at `pose`; returns its index.
pub fn cube(world: &mut World, name: &str, mass: f64, half: f64, pose: SE3) -> usize {
    let body = FreeBody::cuboid(name, mass, &Vec3::repeat(half)).unwrap();
    world.add_body(body, &[shape(name, CollisionShape::cuboid(Vec3::repeat(half)))], FreeBodyState::at_rest(pose))
}

/// World-frame linear velocity of free body `b`.
pub fn velocity(world: &World, b: usize) -> Vec3 {
    world.states[b].pose.rotation * world.states[b].velocity.linear
}

/// AT-07: a 1 kg cube of side 0.2 resting on a plane through the origin tilted by θ about
/// y (downhill +x), friction μ. Returns the world, the cube and the downhill direction.
pub fn incline(theta_deg: f64, mu: f64) -> (World, usize, Vec3) {
    let theta = theta_deg.to_radians();
    let n = Vec3::new(theta.sin(), 0.0, theta.cos());
    let mut world = ground(n, mu, 0.0);
    let pose = SE3::new(rotation_from_rpy(0.0, theta, 0.0), n * 0.1);
    let b = cube(&mut world, "cube", 1.0, 0.1, pose);
    (world, b, Vec3::new(theta.cos(), 0.0, -theta.sin()))
}

/// Signed distance of a cube's lowest corner (half side `half`) from the plane through
/// the origin of unit normal `n`: > 0 above it, < 0 penetrating.
pub fn cube_gap(world: &World, b: usize, half: f64, n: &Vec3) -> f64 {
    let pose = &world.states[b].pose;
    let mut lowest = f64::INFINITY;
    for corner in 0..8 {
        let s = |bit: usize| if corner & bit == 0 { -half } else { half };
        let p = pose.translation + pose.rotation * Vec3::new(s(1), s(2), s(4));
        lowest = lowest.min(p.dot(n));
    }
    lowest
}

/// AT-09: a 1000 kg cube on a 1 g cube on the ground (μ 0.5), both of side 0.1, at rest
/// exactly on each other. Returns the world and the heavy cube (its centre starts at
/// z = 0.15).
pub fn heavy_on_light() -> (World, usize) {
    let mut world = ground(Vec3::z(), 0.5, 0.0);
    cube(&mut world, "light", 1e-3, 0.05, SE3::from_translation(Vec3::new(0.0, 0.0, 0.05)));
    let heavy = cube(&mut world, "heavy", 1e3, 0.05, SE3::from_translation(Vec3::new(0.0, 0.0, 0.15)));
    (world, heavy)
}

/// Σ of the last step's contact impulses in the world frame (N·s).
pub fn total_impulse(stepper: &Stepper) -> Vec3 {
    let mut total = Vec3::zeros();
    for (i, c) in stepper.contacts().contacts().iter().enumerate() {
        let l = &stepper.impulses()[3 * i..3 * i + 3];
        total += c.frame * Vec3::new(l[0], l[1], l[2]);
    }
    total
}

/// solo12 (example-robot-data under `share`, convex-hull collisions) at its SRDF
/// `standing` posture, lowered until its lowest collision shape touches the ground;
/// returns the world and that configuration (the PD reference).
pub fn solo12_standing(share: &Path) -> (World, Vec<f64>) {
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.to_owned()], ..Default::default() };
    let model = Model::from_urdf_file(&robots.join("robots/solo12.urdf"), &options).unwrap();
    let q = Srdf::from_file(&robots.join("srdf/solo.srdf")).unwrap().configuration(&model, "standing").unwrap();
    let robot = Robot::new(model, q.as_slice().to_vec());
    let mut world =
        World::new(Some(robot), &EnvironmentConfig::default().description(), &CollisionConfig::default().settings())
            .unwrap();
    world.place_robot_on(0.0);
    let reference = world.robot.as_ref().unwrap().q.clone();
    (world, reference)
}

/// The bundled quadruped as config/quadruped.yaml simulates it (its URDF, initial posture
/// and environment; without the crate), its feet `lift` metres above the ground. Returns
/// the world, the configuration with the feet exactly on the ground (the contact fixture
/// quadruped_standing's, which the Pinocchio cross-checks share) and the gains (kp, kd) of the configured posture
/// hold `sim.hold_kp`, `sim.hold_kd`.
pub fn quadruped(lift: f64) -> (World, Vec<f64>, (f64, f64)) {
    let setup = Setup::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml"), None).unwrap();
    let reference: Vec<f64> =
        serde_json::from_value(contact_scenes::fixture("quadruped_standing")["robot"]["q"].clone()).unwrap();
    assert_eq!(reference[3..], setup.initial_configuration()[3..], "the fixture's posture is the configured one");
    let mut q = reference.clone();
    q[2] += lift;
    let robot = Robot::new(setup.model.clone(), q);
    let world =
        World::new(Some(robot), &setup.config.environment.description(), &setup.config.collision.settings()).unwrap();
    (world, reference, (setup.config.sim.hold_kp.get(), setup.config.sim.hold_kd.get()))
}

/// The joint PD of every joint but the floating base towards `reference`.
pub fn hold(world: &World, reference: &[f64], kp: f64, kd: f64) -> JointPd {
    JointPd::new(&world.robot.as_ref().unwrap().model, reference.to_vec(), kp, kd)
}

/// τ of `hold` at the robot's state.
pub fn pd(world: &World, hold: &mut JointPd, tau: &mut [f64]) {
    let r = world.robot.as_ref().unwrap();
    hold.torques(&r.model, &r.q, &r.v, tau);
}

//! Simulated worlds: the analytic free-body scenes of the design notes (a cube on an
//! incline, a ton on a gram, seed 000's wall) and robots standing on the ground under a
//! joint PD; with the measures the tests and the suite take of them.

use std::sync::Arc;

use crate::collision::{CollisionShape, Environment, FreeBodyShape, Ground};
use crate::model::{FreeBody, FreeBodyError, FreeBodyState, Model};
use crate::sim::{JointPd, Robot, Stepper, World};
use crate::spatial::{SE3, Vec3, rotation_from_rpy};

use super::{Cube, SceneError, Sources, problems, robots};

/// The gains (kp, kd) of the bundled quadruped's posture hold: config/quadruped.yaml's
/// `sim.hold_kp`, `sim.hold_kd` (tests/sim_robots.rs checks that they agree).
pub const QUADRUPED_HOLD: (f64, f64) = (200.0, 5.0);

/// A world with a robot, the configuration its joint PD holds and the PD's gains (kp, kd).
pub type Held = (World, Vec<f64>, (f64, f64));

/// A world with a ground plane of `normal` (through the origin), friction μ and
/// restitution e, and no robot.
///
/// # Panics
///
/// If μ or e is negative or not finite, or the normal is zero.
pub fn ground(normal: Vec3, mu: f64, e: f64) -> World {
    assert!(mu >= 0.0 && mu.is_finite() && e >= 0.0 && e.is_finite(), "friction {mu}, restitution {e}");
    let ground = Ground { height: 0.0, normal, friction: mu, restitution: e };
    let environment = Environment { ground: Some(ground), obstacles: Vec::new() };
    World::new(None, &environment, &Default::default()).expect("a world without robot")
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
///
/// # Panics
///
/// On a non-positive mass or size.
pub fn cube(world: &mut World, name: &str, mass: f64, half: f64, pose: SE3) -> usize {
    let body = FreeBody::cuboid(name, mass, &Vec3::repeat(half)).expect("a valid cube");
    world.add_body(body, &[shape(name, CollisionShape::cuboid(Vec3::repeat(half)))], FreeBodyState::at_rest(pose))
}

/// The vertices of a 0.24 × 0.12 × 0.1 m block whose sole bulges 1.5 mm down at its
/// middle (a 7 × 5 grid, flat top), as talos's hull soles do (their 20 lowest vertices span
/// 1 mm of height): a hull that rests on a few of its sole's vertices and rocks onto others
/// (tests/sim_scenarios.rs).
pub fn bulging_sole() -> Vec<Vec3> {
    let mut points = Vec::new();
    for i in 0..7 {
        for j in 0..5 {
            let (x, y) = (-0.12 + 0.04 * f64::from(i), -0.06 + 0.03 * f64::from(j));
            let bulge = 0.0015 * (1.0 - (x / 0.12).powi(2)) * (1.0 - (y / 0.06).powi(2));
            points.push(Vec3::new(x, y, -0.05 - bulge));
            points.push(Vec3::new(x, y, 0.05));
        }
    }
    points
}

/// Adds `cubes` (axis-aligned, at rest); returns the index of the last one.
fn cubes(world: &mut World, cubes: &[Cube]) -> usize {
    let mut last = 0;
    for (k, c) in cubes.iter().enumerate() {
        last = cube(world, &format!("cube{k}"), c.mass, c.half, SE3::from_translation(c.centre));
    }
    last
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

/// A cube of `top` kg on a cube of `bottom` kg on the ground (μ 0.5), both of side 0.1,
/// at rest exactly on each other ([`super::cube_on_cube`]). Returns the world and the top
/// cube (its centre starts at z = 0.15).
pub fn cube_on_cube(bottom: f64, top: f64) -> (World, usize) {
    let mut world = ground(Vec3::z(), 0.5, 0.0);
    let top = cubes(&mut world, &super::cube_on_cube(bottom, top));
    (world, top)
}

/// AT-09: a 1000 kg cube on a 1 g cube ([`cube_on_cube`]).
pub fn heavy_on_light() -> (World, usize) {
    cube_on_cube(1e-3, 1e3)
}

/// Seed 000's wall on the ground (μ 0.5) and the ball landing on it ([`super::wall`]).
/// Returns the world and the top cube.
pub fn cube_wall() -> (World, usize) {
    let mut world = ground(Vec3::z(), 0.5, 0.0);
    let (wall, ball) = super::wall();
    let top = cubes(&mut world, &wall);
    let body = FreeBody::ball("ball", ball.mass, ball.radius).expect("a valid ball");
    let mut state = FreeBodyState::at_rest(SE3::from_translation(ball.centre));
    state.velocity.linear = Vec3::new(0.0, 0.0, ball.speed);
    world.add_body(body, &[shape("ball", CollisionShape::sphere(ball.radius))], state);
    (world, top)
}

/// `count` cubes of 1 kg (side 0.1 m) resting on the ground (μ 0.8) in the grid of
/// [`super::grid`].
pub fn boxes(count: usize) -> World {
    let mut world = ground(Vec3::z(), 0.8, 0.0);
    for k in 0..count {
        cube(&mut world, &format!("box{k}"), 1.0, 0.05, SE3::from_translation(super::grid(k, 0.05)));
    }
    world
}

/// Boxes of `mass` kg and half side `half` at rest at the poses `[x, y, z, yaw]` (m, rad)
/// on the ground, friction μ between each other and with the ground (the piles of
/// scripts/bench_scale.py and bench_sim.py's dynamic suite).
///
/// # Panics
///
/// On a non-positive mass or size, or a negative μ.
pub fn box_layout(boxes: &[[f64; 4]], mass: f64, half: f64, mu: f64) -> World {
    let mut world = ground(Vec3::z(), mu, 0.0);
    add_boxes(&mut world, boxes, mass, half, mu).expect("a valid box");
    world
}

/// Adds to `world` boxes `box0`, `box1`, … of `mass` kg and half side `half` at rest at
/// the poses `[x, y, z, yaw]` (m, rad), their shapes' friction μ; refuses a non-positive
/// mass or size.
pub fn add_boxes(world: &mut World, boxes: &[[f64; 4]], mass: f64, half: f64, mu: f64) -> Result<(), FreeBodyError> {
    for (k, [x, y, z, yaw]) in boxes.iter().copied().enumerate() {
        let name = format!("box{k}");
        let body = FreeBody::cuboid(&name, mass, &Vec3::repeat(half))?;
        let mut shape = shape(&name, CollisionShape::cuboid(Vec3::repeat(half)));
        shape.friction = mu;
        let pose = SE3::new(rotation_from_rpy(0.0, 0.0, yaw), Vec3::new(x, y, z));
        world.add_body(body, &[shape], FreeBodyState::at_rest(pose));
    }
    Ok(())
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

/// `model` at `q` on the default ground, lowered (or raised) until its lowest collision
/// shape touches it (a floating base; a fixed base stays). Returns the world and the
/// configuration it ends at (the PD reference).
pub fn standing(scene: &str, model: Model, q: Vec<f64>) -> Result<(World, Vec<f64>), SceneError> {
    let robot = Robot::new(model, q);
    let mut world =
        World::new(Some(robot), &Default::default(), &Default::default()).map_err(|e| SceneError::new(scene, e))?;
    world.place_robot_on(0.0);
    let reference = world.robot.as_ref().map(|r| r.q.clone()).unwrap_or_default();
    Ok((world, reference))
}

/// solo12 ([`robots::solo12`]) at its SRDF `standing` posture, [`standing`] on the ground.
pub fn solo12_standing(sources: &Sources) -> Result<(World, Vec<f64>), SceneError> {
    let (model, q) = robots::solo12(sources)?;
    standing("solo12", model, q)
}

/// The bundled quadruped as config/quadruped.yaml simulates it (its URDF, initial posture
/// and environment), its feet `lift` metres above the ground. Returns the world, the
/// configuration with the feet exactly on the ground (the contact fixture
/// quadruped_standing's, which the Pinocchio cross-checks share: see
/// [`problems::quadruped_standing`]) and the gains [`QUADRUPED_HOLD`].
pub fn quadruped(sources: &Sources, lift: f64) -> Result<Held, SceneError> {
    let (model, reference) = problems::quadruped_standing(sources)?;
    let mut q = reference.clone();
    q[2] += lift;
    let world = World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default())
        .map_err(|e| SceneError::new("quadruped", e))?;
    Ok((world, reference, QUADRUPED_HOLD))
}

/// The joint PD of every joint but the floating base towards `reference`.
///
/// # Panics
///
/// If the world has no robot.
pub fn hold(world: &World, reference: &[f64], kp: f64, kd: f64) -> JointPd {
    JointPd::new(&world.robot.as_ref().expect("a robot").model, reference.to_vec(), kp, kd)
}

/// τ of `hold` at the robot's state (nothing without a robot).
pub fn pd(world: &World, hold: &mut JointPd, tau: &mut [f64]) {
    if let Some(r) = world.robot.as_ref() {
        hold.torques(&r.model, &r.q, &r.v, tau);
    }
}

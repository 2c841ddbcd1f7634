//! The scenes of the comparative benchmark (issue 9; seed 002 §IV and the acceptance
//! scenarios of the design notes), each with what it measures against its analytic answer
//! where it has one:
//!
//! | name | scene | its own measures (reference) |
//! |---|---|---|
//! | `slide` | a 1 kg cube of side 0.2 m sliding at 1 m/s, 30° off the frame's axes (μ 0.5) | heading error (0), largest gap while sliding (0: the CCP glides at Δt·μ‖v‖), stop time (u/(μg), AT-04) |
//! | `incline-stick` | the cube at rest on a 20° incline, μ 0.5 > tan 20° | creep down the slope (0) |
//! | `incline-slide` | the cube on a 35° incline, μ 0.5 < tan 35° | distance against a·Δt²N(N+1)/2 with a = g(sin θ − μ cos θ) (AT-07), steps without contact (0) |
//! | `dragged-cube` | the cube pulled by F = 20 t N through its centre, μ 0.4 (AT-06) | time it slides at 1 mm/s (t_s + 10 ms, t_s = μmg/20), distance slid from then to 1 s, internal forces before (0) |
//! | `stack-1`, `stack-1e3`, `stack-1e6` | a cube of 1, 10³ or 10⁶ kg on a 1 kg cube (AT-09's ratios) | the top cube's sink (0) |
//! | `cube-wall` | seed 000's wall: 15 cubes of 1 to 10⁴ kg, a 10³ kg ball landing at 1 m/s (AT-10) | the top cube's sink (0) |
//! | `quadruped-standing`, `quadruped-pushed` | the bundled quadruped under its joint PD for 2 s; pushed sideways by 20 N from 1 s | contact force / weight − 1 over the last 0.1 s (0, standing) |
//! | `solo12-standing`, `solo12-pushed` | solo12 (example-robot-data) under a joint PD; pushed by 10 N from 1 s (seed 002 §IV-C) | the same |
//! | `talos-falling` | talos (example-robot-data), unactuated, released upright | — |
//! | `boxes-100` | 100 cubes of 1 kg resting on a plane | the deepest sink (0) |
//!
//! Every scene also measures the seed 002 trajectory error against the reference run
//! (see [`super::run`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::collision::{CollisionShape, FreeBodyShape};
use crate::config::{CollisionConfig, EnvironmentConfig};
use crate::model::{FreeBody, FreeBodyState, MimicPolicy, Model, ModelOptions, Srdf};
use crate::sim::{JointPd, Robot, Stepper, World};
use crate::spatial::{Force, SE3, Vec3, rotation_from_rpy};

use super::BenchError;

/// Gravity (m/s²), the simulator's.
fn g0() -> f64 {
    -Model::default_gravity().linear.z
}

/// Where a scenario finds its robots.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The directory holding `urdf/quadruped.urdf` (the repository, or the package's share).
    pub robots: PathBuf,
    /// The `share` directory of the pip package example-robot-data, if found.
    pub example_robot_data: Option<PathBuf>,
}

/// One scenario-specific measure: its value and, where the scene has one, the analytic
/// answer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    /// What is measured, with its unit.
    pub name: &'static str,
    /// The measured value (NaN: did not happen, e.g. never stopped).
    pub value: f64,
    /// The analytic value.
    pub reference: Option<f64>,
}

/// What drives a scene and what it observes, step by step.
pub trait Script: Send {
    /// Before a step at `world.time`: the robot's joint forces (nv) and the external wrenches.
    fn drive(&mut self, world: &mut World, tau: &mut [f64]);
    /// After the step.
    fn observe(&mut self, world: &World, stepper: &Stepper);
    /// The scene's own measures at the end.
    fn outcomes(&self, world: &World) -> Vec<Outcome>;
}

/// A scene ready to run.
pub struct Scene {
    /// What is simulated.
    pub world: World,
    /// What drives and observes it.
    pub script: Box<dyn Script>,
}

/// A named scenario of the benchmark.
#[derive(Copy, Clone)]
pub struct Scenario {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line for the report.
    pub about: &'static str,
    /// Simulated time (s).
    pub duration: f64,
    build: fn(&Sources) -> Result<Scene, BenchError>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Scenario {
    /// Builds its scene.
    pub fn build(&self, sources: &Sources) -> Result<Scene, BenchError> {
        (self.build)(sources)
    }
}

/// Every scenario, in the report's order.
pub const ALL: [Scenario; 14] = [
    Scenario {
        name: "slide",
        about: "1 kg cube (0.2 m) sliding at 1 m/s, 30° off the axes, μ 0.5",
        duration: 0.3,
        build: slide,
    },
    Scenario {
        name: "incline-stick",
        about: "the cube at rest on a 20° incline, μ 0.5",
        duration: 0.5,
        build: |_| incline(20.0),
    },
    Scenario {
        name: "incline-slide",
        about: "the cube on a 35° incline, μ 0.5",
        duration: 0.5,
        build: |_| incline(35.0),
    },
    Scenario {
        name: "dragged-cube",
        about: "the cube pulled by 20·t N through its centre, μ 0.4 (AT-06)",
        duration: 1.0,
        build: dragged_cube,
    },
    Scenario { name: "stack-1", about: "1 kg cube on a 1 kg cube", duration: 0.2, build: |_| stack(1.0) },
    Scenario { name: "stack-1e3", about: "10³ kg cube on a 1 kg cube", duration: 0.2, build: |_| stack(1e3) },
    Scenario { name: "stack-1e6", about: "10⁶ kg cube on a 1 kg cube", duration: 0.2, build: |_| stack(1e6) },
    Scenario {
        name: "cube-wall",
        about: "15 cubes of 1 to 10⁴ kg, a 10³ kg ball landing at 1 m/s (seed 000 Fig. 1)",
        duration: 0.1,
        build: cube_wall,
    },
    Scenario {
        name: "quadruped-standing",
        about: "the bundled quadruped (12 dof, 17.8 kg) standing under its joint PD",
        duration: 2.0,
        build: |s| quadruped(s, 0.0),
    },
    Scenario {
        name: "quadruped-pushed",
        about: "the same, pushed sideways by 20 N on its trunk from 1 s",
        duration: 2.0,
        build: |s| quadruped(s, 20.0),
    },
    Scenario {
        name: "solo12-standing",
        about: "solo12 (example-robot-data, convex-hull feet) standing under a joint PD",
        duration: 2.0,
        build: |s| solo12(s, 0.0),
    },
    Scenario {
        name: "solo12-pushed",
        about: "the same, pushed sideways by 10 N on its trunk from 1 s (seed 002 §IV-C)",
        duration: 2.0,
        build: |s| solo12(s, 10.0),
    },
    Scenario {
        name: "talos-falling",
        about: "talos (example-robot-data, 38 dof) released upright, unactuated",
        duration: 0.5,
        build: talos_falling,
    },
    Scenario { name: "boxes-100", about: "100 cubes of 1 kg resting on a plane", duration: 0.05, build: boxes },
];

/// The scenario of that name.
pub fn by_name(name: &str) -> Option<Scenario> {
    ALL.into_iter().find(|s| s.name == name)
}

fn scene_error(scenario: &str, e: impl std::fmt::Display) -> BenchError {
    BenchError::Scene { scenario: scenario.to_owned(), message: e.to_string() }
}

/// A world without robot on a ground plane through the origin of unit normal `n`, friction μ.
fn ground(scenario: &str, n: Vec3, mu: f64) -> Result<World, BenchError> {
    let yaml = format!("ground: {{normal: [{}, {}, {}], friction: {mu}}}", n.x, n.y, n.z);
    let env: EnvironmentConfig = serde_yaml_ng::from_str(&yaml).map_err(|e| scene_error(scenario, e))?;
    World::new(None, &env.description(), &CollisionConfig::default().settings()).map_err(|e| scene_error(scenario, e))
}

/// Adds a uniform cube (half side `half`) at `pose` moving at `velocity` (world); its
/// friction defers to what it touches. Returns its index.
fn cube(world: &mut World, name: &str, mass: f64, half: f64, pose: SE3, velocity: Vec3) -> Result<usize, BenchError> {
    let body = FreeBody::cuboid(name, mass, &Vec3::repeat(half)).map_err(|e| scene_error(name, e.reason))?;
    let shape = FreeBodyShape {
        name: name.to_owned(),
        shape: Arc::new(CollisionShape::cuboid(Vec3::repeat(half))),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    };
    let mut state = FreeBodyState::at_rest(pose);
    state.velocity.linear = pose.rotation.transpose() * velocity;
    Ok(world.add_body(body, &[shape], state))
}

/// Signed distance of a cube's lowest corner above the plane through the origin of
/// normal `n`.
fn cube_gap(world: &World, b: usize, half: f64, n: &Vec3) -> f64 {
    let pose = &world.states[b].pose;
    (0..8)
        .map(|corner| {
            let s = |bit: usize| if corner & bit == 0 { -half } else { half };
            (pose.translation + pose.rotation * Vec3::new(s(1), s(2), s(4))).dot(n)
        })
        .fold(f64::INFINITY, f64::min)
}

/// World-frame linear velocity of free body `b`.
fn velocity(world: &World, b: usize) -> Vec3 {
    world.states[b].pose.rotation * world.states[b].velocity.linear
}

/// Nothing to drive.
fn idle(_: &mut World, _: &mut [f64]) {}

/// A script from a driver and an observer over a state `S`.
struct Scripted<S, D, O, E>
where
    D: FnMut(&mut S, &mut World, &mut [f64]),
    O: FnMut(&mut S, &World, &Stepper),
    E: Fn(&S, &World) -> Vec<Outcome>,
{
    state: S,
    drive: D,
    observe: O,
    outcomes: E,
}

impl<S: Send, D, O, E> Script for Scripted<S, D, O, E>
where
    D: FnMut(&mut S, &mut World, &mut [f64]) + Send,
    O: FnMut(&mut S, &World, &Stepper) + Send,
    E: Fn(&S, &World) -> Vec<Outcome> + Send,
{
    fn drive(&mut self, world: &mut World, tau: &mut [f64]) {
        (self.drive)(&mut self.state, world, tau)
    }
    fn observe(&mut self, world: &World, stepper: &Stepper) {
        (self.observe)(&mut self.state, world, stepper)
    }
    fn outcomes(&self, world: &World) -> Vec<Outcome> {
        (self.outcomes)(&self.state, world)
    }
}

fn script<S: Send + 'static>(
    state: S,
    drive: impl FnMut(&mut S, &mut World, &mut [f64]) + Send + 'static,
    observe: impl FnMut(&mut S, &World, &Stepper) + Send + 'static,
    outcomes: impl Fn(&S, &World) -> Vec<Outcome> + Send + 'static,
) -> Box<dyn Script> {
    Box::new(Scripted { state, drive, observe, outcomes })
}

/// AT-04/05/11 on a cube: the NCP keeps the heading and stops at u/(μg) on the ground; the
/// CCP glides above it; the pyramid LCP veers.
fn slide(_: &Sources) -> Result<Scene, BenchError> {
    let (mu, speed, heading) = (0.5, 1.0, 30f64.to_radians());
    let mut world = ground("slide", Vec3::z(), mu)?;
    let v0 = Vec3::new(heading.cos(), heading.sin(), 0.0) * speed;
    let b = cube(&mut world, "cube", 1.0, 0.1, SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)), v0)?;
    struct State {
        glide: f64,
        stop: f64,
    }
    let state = State { glide: 0.0, stop: f64::NAN };
    let stop_time = speed / (mu * g0());
    Ok(Scene {
        world,
        script: script(
            state,
            |_, w, t| idle(w, t),
            move |s, w, _| {
                let v = velocity(w, b);
                if v.x.hypot(v.y) > 1e-6 {
                    s.glide = s.glide.max(cube_gap(w, b, 0.1, &Vec3::z()));
                } else if s.stop.is_nan() {
                    s.stop = w.time;
                }
            },
            move |s, w| {
                let p = w.states[b].pose.translation;
                let error = (p.y.atan2(p.x) - heading).abs().to_degrees();
                vec![
                    Outcome { name: "heading error (°)", value: error, reference: Some(0.0) },
                    Outcome { name: "largest gap while sliding (mm)", value: 1e3 * s.glide, reference: Some(0.0) },
                    Outcome { name: "stop time (s)", value: s.stop, reference: Some(stop_time) },
                ]
            },
        ),
    })
}

/// AT-07: a cube on an incline of `degrees` with μ 0.5 (sticks below atan 0.5 = 26.6°).
fn incline(degrees: f64) -> Result<Scene, BenchError> {
    let (theta, mu) = (degrees.to_radians(), 0.5);
    let name = if theta.tan() < mu { "incline-stick" } else { "incline-slide" };
    let n = Vec3::new(theta.sin(), 0.0, theta.cos());
    let mut world = ground(name, n, mu)?;
    let pose = SE3::new(rotation_from_rpy(0.0, theta, 0.0), n * 0.1);
    let b = cube(&mut world, "cube", 1.0, 0.1, pose, Vec3::zeros())?;
    let downhill = Vec3::new(theta.cos(), 0.0, -theta.sin());
    let start = pose.translation;
    let a = g0() * (theta.sin() - mu * theta.cos());
    struct State {
        airborne: usize,
        steps: usize,
        dt: f64,
    }
    Ok(Scene {
        world,
        script: script(
            State { airborne: 0, steps: 0, dt: 0.0 },
            |_, w, t| idle(w, t),
            move |s, w, stepper| {
                s.steps += 1;
                s.dt = stepper.dt;
                if stepper.impulses().iter().all(|&x| x == 0.0) {
                    s.airborne += 1;
                }
                let _ = w;
            },
            move |s, w| {
                let travelled = (w.states[b].pose.translation - start).dot(&downhill);
                if a <= 0.0 {
                    vec![Outcome { name: "creep down the slope (mm)", value: 1e3 * travelled, reference: Some(0.0) }]
                } else {
                    let n = s.steps as f64;
                    let exact = a * s.dt * s.dt * n * (n + 1.0) / 2.0;
                    vec![
                        Outcome { name: "distance down the slope (m)", value: travelled, reference: Some(exact) },
                        Outcome { name: "steps without contact force", value: s.airborne as f64, reference: Some(0.0) },
                    ]
                }
            },
        ),
    })
}

/// AT-06: a cube pulled by F = 20·t N along x through its centre, μ 0.4: sticks until
/// t_s = μmg/20, then slides with v = 10(t − t_s)² (a = 20(t − t_s)/m); no internal forces.
/// Sliding is told from creep (a solver at a loose tolerance lets a sticking contact move
/// by about its tolerance) at 1 mm/s, which the exact motion reaches at
/// t_s + √(2m·10⁻³/20) = t_s + 10 ms; the distance slid is measured from then.
fn dragged_cube(_: &Sources) -> Result<Scene, BenchError> {
    let (mu, mass, rate, sliding) = (0.4, 1.0, 20.0, 1e-3);
    let mut world = ground("dragged-cube", Vec3::z(), mu)?;
    let b = cube(&mut world, "cube", mass, 0.1, SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)), Vec3::zeros())?;
    let slip_time = mu * mass * g0() / rate;
    let sliding_time = slip_time + (2.0 * mass * sliding / rate).sqrt();
    struct State {
        slip: f64,
        x_slip: f64,
        internal: f64,
    }
    Ok(Scene {
        world,
        script: script(
            State { slip: f64::NAN, x_slip: f64::NAN, internal: 0.0 },
            move |_, w, _| w.wrenches[b] = Force { linear: Vec3::new(rate * w.time, 0.0, 0.0), angular: Vec3::zeros() },
            move |s, w, stepper| {
                if s.slip.is_nan() {
                    if velocity(w, b).x > sliding {
                        s.slip = w.time;
                        s.x_slip = w.states[b].pose.translation.x;
                    } else {
                        // Σ |f_y| of the four contacts: zero without internal forces.
                        let mut sum = 0.0;
                        for (i, c) in stepper.contacts().contacts().iter().enumerate() {
                            let l = &stepper.impulses()[3 * i..3 * i + 3];
                            sum += (c.frame * Vec3::new(l[0], l[1], l[2])).y.abs() / stepper.dt;
                        }
                        s.internal = s.internal.max(sum);
                    }
                }
            },
            move |s, w| {
                let slid = w.states[b].pose.translation.x - s.x_slip;
                let travel = |t: f64| rate / (6.0 * mass) * (t - slip_time).powi(3);
                let exact = travel(w.time) - travel(sliding_time);
                vec![
                    Outcome { name: "sliding at 1 mm/s from (s)", value: s.slip, reference: Some(sliding_time) },
                    Outcome { name: "distance slid since (m)", value: slid, reference: Some(exact) },
                    Outcome { name: "internal forces before, Σ|f_y| (N)", value: s.internal, reference: Some(0.0) },
                ]
            },
        ),
    })
}

/// Records the largest sink of body `b` below its start (mm).
fn sink_of(b: usize, start: f64) -> Box<dyn Script> {
    script(
        0.0f64,
        |_, w, t| idle(w, t),
        move |s, w, _| *s = s.max(start - w.states[b].pose.translation.z),
        |s, _| vec![Outcome { name: "sink of the top cube (mm)", value: 1e3 * *s, reference: Some(0.0) }],
    )
}

/// AT-09: a cube of `top` kg on a 1 kg cube (side 0.1 m) on the ground, μ 0.5.
fn stack(top: f64) -> Result<Scene, BenchError> {
    let mut world = ground("stack", Vec3::z(), 0.5)?;
    cube(&mut world, "bottom", 1.0, 0.05, SE3::from_translation(Vec3::new(0.0, 0.0, 0.05)), Vec3::zeros())?;
    let b = cube(&mut world, "top", top, 0.05, SE3::from_translation(Vec3::new(0.0, 0.0, 0.15)), Vec3::zeros())?;
    Ok(Scene { world, script: sink_of(b, 0.15) })
}

/// Seed 000 Fig. 1: rows of 5, 4, 3, 2, 1 cubes (side 0.1 m), each straddling two below,
/// 10^row kg, and a 10³ kg ball (radius 0.1 m) touching the top at 1 m/s downwards.
fn cube_wall(_: &Sources) -> Result<Scene, BenchError> {
    let mut world = ground("cube-wall", Vec3::z(), 0.5)?;
    let mut top = 0;
    for row in 0..5i32 {
        for j in 0..5 - row {
            let x = 0.1 * (f64::from(j) + 0.5 * f64::from(row));
            let pose = SE3::from_translation(Vec3::new(x, 0.0, 0.05 + 0.1 * f64::from(row)));
            top = cube(&mut world, &format!("cube{row}{j}"), 10f64.powi(row), 0.05, pose, Vec3::zeros())?;
        }
    }
    let ball = FreeBody::ball("ball", 1e3, 0.1).map_err(|e| scene_error("cube-wall", e.reason))?;
    let shape = FreeBodyShape {
        name: "ball".into(),
        shape: Arc::new(CollisionShape::sphere(0.1)),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    };
    let mut state = FreeBodyState::at_rest(SE3::from_translation(Vec3::new(0.2, 0.0, 0.6)));
    state.velocity.linear = Vec3::new(0.0, 0.0, -1.0);
    world.add_body(ball, &[shape], state);
    Ok(Scene { world, script: sink_of(top, 0.45) })
}

/// A robot holding `reference` by the joint PD (kp, kd), its trunk pushed by `push` N
/// along y from 1 s (it settles first: it starts touching the ground, its joints at the
/// reference, and sags under its weight); measures Σ contact force / weight − 1 over the
/// last 0.1 s (0 at rest).
fn standing(world: World, reference: Vec<f64>, gains: (f64, f64), push: f64) -> Result<Scene, BenchError> {
    let robot = world.robot.as_ref().ok_or_else(|| scene_error("standing", "no robot"))?;
    let mut hold = JointPd::new(&robot.model, reference, gains.0, gains.1);
    let weight = robot.model.total_mass() * g0();
    let base = 1;
    struct State {
        ratio: Vec<f64>,
    }
    Ok(Scene {
        world,
        script: script(
            State { ratio: Vec::new() },
            move |_, w, tau| {
                if let Some(r) = w.robot.as_mut() {
                    hold.torques(&r.model, &r.q, &r.v, tau);
                    if push != 0.0 && w.time >= 1.0 {
                        r.wrenches[base] = Force { linear: Vec3::new(0.0, push, 0.0), angular: Vec3::zeros() };
                    }
                }
            },
            move |s, _, stepper| {
                let mut total = Vec3::zeros();
                for (i, c) in stepper.contacts().contacts().iter().enumerate() {
                    let l = &stepper.impulses()[3 * i..3 * i + 3];
                    total += c.frame * Vec3::new(l[0], l[1], l[2]);
                }
                s.ratio.push(total.z / stepper.dt / weight - 1.0);
            },
            move |s, _| {
                let tail = &s.ratio[s.ratio.len().saturating_sub(100)..];
                let mean = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
                let reference = (push == 0.0).then_some(0.0);
                vec![Outcome { name: "contact force / weight − 1 (%)", value: 100.0 * mean, reference }]
            },
        ),
    })
}

fn load(scenario: &str, urdf: &Path, options: &ModelOptions) -> Result<Model, BenchError> {
    Model::from_urdf_file(urdf, options).map_err(|e| scene_error(scenario, format!("{}: {e}", urdf.display())))
}

/// The bundled quadruped at the posture of config/quadruped.yaml (hip flexion 0.6 rad,
/// knee −1.2 rad) on the ground, held by its configured PD (200, 5).
fn quadruped(sources: &Sources, push: f64) -> Result<Scene, BenchError> {
    let urdf = sources.robots.join("urdf/quadruped.urdf");
    let model = load("quadruped", &urdf, &ModelOptions { floating_base: true, ..Default::default() })?;
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for leg in ["lf", "lh", "rf", "rh"] {
        for (joint, value) in [("hfe", 0.6), ("kfe", -1.2)] {
            let id = model
                .joint_id(&format!("{leg}_{joint}"))
                .ok_or_else(|| scene_error("quadruped", format!("{}: no joint {leg}_{joint}", urdf.display())))?;
            q[model.idx_q[id]] = value;
        }
    }
    let mut world = World::new(
        Some(Robot::new(model, q)),
        &EnvironmentConfig::default().description(),
        &CollisionConfig::default().settings(),
    )
    .map_err(|e| scene_error("quadruped", e))?;
    world.place_robot_on(0.0);
    let reference = world.robot.as_ref().map(|r| r.q.clone()).unwrap_or_default();
    standing(world, reference, (200.0, 5.0), push)
}

fn erd<'a>(sources: &'a Sources, scenario: &str) -> Result<&'a Path, BenchError> {
    sources.example_robot_data.as_deref().ok_or_else(|| {
        scene_error(
            scenario,
            "example-robot-data not found: install it (`make env`) or pass --example-robot-data to the `share` \
             directory of the pip package",
        )
    })
}

/// solo12 at its SRDF `standing` posture on the ground, held by a joint PD (5, 0.1).
fn solo12(sources: &Sources, push: f64) -> Result<Scene, BenchError> {
    let share = erd(sources, "solo12")?;
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.to_owned()], ..Default::default() };
    let model = load("solo12", &robots.join("robots/solo12.urdf"), &options)?;
    let srdf = robots.join("srdf/solo.srdf");
    let q = Srdf::from_file(&srdf)
        .and_then(|s| s.configuration(&model, "standing"))
        .map_err(|e| scene_error("solo12", format!("{}: {e}", srdf.display())))?;
    let mut world = World::new(
        Some(Robot::new(model, q.as_slice().to_vec())),
        &EnvironmentConfig::default().description(),
        &CollisionConfig::default().settings(),
    )
    .map_err(|e| scene_error("solo12", e))?;
    world.place_robot_on(0.0);
    let reference = world.robot.as_ref().map(|r| r.q.clone()).unwrap_or_default();
    standing(world, reference, (5.0, 0.1), push)
}

/// talos_reduced upright at its neutral configuration on the ground, no actuation.
fn talos_falling(sources: &Sources) -> Result<Scene, BenchError> {
    let share = erd(sources, "talos-falling")?;
    let options = ModelOptions {
        floating_base: true,
        mimic: MimicPolicy::Independent,
        package_dirs: vec![share.to_owned()],
        ..Default::default()
    };
    let urdf = share.join("example-robot-data/robots/talos_data/robots/talos_reduced.urdf");
    let model = load("talos-falling", &urdf, &options)?;
    let q = model.neutral_configuration().as_slice().to_vec();
    let mut world = World::new(
        Some(Robot::new(model, q)),
        &EnvironmentConfig::default().description(),
        &CollisionConfig::default().settings(),
    )
    .map_err(|e| scene_error("talos-falling", e))?;
    world.place_robot_on(0.0);
    Ok(Scene { world, script: script((), |_, w, t| idle(w, t), |_, _, _| {}, |_, _| Vec::new()) })
}

/// 100 cubes (side 0.1 m, 1 kg) in a 10 × 10 grid resting on the ground, μ 0.8.
fn boxes(_: &Sources) -> Result<Scene, BenchError> {
    let mut world = ground("boxes-100", Vec3::z(), 0.8)?;
    for k in 0..100 {
        let (i, j) = (f64::from(k % 10), f64::from(k / 10));
        cube(
            &mut world,
            &format!("box{k}"),
            1.0,
            0.05,
            SE3::from_translation(Vec3::new(0.15 * i, 0.15 * j, 0.05)),
            Vec3::zeros(),
        )?;
    }
    Ok(Scene {
        world,
        script: script(
            0.0f64,
            |_, w, t| idle(w, t),
            |s, w, _| {
                for st in &w.states {
                    *s = s.max(0.05 - st.pose.translation.z);
                }
            },
            |s, _| vec![Outcome { name: "deepest sink (mm)", value: 1e3 * *s, reference: Some(0.0) }],
        ),
    })
}

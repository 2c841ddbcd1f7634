//! The scenario suite of `signorini bench` (issue 9; seed 002 §IV and the acceptance
//! scenarios of the design notes): each scene with the script that drives it and what it
//! measures against its analytic answer where it has one:
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
//! `signorini bench` (the `bench` module, feature `tools`) also measures every run's seed 002
//! trajectory error against a reference run.

use crate::sim::{Stepper, World};
use crate::spatial::{Force, SE3, Vec3};

use super::worlds::{self, QUADRUPED_HOLD, cube_gap, velocity};
use super::{G0, SceneError, Sources, robots};

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
    build: fn(&Sources) -> Result<Scene, SceneError>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Scenario {
    /// Builds its scene.
    pub fn build(&self, sources: &Sources) -> Result<Scene, SceneError> {
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
fn slide(_: &Sources) -> Result<Scene, SceneError> {
    let (mu, speed, heading) = (0.5, 1.0, 30f64.to_radians());
    let mut world = worlds::ground(Vec3::z(), mu, 0.0);
    let b = worlds::cube(&mut world, "cube", 1.0, 0.1, SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)));
    world.states[b].velocity.linear = Vec3::new(heading.cos(), heading.sin(), 0.0) * speed;
    struct State {
        glide: f64,
        stop: f64,
    }
    let state = State { glide: 0.0, stop: f64::NAN };
    let stop_time = speed / (mu * G0);
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

/// AT-07: the cube of [`worlds::incline`] on an incline of `degrees` with μ 0.5 (sticks
/// below atan 0.5 = 26.6°).
fn incline(degrees: f64) -> Result<Scene, SceneError> {
    let mu = 0.5;
    let theta = degrees.to_radians();
    let (world, b, downhill) = worlds::incline(degrees, mu);
    let start = world.states[b].pose.translation;
    let a = G0 * (theta.sin() - mu * theta.cos());
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
            move |s, _, stepper| {
                s.steps += 1;
                s.dt = stepper.dt;
                if stepper.impulses().iter().all(|&x| x == 0.0) {
                    s.airborne += 1;
                }
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
fn dragged_cube(_: &Sources) -> Result<Scene, SceneError> {
    let (mu, mass, rate, sliding) = (0.4, 1.0, 20.0, 1e-3);
    let mut world = worlds::ground(Vec3::z(), mu, 0.0);
    let b = worlds::cube(&mut world, "cube", mass, 0.1, SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)));
    let slip_time = mu * mass * G0 / rate;
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
fn sink_of(world: World, b: usize) -> Scene {
    let start = world.states[b].pose.translation.z;
    let script = script(
        0.0f64,
        |_, w, t| idle(w, t),
        move |s, w, _| *s = s.max(start - w.states[b].pose.translation.z),
        |s, _| vec![Outcome { name: "sink of the top cube (mm)", value: 1e3 * *s, reference: Some(0.0) }],
    );
    Scene { world, script }
}

/// AT-09: a cube of `top` kg on a 1 kg cube (side 0.1 m) on the ground, μ 0.5.
fn stack(top: f64) -> Result<Scene, SceneError> {
    let (world, b) = worlds::cube_on_cube(1.0, top);
    Ok(sink_of(world, b))
}

/// Seed 000 Fig. 1: [`worlds::cube_wall`].
fn cube_wall(_: &Sources) -> Result<Scene, SceneError> {
    let (world, top) = worlds::cube_wall();
    Ok(sink_of(world, top))
}

/// A robot holding `reference` by the joint PD (kp, kd), its trunk pushed by `push` N
/// along y from 1 s (it settles first: it starts touching the ground, its joints at the
/// reference, and sags under its weight); measures Σ contact force / weight − 1 over the
/// last 0.1 s (0 at rest).
fn standing(world: World, reference: Vec<f64>, gains: (f64, f64), push: f64) -> Result<Scene, SceneError> {
    let robot = world.robot.as_ref().ok_or_else(|| SceneError::new("standing", "no robot"))?;
    let mut hold = worlds::hold(&world, &reference, gains.0, gains.1);
    let weight = robot.model.total_mass() * G0;
    let base = 1;
    struct State {
        ratio: Vec<f64>,
    }
    Ok(Scene {
        world,
        script: script(
            State { ratio: Vec::new() },
            move |_, w, tau| {
                worlds::pd(w, &mut hold, tau);
                if let Some(r) = w.robot.as_mut()
                    && push != 0.0
                    && w.time >= 1.0
                {
                    r.wrenches[base] = Force { linear: Vec3::new(0.0, push, 0.0), angular: Vec3::zeros() };
                }
            },
            move |s, _, stepper| {
                s.ratio.push(worlds::total_impulse(stepper).z / stepper.dt / weight - 1.0);
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

/// The bundled quadruped at [`robots::QUADRUPED_POSTURE`] standing on the ground, held by
/// its configured PD ([`QUADRUPED_HOLD`]).
fn quadruped(sources: &Sources, push: f64) -> Result<Scene, SceneError> {
    let (model, q) = robots::quadruped(sources)?;
    let (world, reference) = worlds::standing("quadruped", model, q)?;
    standing(world, reference, QUADRUPED_HOLD, push)
}

/// solo12 at its SRDF `standing` posture on the ground, held by a joint PD (5, 0.1).
fn solo12(sources: &Sources, push: f64) -> Result<Scene, SceneError> {
    let (world, reference) = worlds::solo12_standing(sources)?;
    standing(world, reference, (5.0, 0.1), push)
}

/// talos_reduced upright at its neutral configuration on the ground, no actuation.
fn talos_falling(sources: &Sources) -> Result<Scene, SceneError> {
    let (model, q) = robots::talos(sources)?;
    let (world, _) = worlds::standing("talos-falling", model, q)?;
    Ok(Scene { world, script: script((), |_, w, t| idle(w, t), |_, _, _| {}, |_, _| Vec::new()) })
}

/// 100 cubes (side 0.1 m, 1 kg) in a 10 × 10 grid resting on the ground, μ 0.8.
fn boxes(_: &Sources) -> Result<Scene, SceneError> {
    Ok(Scene {
        world: worlds::boxes(100),
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

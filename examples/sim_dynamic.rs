//! Robots and bodies in motion, step by step (issue 28's dynamic suite; scripts/bench_sim.py
//! runs the same scenes in MuJoCo from the same drive file): solo12 and the bundled
//! quadruped under random joint torques and base pushes or dropped, talos falling over,
//! the bundled arm pushing a box, a pile of boxes. Each step's wall time (the drive's
//! joint PD included, as in examples/sim_timing.rs), contacts, ADMM iterations, whether
//! it was polished, converged or took a fallback, its NCP criterion ε_abs (seed 002
//! §2.3, force units), the deepest penetration at its start, the lowest body frame
//! (robot joint frames, free bodies' centres: the tunnelling check) and whether the
//! stepper's guard refused its impulses (`refused`), and the joint limits and joint
//! friction blocks in its problem and the times it was solved again (`regenerated`,
//! `contact.regenerate`) go to `--json OUT`, with the final configuration and free
//! bodies' centres.
//!
//!   cargo run --release --example sim_dynamic -- --robot solo12|quadruped|talos|arm7|none
//!       --drive D.json [--steps 1000] [--no-islands] [--solver NAME] [--scaling S] [--anderson M] [--regenerate R] [--budget SECONDS]
//!       [--json OUT.json]
//!   cargo run --release --example sim_dynamic -- --urdf ROBOT.urdf --drive D.json ...
//!
//! `--no-islands` solves the step's contacts as one problem (`contact.islands: false`;
//! by default separate groups of contacts are problems of their own). `--urdf` loads the
//! robot from a URDF file, its root fixed to the world at the origin (scripts/cable.py's
//! cable). `--solver` replaces `contact.solver` (admm, vfpi, vfpi-block, ...), `--scaling`
//! `contact.scaling` (0: the paper's scalar ADMM penalty), `--anderson` `contact.anderson`;
//! `--budget`
//! stops the run after that much wall time (the steps done are in the output).
//!
//! The drive (written by bench_sim.py) holds everything both simulators share:
//! `piece` (steps a piece of the schedule is held), `joints` (names), per joint `kp`, `kd`,
//! and per piece the PD `reference` (rad), the added torques `tau` (N·m) and the `push`
//! (N, world axes, through the base's centre of mass); `initial` (joint → position before
//! placing), `lift` (the floating base's lowest shape this high above the ground, m),
//! `ground_friction`, and free `boxes` ([x, y, z, yaw]) of `box_half`, `box_mass`,
//! `box_friction`. The contact settings are the defaults (`contact.*`).

use std::time::Instant;

use nalgebra::{Quaternion, UnitQuaternion};
use signorini::collision::{Environment, Ground};
use signorini::config::ContactConfig;
use signorini::contact::Fallback;
use signorini::model::{Model, ModelOptions};
use signorini::scenes::{Sources, robots, worlds};
use signorini::sim::{Robot, Stepper, World};
use signorini::spatial::{Force, Vec3};

const DT: f64 = 1e-3;

/// The shared schedule and scene parameters (see the module doc).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Drive {
    piece: usize,
    #[serde(default)]
    joints: Vec<String>,
    #[serde(default)]
    kp: Vec<f64>,
    #[serde(default)]
    kd: Vec<f64>,
    #[serde(default)]
    reference: Vec<Vec<f64>>,
    #[serde(default)]
    tau: Vec<Vec<f64>>,
    #[serde(default)]
    push: Vec<[f64; 3]>,
    #[serde(default)]
    initial: std::collections::BTreeMap<String, f64>,
    #[serde(default)]
    lift: f64,
    #[serde(default = "one")]
    ground_friction: f64,
    #[serde(default)]
    boxes: Vec<[f64; 4]>,
    #[serde(default)]
    box_half: f64,
    #[serde(default)]
    box_mass: f64,
    #[serde(default = "one")]
    box_friction: f64,
}

fn one() -> f64 {
    1.0
}

fn fail(message: String) -> ! {
    eprintln!("sim_dynamic: {message}");
    std::process::exit(1)
}

/// The world of `robot` (its reference posture, `initial` applied, placed `lift` above
/// the ground) with the drive's boxes.
fn world(robot: &str, urdf: Option<&str>, drive: &Drive) -> Result<World, String> {
    let sources = Sources::repository();
    if robot == "none" && urdf.is_none() {
        return Ok(worlds::box_layout(&drive.boxes, drive.box_mass, drive.box_half, drive.ground_friction));
    }
    let (model, mut q) = match (robot, urdf) {
        (_, Some(path)) => Model::from_urdf_file(std::path::Path::new(path), &ModelOptions::default())
            .map(|m| {
                let q = m.neutral_configuration().as_slice().to_vec();
                (m, q)
            })
            .map_err(|e| format!("{path}: {e}"))?,
        ("solo12", _) => robots::solo12(&sources).map_err(|e| e.to_string())?,
        ("quadruped", _) => robots::quadruped(&sources).map_err(|e| e.to_string())?,
        ("talos", _) => robots::talos(&sources).map_err(|e| e.to_string())?,
        ("arm7", _) => robots::arm7(&sources).map_err(|e| e.to_string())?,
        _ => return Err(format!("unknown robot {robot} (solo12, quadruped, talos, arm7 or none)")),
    };
    for (name, value) in &drive.initial {
        let id = model.joint_id(name).ok_or_else(|| format!("{robot}: no joint {name}"))?;
        q[model.idx_q[id]] = *value;
    }
    let ground = Ground { friction: drive.ground_friction, ..Default::default() };
    let environment = Environment { ground: Some(ground), ..Default::default() };
    let mut world = World::new(Some(Robot::new(model, q)), &environment, &Default::default())
        .map_err(|e| format!("{robot}: {e}"))?;
    world.place_robot_on(drive.lift);
    worlds::add_boxes(&mut world, &drive.boxes, drive.box_mass, drive.box_half, drive.box_friction)
        .map_err(|e| format!("the drive's boxes: {e}"))?;
    Ok(world)
}

/// The drive's joints as velocity indices of the robot.
fn dofs(world: &World, drive: &Drive) -> Result<Vec<(usize, usize)>, String> {
    let Some(r) = world.robot.as_ref() else { return Ok(Vec::new()) };
    let n = drive.joints.len();
    if drive.kp.len() != n || drive.kd.len() != n {
        return Err(format!("{n} joints but {} kp and {} kd", drive.kp.len(), drive.kd.len()));
    }
    let rows = drive.reference.iter().chain(&drive.tau);
    if let Some(bad) = rows.map(Vec::len).find(|&len| len != n) {
        return Err(format!("{n} joints but a piece of {bad} values"));
    }
    drive
        .joints
        .iter()
        .map(|name| {
            let id = r.model.joint_id(name).ok_or_else(|| format!("no joint {name}"))?;
            Ok((r.model.idx_q[id], r.model.idx_v[id]))
        })
        .collect()
}

/// τ of piece `p`: the per-joint PD to its reference plus its torques; the push on the
/// base through its centre of mass (a wrench about the joint's origin, world axes).
fn drive_step(world: &mut World, drive: &Drive, dofs: &[(usize, usize)], p: usize, tau: &mut [f64]) {
    let Some(r) = world.robot.as_mut() else { return };
    tau.fill(0.0);
    for (j, &(iq, iv)) in dofs.iter().enumerate() {
        let reference = drive.reference.get(p).map_or(r.q[iq], |x| x[j]);
        let extra = drive.tau.get(p).map_or(0.0, |x| x[j]);
        tau[iv] = drive.kp[j] * (reference - r.q[iq]) - drive.kd[j] * r.v[iv] + extra;
    }
    if let Some(&[fx, fy, fz]) = drive.push.get(p)
        && r.model.floating_roots().next() == Some(1)
    {
        let quaternion = Quaternion::new(r.q[6], r.q[3], r.q[4], r.q[5]);
        let com = UnitQuaternion::from_quaternion(quaternion) * r.model.inertias[1].com;
        let force = Vec3::new(fx, fy, fz);
        r.wrenches[1] = Force { linear: force, angular: com.cross(&force) };
    }
}

/// The lowest robot joint frame and free body centre (m).
fn lowest(world: &World) -> f64 {
    let robot = world
        .robot
        .as_ref()
        .map_or(f64::INFINITY, |r| r.data.o_m_i.iter().skip(1).map(|m| m.translation.z).fold(f64::INFINITY, f64::min));
    world.states.iter().map(|s| s.pose.translation.z).fold(robot, f64::min)
}

/// The command line (see the module doc).
struct Args {
    robot: Option<String>,
    urdf: Option<String>,
    drive: Option<String>,
    steps: usize,
    json: Option<String>,
    budget: f64,
    contact: ContactConfig,
}

fn arguments() -> Args {
    let mut args = std::env::args().skip(1);
    let usage = || -> ! {
        eprintln!(
            "usage: sim_dynamic --robot solo12|quadruped|talos|arm7|none | --urdf ROBOT.urdf --drive D.json \
             [--steps N] [--no-islands] [--solver NAME] [--scaling S] [--anderson M] [--regenerate R] [--budget SECONDS] [--json OUT]"
        );
        std::process::exit(2);
    };
    let mut out = Args {
        robot: None,
        urdf: None,
        drive: None,
        steps: 1000,
        json: None,
        budget: f64::INFINITY,
        contact: ContactConfig::default(),
    };
    while let Some(a) = args.next() {
        if a == "--no-islands" {
            out.contact.islands = false;
            continue;
        }
        match (a.as_str(), args.next()) {
            ("--robot", Some(v)) => out.robot = Some(v),
            ("--urdf", Some(v)) => out.urdf = Some(v),
            ("--drive", Some(v)) => out.drive = Some(v),
            ("--solver", Some(v)) => {
                out.contact.solver = serde_json::from_value(serde_json::Value::String(v.clone()))
                    .unwrap_or_else(|e| fail(format!("--solver {v}: {e}")))
            }
            ("--scaling", Some(v)) => {
                let range = signorini::config::ranges::SCALING_EXPONENT;
                out.contact.scaling = v
                    .parse()
                    .ok()
                    .filter(|&s| range.contains(s))
                    .and_then(signorini::config::NonNegativeF64::new)
                    .unwrap_or_else(|| {
                        fail(format!("--scaling {v}: expected a number from {} to {}", range.min, range.max))
                    })
            }
            ("--anderson", Some(v)) => {
                out.contact.anderson =
                    v.parse().ok().filter(|&a| a <= signorini::contact::MAX_ANDERSON).unwrap_or_else(|| {
                        fail(format!("--anderson {v}: expected 0 to {}", signorini::contact::MAX_ANDERSON))
                    })
            }
            ("--regenerate", Some(v)) => {
                out.contact.regenerate =
                    v.parse().ok().filter(|&r| r <= signorini::contact::MAX_REGENERATE).unwrap_or_else(|| {
                        fail(format!("--regenerate {v}: expected 0 to {}", signorini::contact::MAX_REGENERATE))
                    })
            }
            ("--budget", Some(v)) => out.budget = v.parse().unwrap_or_else(|_| usage()),
            ("--steps", Some(v)) => out.steps = v.parse().unwrap_or_else(|_| usage()),
            ("--json", Some(v)) => out.json = Some(v),
            _ => usage(),
        }
    }
    if out.drive.is_none() || (out.robot.is_none() && out.urdf.is_none()) {
        usage()
    }
    out
}

fn main() {
    let Args { robot, urdf, drive, steps, json, budget, contact } = arguments();
    let robot = robot.unwrap_or_else(|| "urdf".to_owned());
    let path = drive.unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let drive: Drive = serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    if drive.piece == 0 {
        fail(format!("{path}: `piece` must be at least 1"));
    }
    let mut world = world(&robot, urdf.as_deref(), &drive).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let dofs = dofs(&world, &drive).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let mut stepper = Stepper::new(&world, DT, &contact.settings(), 8 * drive.boxes.len() + 2 * world.nv() + 256);
    let mut tau = vec![0.0; world.nv()];
    let pieces = drive.reference.len().max(drive.tau.len()).max(drive.push.len()).max(1);
    let mut out: [Vec<f64>; 13] = std::array::from_fn(|_| Vec::with_capacity(steps));
    let start = Instant::now();
    for k in 0..steps {
        let p = (k / drive.piece).min(pieces - 1);
        let t0 = Instant::now();
        drive_step(&mut world, &drive, &dofs, p, &mut tau);
        let r = *stepper.step(&mut world, &tau);
        let us = t0.elapsed().as_secs_f64() * 1e6;
        let row = [
            us,
            r.contacts as f64,
            r.iterations as f64,
            f64::from(u8::from(r.polished && r.contacts > 0)),
            f64::from(u8::from(!r.converged)),
            f64::from(u8::from(r.fallback != Fallback::None)),
            r.metrics.eps_abs,
            r.max_penetration,
            lowest(&world),
            f64::from(u8::from(r.refused)),
            r.joint_limits as f64,
            r.joint_friction as f64,
            r.regenerated as f64,
        ];
        for (column, x) in out.iter_mut().zip(row) {
            column.push(x);
        }
        if !world.is_finite() {
            eprintln!("sim_dynamic: the state stopped being finite at step {k}");
            break;
        }
        if start.elapsed().as_secs_f64() > budget {
            break;
        }
    }
    let names = [
        "step_us",
        "contacts",
        "iterations",
        "polished",
        "unconverged",
        "fallback",
        "eps_abs",
        "penetration",
        "lowest",
        "refused",
        "joint_limits",
        "joint_friction",
        "regenerated",
    ];
    let mut doc = serde_json::Map::new();
    doc.insert("steps".into(), out[0].len().into());
    for (name, column) in names.iter().zip(&out) {
        doc.insert((*name).into(), serde_json::json!(column));
    }
    // The end state, to compare the trajectories' outcome: q and each free body's centre.
    doc.insert("final_q".into(), serde_json::json!(world.robot.as_ref().map_or(Vec::new(), |r| r.q.clone())));
    let centres: Vec<Vec<f64>> = world.states.iter().map(|s| s.pose.translation.iter().copied().collect()).collect();
    doc.insert("final_bodies".into(), serde_json::json!(centres));
    let total: f64 = out[0].iter().sum();
    println!(
        "{robot}: {} steps, {:.1} µs/step, {:.1} contacts/step, {} unconverged",
        out[0].len(),
        total / out[0].len().max(1) as f64,
        out[1].iter().sum::<f64>() / out[1].len().max(1) as f64,
        out[4].iter().sum::<f64>()
    );
    if let Some(path) = json
        && let Err(e) = std::fs::write(&path, serde_json::Value::Object(doc).to_string())
    {
        fail(format!("{path}: {e}"));
    }
}

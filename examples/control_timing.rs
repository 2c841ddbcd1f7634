//! Control tick time of robots standing on rigid feet: solo12 (settled on the ground under
//! the simulator's joint PD, then held by the controller) and the bundled quadruped. Per
//! robot: the whole tick (kinematics, contact detection, stance projection, inverse
//! dynamics with the floating base's least squares, torque limits) and inverse dynamics
//! alone (with the tick's contacts and reference), µs per call, median of `--rounds`
//! batches of 1000 calls at the held state. `--json OUT` also writes the state and the
//! loaded contact points, for scripts/bench_control.py to time Pinocchio on the same.
//! `--ticks N` runs N ticks at the held state and nothing else (no timing, no output):
//! for counting instructions per tick (the difference of two N).
//!
//!   cargo run --release --example control_timing -- [--rounds 15] [--json OUT.json]
//!       [--scene solo12_standing|quadruped_standing] [--ticks N]   (default: both)

use std::path::Path;
use std::time::Instant;

use signorini::app::Setup;
use signorini::collision::{CollisionWorld, Owner};
use signorini::config::ContactConfig;
use signorini::control::{Controller, ControllerSettings, InverseDynamics, InverseDynamicsSettings};
use signorini::model::Data;
use signorini::scenes::{Sources, worlds};
use signorini::sim::{Stepper, World};

const DT: f64 = 1e-3;

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

/// Settles `world` under the scene PD for 1 s, holds it with the controller for 0.5 s,
/// then times.
fn time(
    mut world: World,
    posture: &[f64],
    gains: (f64, f64),
    collision: &dyn Fn() -> CollisionWorld,
    rounds: usize,
    ticks: Option<usize>,
) -> serde_json::Value {
    let model = world.robot.as_ref().unwrap().model.clone();
    let contact = ContactConfig::default();
    let mut stepper = Stepper::new(&world, DT, &contact.settings(), 64);
    let mut tau = vec![0.0; model.nv];
    let mut hold = worlds::hold(&world, posture, gains.0, gains.1);
    for _ in 0..1000 {
        worlds::pd(&world, &mut hold, &mut tau);
        stepper.step(&mut world, &tau);
    }
    let reference = world.robot.as_ref().unwrap().q.clone();
    let zero = vec![0.0; model.nv];
    let settings = (ControllerSettings::default(), InverseDynamicsSettings::default());
    let mut controller = Controller::new(&model, collision(), 64, contact.problem_settings(), settings.0, settings.1);
    for _ in 0..500 {
        let r = world.robot.as_ref().unwrap();
        tau.copy_from_slice(controller.tick(&model, &r.q, &r.v, &reference, &zero, &zero, DT).unwrap());
        tau[..6].fill(0.0);
        stepper.step(&mut world, &tau);
    }
    let r = world.robot.as_ref().unwrap();
    let (q, v) = (r.q.clone(), r.v.clone());
    if let Some(n) = ticks {
        for _ in 0..n {
            controller.tick(&model, &q, &v, &reference, &zero, &zero, DT).unwrap();
        }
        return serde_json::Value::Null;
    }
    let mut tick = Vec::new();
    for _ in 0..rounds {
        let t0 = Instant::now();
        for _ in 0..1000 {
            controller.tick(&model, &q, &v, &reference, &zero, &zero, DT).unwrap();
        }
        tick.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let contacts = controller.contacts().to_vec();
    let v_ref = controller.reference_velocity().to_vec();
    let mut data = Data::new(&model);
    let mut id = InverseDynamics::new(&model, 64, contact.problem_settings(), settings.1);
    let mut inverse = Vec::new();
    for _ in 0..rounds {
        let t0 = Instant::now();
        for _ in 0..1000 {
            id.compute(&model, &mut data, &q, &v, &v_ref, &contacts, DT).unwrap();
        }
        inverse.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    // The tick's first two phases alone: kinematics, and contact detection.
    let batch = |f: &mut dyn FnMut()| -> f64 {
        let times = (0..rounds).map(|_| {
            let t0 = Instant::now();
            for _ in 0..1000 {
                f();
            }
            t0.elapsed().as_secs_f64() * 1e3
        });
        median(times.collect())
    };
    let kinematics = batch(&mut || {
        signorini::dynamics::compute_joint_jacobians(&model, &mut data, &q);
    });
    let (mut detector, mut found) = (collision(), signorini::collision::ContactBuffer::with_capacity(64));
    let detection = batch(&mut || {
        detector.update_robot(&data);
        detector.detect(&mut found);
    });
    // The loaded contacts: world point and frame (columns Tx, Ty, N), for the reference.
    let loaded: Vec<serde_json::Value> = contacts
        .iter()
        .enumerate()
        .filter(|&(i, _)| id.impulses()[3 * i + 2] > 0.0)
        .map(|(i, c)| {
            let frame: Vec<f64> = c.frame.as_slice().to_vec();
            let joint = match c.body1 {
                Owner::Robot { joint } => joint,
                _ => 0,
            };
            serde_json::json!({"point": c.point.as_slice(), "frame_column_major": frame, "friction": c.friction,
                "joint": joint, "impulse": &id.impulses()[3 * i..3 * i + 3]})
        })
        .collect();
    serde_json::json!({"tick_us": median(tick), "inverse_dynamics_us": median(inverse), "kinematics_us": kinematics,
        "detection_us": detection, "contacts": contacts.len(), "detected": controller.detected().len(),
        "q": q, "v": v, "v_ref": v_ref, "loaded": loaded, "tau": id.torques(),
        "iterations": id.result().stats.iterations})
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = || -> ! {
        eprintln!(
            "usage: control_timing [--rounds N] [--json OUT] [--scene solo12_standing|quadruped_standing] [--ticks N]"
        );
        std::process::exit(2);
    };
    let (mut rounds, mut json, mut scene, mut ticks) = (15usize, None::<String>, None::<String>, None::<usize>);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--rounds", Some(v)) => rounds = v.parse().unwrap_or_else(|_| usage()),
            ("--json", Some(v)) => json = Some(v),
            ("--scene", Some(v)) => scene = Some(v),
            ("--ticks", Some(v)) => ticks = Some(v.parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    let solo12 = || {
        let (solo, posture) = worlds::solo12_standing(&Sources::repository()).expect("solo12 loads");
        let model = solo.robot.as_ref().unwrap().model.clone();
        let collision = || CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
        time(solo, &posture, (5.0, 0.1), &collision, rounds, ticks)
    };
    let quadruped = || {
        let setup = Setup::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml"), None).unwrap();
        let (world, posture, gains) = worlds::quadruped(&Sources::repository(), 0.0).expect("the quadruped loads");
        let collision = || {
            CollisionWorld::new(
                &setup.model,
                &setup.config.environment.description(),
                &setup.config.collision.settings(),
            )
            .unwrap()
        };
        time(world, &posture, gains, &collision, rounds, ticks)
    };
    let scenes: [(&str, &str, &dyn Fn() -> serde_json::Value); 2] =
        [("solo12_standing", "solo12 standing", &solo12), ("quadruped_standing", "quadruped standing", &quadruped)];
    let mut doc = serde_json::Map::new();
    for (key, name, run) in scenes {
        if scene.as_deref().is_some_and(|s| s != key) {
            continue;
        }
        let figures = run();
        if ticks.is_some() {
            continue;
        }
        println!(
            "{name}: tick {:.2} µs, inverse dynamics {:.2} µs, kinematics {:.2} µs, detection {:.2} µs \
             ({} contacts detected, {} solved, {} loaded)",
            figures["tick_us"].as_f64().unwrap_or(f64::NAN),
            figures["inverse_dynamics_us"].as_f64().unwrap_or(f64::NAN),
            figures["kinematics_us"].as_f64().unwrap_or(f64::NAN),
            figures["detection_us"].as_f64().unwrap_or(f64::NAN),
            figures["detected"],
            figures["contacts"],
            figures["loaded"].as_array().map_or(0, |l| l.len())
        );
        doc.insert(key.into(), figures);
    }
    if let Some(path) = json
        && let Err(e) = std::fs::write(&path, serde_json::Value::Object(doc).to_string())
    {
        eprintln!("control_timing: {path}: {e}");
        std::process::exit(1);
    }
}

//! Simulation step time (detection, assembly, ADMM, integration; joint PD included) of
//! robots standing still (solo12; the bundled quadruped under its configured posture
//! hold), after 1 s of settling: µs per step, median of `--rounds` runs of
//! 1000 steps. `--json OUT` writes the figures for scripts/bench_sim.py.
//!
//!   cargo run --release --example sim_timing -- [--rounds 7] [--json OUT.json] [--scene NAME] [--no-polish]
//!
//! `--scene` times one scene only (solo12_standing or quadruped_standing: for profiling);
//! `--no-polish` turns `contact.polish` off (the ADMM solves every step).

use std::time::Instant;

use signorini::config::ContactConfig;
use signorini::scenes::{Sources, worlds};
use signorini::sim::{Stepper, World};

const DT: f64 = 1e-3;

struct Figures {
    us: f64,
    contacts: usize,
    iterations: f64,
    factorizations: f64,
    polished: f64,
    eps_abs: f64,
}

fn time(mut world: World, reference: &[f64], kp: f64, kd: f64, rounds: usize, contact: &ContactConfig) -> Figures {
    let mut stepper = Stepper::new(&world, DT, &contact.settings(), 128);
    let mut tau = vec![0.0; world.nv()];
    let mut hold = worlds::hold(&world, reference, kp, kd);
    for _ in 0..1000 {
        worlds::pd(&world, &mut hold, &mut tau);
        stepper.step(&mut world, &tau);
    }
    let (mut times, mut iterations, mut factorizations, mut polished, mut eps) =
        (Vec::new(), 0usize, 0usize, 0usize, 0.0f64);
    for _ in 0..rounds.max(1) {
        let t0 = Instant::now();
        for _ in 0..1000 {
            worlds::pd(&world, &mut hold, &mut tau);
            let r = stepper.step(&mut world, &tau);
            iterations += r.iterations;
            factorizations += r.factorizations;
            polished += usize::from(r.polished);
            eps = eps.max(r.metrics.eps_abs);
        }
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Figures {
        us: times[times.len() / 2],
        contacts: stepper.report().contacts,
        iterations: iterations as f64 / (1000 * rounds.max(1)) as f64,
        factorizations: factorizations as f64 / (1000 * rounds.max(1)) as f64,
        polished: polished as f64 / (1000 * rounds.max(1)) as f64,
        eps_abs: eps,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = || -> ! {
        eprintln!(
            "usage: sim_timing [--rounds N] [--json OUT] [--scene solo12_standing|quadruped_standing] [--no-polish]"
        );
        std::process::exit(2);
    };
    let (mut rounds, mut json, mut only) = (7usize, None::<String>, None::<String>);
    let mut contact = ContactConfig::default();
    while let Some(a) = args.next() {
        if a == "--no-polish" {
            contact.polish = false;
            continue;
        }
        match (a.as_str(), args.next()) {
            ("--rounds", Some(v)) => rounds = v.parse().unwrap_or_else(|_| usage()),
            ("--json", Some(v)) => json = Some(v),
            ("--scene", Some(v)) if ["solo12_standing", "quadruped_standing"].contains(&v.as_str()) => only = Some(v),
            _ => usage(),
        }
    }
    let wanted = |key: &str| only.as_deref().is_none_or(|o| o == key);
    let mut scenes = Vec::new();
    if wanted("solo12_standing") {
        let (solo, solo_ref) = worlds::solo12_standing(&Sources::repository()).expect("solo12 loads");
        scenes.push(("solo12_standing", "solo12 standing", time(solo, &solo_ref, 5.0, 0.1, rounds, &contact)));
    }
    if wanted("quadruped_standing") {
        let (quadruped, quadruped_ref, (kp, kd)) =
            worlds::quadruped(&Sources::repository(), 0.0).expect("the quadruped loads");
        scenes.push((
            "quadruped_standing",
            "quadruped standing",
            time(quadruped, &quadruped_ref, kp, kd, rounds, &contact),
        ));
    }
    let mut doc = serde_json::Map::new();
    for (key, name, f) in &scenes {
        println!(
            "{name}: {:.2} µs/step, {} contacts, {:.2} iterations and {:.2} factorizations per step, {:.0} % of \
             steps polished, max ε_abs {:.1e}",
            f.us,
            f.contacts,
            f.iterations,
            f.factorizations,
            100.0 * f.polished,
            f.eps_abs
        );
        doc.insert(
            (*key).into(),
            serde_json::json!({"us_per_step": f.us, "contacts": f.contacts, "iterations": f.iterations,
                "factorizations": f.factorizations, "polished": f.polished, "eps_abs": f.eps_abs}),
        );
    }
    if let Some(path) = json
        && let Err(e) = std::fs::write(&path, serde_json::Value::Object(doc).to_string())
    {
        eprintln!("sim_timing: {path}: {e}");
        std::process::exit(1);
    }
}

//! The simulator on three analytic scenes, with the default contact settings (ADMM, NCP,
//! tolerance 1e-6) and Δt = 1 ms; scripts/bench_sim.py builds the same scenes in MuJoCo.
//!
//! - a 1 kg cube of side 0.2 on a 30° incline, μ = 0.7 > tan 30° (AT-07, sticks): its
//!   drift along the slope in 2 s (analytic 0);
//! - the same with μ = 0.3 (slides): its acceleration over 1 s (v(1 s)/1 s; analytic
//!   g (sin θ − μ cos θ)), the highest its lowest corner rose above the plane and the steps
//!   without contact force (Σ normal impulse < 1e-9 N·s; analytic 0 and 0);
//! - 1000 kg on 1 g (AT-09, cubes of side 0.1, μ 0.5): the deepest penetration in 1 s
//!   and how far the heavy cube sank (analytic 0 and 0).
//!
//! `--json OUT` writes the figures.
//!
//!   cargo run --release --example sim_accuracy -- [--json OUT.json]

use signorini::config::ContactConfig;
use signorini::scenes::{G0, worlds};
use signorini::sim::Stepper;
use signorini::spatial::Vec3;

const DT: f64 = 1e-3;
const THETA: f64 = 30.0;

fn stepper(world: &signorini::sim::World) -> Stepper {
    Stepper::new(world, DT, &ContactConfig::default().settings(), 32)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut json = None::<String>;
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--json", Some(v)) => json = Some(v),
            _ => {
                eprintln!("usage: sim_accuracy [--json OUT]");
                std::process::exit(2);
            }
        }
    }
    let theta = THETA.to_radians();
    let normal = Vec3::new(theta.sin(), 0.0, theta.cos());
    let mut not_converged = 0usize;

    // Sticks.
    let (mut world, b, downhill) = worlds::incline(THETA, 0.7);
    let start = world.states[b].pose.translation;
    let mut s = stepper(&world);
    for _ in 0..2000 {
        not_converged += usize::from(!s.step(&mut world, &[]).converged);
    }
    let drift = (world.states[b].pose.translation - start).dot(&downhill);

    // Slides.
    let mu = 0.3;
    let (mut world, b, downhill) = worlds::incline(THETA, mu);
    let mut s = stepper(&world);
    let (mut separation, mut airborne) = (0.0f64, 0usize);
    for _ in 0..1000 {
        not_converged += usize::from(!s.step(&mut world, &[]).converged);
        separation = separation.max(worlds::cube_gap(&world, b, 0.1, &normal));
        airborne += usize::from(worlds::total_impulse(&s).dot(&normal) < 1e-9);
    }
    let acceleration = worlds::velocity(&world, b).dot(&downhill) / world.time;
    let analytic = G0 * (theta.sin() - mu * theta.cos());

    // A ton on a gram.
    let (mut world, heavy) = worlds::heavy_on_light();
    let z0 = world.states[heavy].pose.translation.z;
    let mut s = stepper(&world);
    let mut penetration = 0.0f64;
    for _ in 0..1000 {
        let r = s.step(&mut world, &[]);
        not_converged += usize::from(!r.converged);
        penetration = penetration.max(r.max_penetration);
    }
    let sank = z0 - world.states[heavy].pose.translation.z;

    println!("cube on a {THETA}° incline, μ 0.7 (sticks): drift {drift:.3e} m in 2 s");
    println!(
        "cube on a {THETA}° incline, μ {mu} (slides): a = {acceleration:.6} m/s² (analytic {analytic:.6}), \
         separation up to {separation:.3e} m, {airborne} steps without contact force"
    );
    println!("1000 kg on 1 g: deepest penetration {penetration:.3e} m, heavy cube sank {sank:.3e} m");
    println!("steps whose solve did not converge: {not_converged}");
    if let Some(path) = json {
        let doc = serde_json::json!({
            "incline_stick": {"drift_m": drift},
            "incline_slide": {"acceleration": acceleration, "analytic": analytic,
                "max_separation_m": separation, "steps_without_contact": airborne},
            "heavy_on_light": {"max_penetration_m": penetration, "heavy_sank_m": sank},
            "steps_not_converged": not_converged,
        });
        if let Err(e) = std::fs::write(&path, doc.to_string()) {
            eprintln!("sim_accuracy: {path}: {e}");
            std::process::exit(1);
        }
    }
}

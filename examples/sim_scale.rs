//! Step time against the number of contacts: boxes of 1 kg (side 0.1 m, μ 0.6 with each
//! other and the ground) at the poses of a layout file (scripts/bench_scale.py writes
//! them: jittered lattices dropped 0.3 m, one pile or several), stepped at Δt 1 ms with
//! the default contact settings. Prints (and `--json OUT` writes) the step time (mean
//! and median, µs), the contacts, the islands' ADMM iterations, the unconverged steps and
//! the fallbacks, the resident memory the stepper and its problems took per contact.
//!
//!   cargo run --release --example sim_scale -- --layout L.json [--steps 1000]
//!       [--budget SECONDS] [--no-islands] [--solver NAME] [--json OUT.json]
//!
//! The layout is `{"boxes": [[x, y, z, yaw], ...]}` (m, rad). `--budget` stops the run
//! after that much wall time (the steps done are reported); `--no-islands` solves the
//! step's contacts as one problem (`contact.islands: false`); `--solver` replaces
//! `contact.solver` (admm, the default; vfpi, vfpi-block, ...).

use std::time::Instant;

use signorini::config::ContactConfig;
use signorini::scenes::worlds;
use signorini::sim::Stepper;

const DT: f64 = 1e-3;
const HALF: f64 = 0.05;
const MU: f64 = 0.6;

/// A figure of the process's /proc status (kB): `VmRSS` its resident set, `VmSize` its
/// address space (0 where there is none).
fn status_kb(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':'))).unwrap_or("");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

/// The process's resident set (kB).
fn resident_kb() -> f64 {
    status_kb("VmRSS")
}

/// The layout file's boxes (see the module doc); exits with a one-line error.
fn read_boxes(layout: &str) -> Vec<[f64; 4]> {
    let text = std::fs::read_to_string(layout).unwrap_or_else(|e| {
        eprintln!("sim_scale: {layout}: {e}");
        std::process::exit(1)
    });
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("sim_scale: {layout}: {e}");
        std::process::exit(1)
    });
    serde_json::from_value(doc["boxes"].clone()).unwrap_or_else(|e| {
        eprintln!("sim_scale: {layout}: `boxes`: {e}");
        std::process::exit(1)
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = || -> ! {
        eprintln!(
            "usage: sim_scale --layout L.json [--steps N] [--budget SECONDS] [--no-islands] [--solver NAME] [--json OUT]"
        );
        std::process::exit(2);
    };
    let (mut layout, mut steps, mut budget, mut json) = (None::<String>, 1000usize, f64::INFINITY, None::<String>);
    // Islands on unless `--no-islands` (`contact.islands` is off by default for now).
    let mut contact = ContactConfig { islands: true, ..ContactConfig::default() };
    while let Some(a) = args.next() {
        if a == "--no-islands" {
            contact.islands = false;
            continue;
        }
        match (a.as_str(), args.next()) {
            ("--layout", Some(v)) => layout = Some(v),
            ("--steps", Some(v)) => steps = v.parse().unwrap_or_else(|_| usage()),
            ("--budget", Some(v)) => budget = v.parse().unwrap_or_else(|_| usage()),
            ("--json", Some(v)) => json = Some(v),
            ("--solver", Some(v)) => {
                contact.solver = serde_json::from_value(serde_json::Value::String(v)).unwrap_or_else(|_| usage())
            }
            _ => usage(),
        }
    }
    let Some(layout) = layout else { usage() };
    let boxes = read_boxes(&layout);
    let mut world = worlds::box_layout(&boxes, 1.0, HALF, MU);
    let capacity = 8 * boxes.len() + 64;
    let (before, space_before) = (resident_kb(), status_kb("VmSize"));
    let mut stepper = Stepper::new(&world, DT, &contact.settings(), capacity);
    // The address space the stepper reserved (its buffers, sized once, mostly untouched).
    let reserved = status_kb("VmSize") - space_before;
    let (mut times, mut contacts) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut step_eps = Vec::with_capacity(steps);
    let (mut iterations, mut unconverged, mut fallbacks, mut polished, mut dropped) = (0usize, 0, 0, 0, 0);
    let (mut penetration, mut eps) = (0.0f64, 0.0f64);
    let start = Instant::now();
    for _ in 0..steps {
        let t0 = Instant::now();
        let r = *stepper.step(&mut world, &[]);
        times.push(t0.elapsed().as_secs_f64() * 1e6);
        contacts.push(r.contacts);
        iterations += r.iterations;
        unconverged += usize::from(!r.converged);
        fallbacks += usize::from(r.fallback != signorini::contact::Fallback::None);
        polished += usize::from(r.polished && r.contacts > 0);
        dropped += r.contacts_dropped;
        penetration = penetration.max(r.max_penetration);
        eps = eps.max(r.metrics.eps_abs);
        step_eps.push(r.metrics.eps_abs);
        if start.elapsed().as_secs_f64() > budget {
            break;
        }
    }
    let memory = resident_kb() - before;
    let n = times.len();
    let max_contacts = contacts.iter().copied().max().unwrap_or(0);
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let contacts_f: Vec<f64> = contacts.iter().map(|&c| c as f64).collect();
    let figures = serde_json::json!({
        "boxes": boxes.len(), "steps": n, "islands": contact.islands, "solver": contact.solver,
        "us_mean": mean(&times), "us_median": sorted.get(n / 2).copied().unwrap_or(0.0),
        "contacts_mean": mean(&contacts_f), "contacts_max": max_contacts,
        "iterations_mean": iterations as f64 / n.max(1) as f64, "unconverged": unconverged,
        "fallbacks": fallbacks, "polished": polished, "dropped": dropped,
        "max_penetration": penetration, "eps_abs": eps,
        "memory_kb": memory, "kb_per_contact": memory / max_contacts.max(1) as f64, "reserved_kb": reserved,
        "top_z": world.states.last().map_or(0.0, |s| s.pose.translation.z),
        "step_us": times, "step_contacts": contacts, "step_eps": step_eps,
    });
    println!(
        "{} boxes, {n} steps{}: {:.1} µs/step mean ({:.1} median), {:.1} contacts mean ({max_contacts} max), \
         {:.1} iterations/step, {unconverged} unconverged, {fallbacks} fallbacks, {polished} polished, \
         max penetration {penetration:.2e} m, {:.0} kB ({:.1} kB/contact), {:.0} MB of address space reserved",
        boxes.len(),
        if contact.islands { "" } else { " (no islands)" },
        figures["us_mean"].as_f64().unwrap_or(0.0),
        figures["us_median"].as_f64().unwrap_or(0.0),
        mean(&contacts_f),
        iterations as f64 / n.max(1) as f64,
        memory,
        memory / max_contacts.max(1) as f64,
        reserved / 1024.0,
    );
    if let Some(path) = json
        && let Err(e) = std::fs::write(&path, figures.to_string())
    {
        eprintln!("sim_scale: {path}: {e}");
        std::process::exit(1);
    }
}

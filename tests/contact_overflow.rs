//! More contacts than `collision.max_contacts` (issue 26, item 2): the simulator keeps the
//! deepest and counts the rest (counters for /diagnostics, the `signorini sim` summary);
//! the controller refuses its tick, which the loop counts and answers with the safe output.
//!
//! The scene: the bundled quadruped standing on its four feet with `max_contacts: 2`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use signorini::app::{Setup, SimLoop};
use signorini::cli::sim::{SimOptions, run};
use signorini::control::TickError;
use signorini::runtime::{Counters, Job, MonotonicTime, Tick};
use signorini::sim::Stepper;

fn quadruped(max_contacts: usize) -> Setup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml");
    let mut setup = Setup::load(&path, None).unwrap();
    setup.config.collision.max_contacts = max_contacts.try_into().unwrap();
    setup
}

/// The quadruped standing on its four feet after 0.5 s of the node's loop (its hold PD
/// holding the posture): (q, v).
fn standing(setup: &Setup) -> (Vec<f64>, Vec<f64>) {
    let mut roomy = setup.clone();
    roomy.config.collision.max_contacts = 256.try_into().unwrap();
    let SimLoop { mut job, ends, .. } = SimLoop::new(&roomy, Arc::new(Counters::default())).unwrap();
    let mut samples = ends.samples;
    for k in 0..500 {
        let t = MonotonicTime::from_nanos(k * 1_000_000);
        job.tick(&Tick { index: k, deadline: t, wake: t, period: Duration::from_millis(1) });
        while samples.pop_with(|_| {}) {}
    }
    let r = job.world().robot.as_ref().unwrap();
    (r.q.clone(), r.v.clone())
}

/// From the same state, a stepper of capacity 2 keeps exactly the two deepest of the
/// contacts a stepper of ample capacity finds, and says how many it dropped.
#[test]
fn the_simulator_keeps_the_deepest_contacts_and_counts_the_rest() {
    let setup = quadruped(256);
    let (dt, settings) = (setup.config.sim_dt(), setup.config.contact.settings());
    let (mut all, mut few) = (setup.sim_world().unwrap(), setup.sim_world().unwrap());
    // Standing, then sunk 3 mm and rolled: each foot at its own depth.
    let (mut q, v) = standing(&setup);
    q[2] -= 3e-3;
    let (s, c) = (0.01f64.sin(), 0.01f64.cos());
    let (x, w) = (q[3], q[6]);
    (q[3], q[6]) = (c * x + s * w, c * w - s * x);
    let norm = q[3..7].iter().map(|a| a * a).sum::<f64>().sqrt();
    q[3..7].iter_mut().for_each(|a| *a /= norm);
    for world in [&mut all, &mut few] {
        let r = world.robot.as_mut().unwrap();
        r.q.copy_from_slice(&q);
        r.v.copy_from_slice(&v);
    }
    let tau = vec![0.0; setup.model.nv];
    let mut ample = Stepper::new(&all, dt, &settings, 256);
    let mut tight = Stepper::new(&few, dt, &settings, 2);
    let found = ample.step(&mut all, &tau).contacts;
    let report = *tight.step(&mut few, &tau);
    let mut depths: Vec<f64> = ample.contacts().contacts().iter().map(|c| c.distance).collect();
    depths.sort_by(f64::total_cmp);
    let mut kept: Vec<f64> = tight.contacts().contacts().iter().map(|c| c.distance).collect();
    kept.sort_by(f64::total_cmp);
    println!("{found} contacts found; kept {kept:?}, the deepest {:?}", &depths[..2]);
    assert!(found > 2, "the standing quadruped has more than two contacts: {found}");
    assert!(depths[1] < depths[2], "distinct depths: {depths:?}");
    assert_eq!(kept, depths[..2]);
    assert_eq!((report.contacts, report.contacts_dropped), (2, found - 2));
}

/// The node's loop counts the dropped contacts (`contacts_dropped_total` on /diagnostics)
/// and `signorini sim` reports them in its summary.
#[test]
fn the_overflow_is_counted_and_in_the_summary() {
    let setup = quadruped(2);
    let counters = Arc::new(Counters::default());
    let SimLoop { mut job, ends, .. } = SimLoop::new(&setup, counters.clone()).unwrap();
    let mut samples = ends.samples;
    for k in 0..100 {
        let t = MonotonicTime::from_nanos(k * 1_000_000);
        job.tick(&Tick { index: k, deadline: t, wake: t, period: Duration::from_millis(1) });
        while samples.pop_with(|_| {}) {}
    }
    let dropped = counters.snapshot().contacts_dropped;
    println!("100 steps with max_contacts 2: {dropped} contacts dropped");
    assert!(dropped >= 100, "at least two feet dropped per step once standing: {dropped}");

    let options = SimOptions { duration: 0.2, realtime: false, control: false };
    let summary = run(&setup, &options, None, &AtomicBool::new(false), |_| {}).unwrap();
    println!("signorini sim: {} dropped in {} steps", summary.contacts_dropped, summary.steps_with_dropped_contacts);
    assert!(summary.contacts_dropped >= summary.steps_with_dropped_contacts);
    assert!(summary.steps_with_dropped_contacts >= 150, "{summary:?}");
    assert_eq!(summary.contacts_max, 2);
}

/// The controller refuses a tick whose contacts overflow its capacity, naming the key;
/// with room for them the same tick is answered.
#[test]
fn the_controller_refuses_a_tick_whose_contacts_overflowed() {
    let setup = quadruped(2);
    let (q, v) = standing(&setup);
    let a = vec![0.0; setup.model.nv];
    let dt = setup.config.sim_dt();
    let mut controller = setup.controller().unwrap();
    let mut roomy = quadruped(256).controller().unwrap();
    let refused = controller.tick(&setup.model, &q, &v, &q, &v, &a, dt).unwrap_err();
    assert!(matches!(refused, TickError::ContactOverflow { capacity: 2, .. }), "{refused:?}");
    assert!(refused.to_string().contains("collision.max_contacts = 2"), "{refused}");
    assert!(roomy.tick(&setup.model, &q, &v, &q, &v, &a, dt).is_ok());
    assert_eq!(roomy.detected().len(), 4, "the four feet");
}

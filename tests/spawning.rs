//! Spawning free bodies while the quadruped is simulated at 1 kHz (issue 25): 20 boxes,
//! one per simulated second, dropped over five spots so that they stack four high; each
//! ends at rest at its analytic stacking height; the ticks that spawn cost no more than
//! the others (the longest tick and the p99 of the spawn window against the same run
//! without spawns, measured here and quoted in README); deleting them all returns the
//! contact count to the one before the first spawn.
//!
//! The job is ticked as the loop ticks it, as fast as it runs (simulated time is the
//! step count); each tick's compute time is measured around `Job::tick`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use signorini::app::spawning::{SpawnRequest, prepare};
use signorini::app::{OutputLayout, ResetScope, Setup, SimJob, Spawns};
use signorini::runtime::{Counters, EffortCommand, Job, MonotonicTime, SampleConsumer, Tick, mailbox, sample_ring};

/// A 0.2 m cube of 1 kg (its inertia left to the uniform solid's).
const CUBE: &str = r#"<robot name="cube"><link name="cube">
    <inertial><mass value="1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>"#;

/// The cube's side (m).
const SIDE: f64 = 0.2;

/// Where the boxes fall (x, y), clear of the robot and of the configured crate at (0.8, 0).
const SPOTS: [(f64, f64); 5] = [(1.6, -0.6), (1.6, 0.6), (-1.6, 0.0), (0.0, 1.6), (0.0, -1.6)];

/// Boxes spawned, one per second of simulated time.
const BOXES: usize = 20;

/// Ticks per simulated second at 1 kHz.
const SECOND: u64 = 1000;

fn quadruped(spawn_capacity: usize) -> Setup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml");
    let mut setup = Setup::load(&path, None).unwrap();
    setup.config.simulation_interfaces.spawn_capacity = spawn_capacity;
    assert_eq!(setup.config.sim_dt(), 1e-3, "the quadruped is simulated at 1 kHz");
    setup
}

/// The job of `setup`, its spawn table and counters, with a drained sample ring.
fn job(setup: &Setup) -> (SimJob, Arc<Spawns>, Arc<Counters>, SampleConsumer<signorini::app::Outputs>) {
    let world = setup.sim_world().unwrap();
    let (producer, samples) = sample_ring(4, &OutputLayout::new(setup, &world).outputs());
    let (_, commands) = mailbox(EffortCommand { effort: vec![0.0; setup.joint_names.len()] });
    let counters = Arc::new(Counters::default());
    let job = SimJob::new(setup, world, commands, producer, Duration::from_millis(50), counters.clone());
    let spawns = job.spawns();
    (job, spawns, counters, samples)
}

/// Ticks `job` once (tick `k`) and returns its compute time.
fn tick(job: &mut SimJob, samples: &mut SampleConsumer<signorini::app::Outputs>, k: u64) -> Duration {
    let t = MonotonicTime::from_nanos(k * 1_000_000);
    let tick = Tick { index: k, deadline: t, wake: t, period: Duration::from_millis(1) };
    let start = Instant::now();
    job.tick(&tick);
    let took = start.elapsed();
    while samples.pop_with(|_| {}) {}
    took
}

/// The p99 and the maximum of `times`.
fn p99_and_max(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() * 99 / 100], times[times.len() - 1])
}

fn cube_at(name: &str, x: f64, y: f64, z: f64) -> SpawnRequest {
    SpawnRequest {
        name: name.into(),
        resource_string: CUBE.into(),
        frame_id: "world".into(),
        position: [x, y, z],
        orientation: [0.0, 0.0, 0.0, 1.0],
        ..SpawnRequest::default()
    }
}

#[test]
fn twenty_boxes_spawned_while_running_stack_at_rest_and_deleting_them_restores_the_contacts() {
    let setup = quadruped(BOXES);
    let (mut job, spawns, counters, mut samples) = job(&setup);
    let contacts = || counters.snapshot().last_contacts;
    let mut k = 0;
    // The robot settles on its feet for a second.
    for _ in 0..SECOND {
        tick(&mut job, &mut samples, k);
        k += 1;
    }
    let initial_contacts = contacts();
    let first = job.world().spawn_slots.first;

    // One box per second, each 0.2 m above the top of its spot's stack, then it falls.
    let (mut window, mut spawn_ticks) = (Vec::new(), Vec::new());
    for b in 0..BOXES {
        let (x, y) = SPOTS[b % SPOTS.len()];
        let level = (b / SPOTS.len()) as f64;
        let request = cube_at(&format!("box_{b}"), x, y, SIDE * (level + 0.5) + SIDE);
        let (name, ticket) = spawns.spawn(prepare(&request).unwrap()).unwrap();
        assert_eq!(name, format!("box_{b}"));
        spawn_ticks.push(tick(&mut job, &mut samples, k));
        k += 1;
        assert!(spawns.applied(ticket), "applied at the next tick");
        for _ in 1..SECOND {
            window.push(tick(&mut job, &mut samples, k));
            k += 1;
        }
    }
    // Two more seconds to come to rest.
    for _ in 0..2 * SECOND {
        tick(&mut job, &mut samples, k);
        k += 1;
    }

    // Each box at rest on the ground or on the box below it: its centre at
    // (level + 1/2)·side, over its spot, level; slower than 1 cm/s.
    let world = job.world();
    for b in 0..BOXES {
        let slot = spawns.slot_of(&format!("box_{b}")).expect("spawned");
        let s = &world.states[first + slot];
        let (x, y) = SPOTS[b % SPOTS.len()];
        let level = (b / SPOTS.len()) as f64;
        let p = s.pose.translation;
        let want = SIDE * (level + 0.5);
        assert!((p.z - want).abs() < 2e-3, "box {b}: z = {} m, stacked {want} m", p.z);
        assert!((p.x - x).hypot(p.y - y) < 0.02, "box {b}: at ({}, {}), dropped over ({x}, {y})", p.x, p.y);
        assert!(s.pose.rotation[(2, 2)] > 0.999, "box {b}: upright");
        let speed = s.velocity.linear.norm() + s.velocity.angular.norm() * SIDE;
        assert!(speed < 1e-2, "box {b}: at rest, {speed} m/s");
    }
    // Each box rests on one face: four corner contacts under it.
    assert_eq!(contacts(), initial_contacts + 4 * BOXES as u64, "4 contacts per box");

    // The ticks that spawned against the rest of the window (whose cost is the contact
    // solve of up to 88 contacts) and against the same run without spawns: no spawning
    // tick overruns the 1 ms period, nor 99 % of the window's.
    let spawn_max = spawn_ticks.iter().max().copied().unwrap();
    let (window_p99, window_max) = p99_and_max(&mut window);
    let overruns = window.iter().filter(|&&t| t >= Duration::from_millis(1)).count();
    let (slots_p99, slots_max) = without_spawns(BOXES, k);
    let (base_p99, base_max) = without_spawns(0, k);
    eprintln!(
        "spawn ticks: longest {spawn_max:?}; spawn window ({} ticks): \
         p99 {window_p99:?}, longest {window_max:?}, {overruns} ticks of 1 ms or more; without spawns, {BOXES} empty \
         slots: p99 {slots_p99:?}, longest {slots_max:?}; spawning off: p99 {base_p99:?}, longest {base_max:?}",
        window.len()
    );
    let period = Duration::from_millis(1);
    assert!(spawn_max < period, "a spawning tick took {spawn_max:?}");
    assert!(window_p99 < period, "p99 {window_p99:?}");

    // Deleting them all: the contacts of before.
    for b in 0..BOXES {
        spawns.delete(&format!("box_{b}")).unwrap();
    }
    assert!(spawns.names().is_empty());
    tick(&mut job, &mut samples, k);
    let all_empty = job.world().spawn_slots.occupant.iter().all(Option::is_none);
    assert!(all_empty, "every slot emptied at the next tick");
    tick(&mut job, &mut samples, k + 1);
    assert_eq!(contacts(), initial_contacts, "back to the contacts before the first spawn");
}

/// The quadruped alone for `ticks` ticks with `slots` empty spawn slots: the p99 and the
/// longest tick after the first second.
fn without_spawns(slots: usize, ticks: u64) -> (Duration, Duration) {
    let setup = quadruped(slots);
    let (mut job, _, _, mut samples) = job(&setup);
    let mut times: Vec<Duration> = (0..ticks).map(|k| tick(&mut job, &mut samples, k)).collect();
    p99_and_max(&mut times[SECOND as usize..])
}

/// A reset of SCOPE_STATE puts a spawned body back at rest where it was spawned (not
/// where the world started); SCOPE_SPAWNED, through the table, removes it.
#[test]
fn a_state_reset_puts_a_spawned_body_back_at_its_spawn_pose_and_spawned_removes_it() {
    let setup = quadruped(2);
    let (mut job, spawns, counters, mut samples) = job(&setup);
    let requests = job.requests();
    let (name, _) = spawns.spawn(prepare(&cube_at("", 1.6, 0.0, 1.0)).unwrap()).unwrap();
    assert_eq!(name, "cube", "the URDF's name");
    for k in 0..300 {
        tick(&mut job, &mut samples, k);
    }
    let b = job.world().spawn_slots.first + spawns.slot_of("cube").unwrap();
    assert!(job.world().states[b].pose.translation.z < 0.6, "it fell");
    requests.reset(ResetScope::STATE);
    tick(&mut job, &mut samples, 300);
    // The reset, then one step from rest: 1 ms of free fall.
    let z = job.world().states[b].pose.translation.z;
    assert!((z - (1.0 - 9.81e-6)).abs() < 1e-9, "back at 1 m: {z}");
    let before = counters.snapshot().last_contacts;
    assert!(spawns.delete_all().unwrap().is_some());
    tick(&mut job, &mut samples, 301);
    assert_eq!(job.world().spawn_slots.occupant, [None, None]);
    assert_eq!(counters.snapshot().last_contacts, before, "in the air: no contact lost");
}

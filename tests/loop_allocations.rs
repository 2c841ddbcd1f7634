//! Proof that the real-time loop allocates nothing after start-up.
//!
//! A counting global allocator tallies allocations per thread. The node's loop job (the
//! simulator stepping the bundled quadruped and its crate) runs in the real loop
//! (`run_loop`, absolute deadlines, statistics, reports) on this test's thread at 2 kHz
//! for 0.5 s, with short report windows so that several windows are
//! summarized and published in between, while another thread writes effort commands into
//! the mailbox and a third drains the sample ring, as the ROS side does; a fourth pauses,
//! steps, resets (time, state), stops and plays the simulation as the standard simulator
//! services do. Allocations on the loop thread are counted from the second tick to the
//! last. Every kind of sensor is on (IMUs with noise, joint force/torque, foot contacts).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use signorini::app::Setup;
use signorini::app::sim_requests::StepProgress;
use signorini::app::{OutputLayout, ResetScope, SimJob, SimLoop, SimulationState};
use signorini::runtime::{
    Counters, EffortCommand, Job, LoopReport, LoopSettings, Tick, mailbox, run_loop, sample_ring,
};

mod common;
mod counting;
use counting::allocations_here;

/// Wraps the node's job: reads the loop thread's allocation count at tick 1 and after
/// every tick, and stops the loop after `ticks`.
struct Measured<J> {
    inner: J,
    ticks: u64,
    at_tick_1: u64,
    at_end: u64,
    stop: Arc<AtomicBool>,
}

impl<J: Job> Job for Measured<J> {
    fn tick(&mut self, tick: &Tick) {
        if tick.index == 1 {
            self.at_tick_1 = allocations_here();
        }
        self.inner.tick(tick);
        if tick.index + 1 >= self.ticks {
            self.at_end = allocations_here();
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn the_loop_allocates_nothing_after_start_up() {
    // The bundled quadruped (base IMU, four foot contacts) with every kind of sensor on:
    // a noisy IMU at a lower rate and joint force/torque sensors.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml");
    let mut config = signorini::config::Config::from_file(&path).unwrap();
    config.sensors.imu.extend(
        serde_yaml_ng::from_str::<Vec<signorini::config::ImuConfig>>(
            "[{name: noisy, link: lf_shank, rpy: [0.1, 0.2, 0.3], rate_hz: 500, gyro_noise: [0.01, 0.01, 0.01], \
             accel_noise: [0.1, 0.1, 0.1], accel_bias: [0.01, 0, 0]}]",
        )
        .unwrap(),
    );
    config.sensors.force_torque = serde_yaml_ng::from_str(
        "[{name: knee, joint: lf_kfe, xyz: [0, 0, -0.1]}, {name: hip, joint: rh_haa, direction: child_to_parent}]",
    )
    .unwrap();
    let urdf = config.robot.urdf.clone().expect("the bundled configuration names its URDF");
    let robot = signorini::model::RobotDescription::from_file(&urdf).unwrap();
    let setup = Setup::new(&path, config, robot).unwrap();
    assert_eq!(
        (setup.sensors.imu.len(), setup.sensors.force_torque.len(), setup.sensors.foot_contact.len()),
        (2, 2, 4)
    );
    let n = setup.joint_names.len();
    let world = setup.sim_world().unwrap();
    let counters = Arc::new(Counters::default());
    let (mut command_writer, command_reader) = mailbox(EffortCommand { effort: vec![0.0; n] });
    let (producer, mut consumer) = sample_ring(64, &OutputLayout::new(&setup, &world).outputs());
    let (mut report_writer, mut report_reader) = mailbox(LoopReport::default());
    let stop = Arc::new(AtomicBool::new(false));

    let job = SimJob::new(&setup, world, command_reader, producer, Duration::from_millis(50), counters.clone());
    // External wrenches too: a push on the trunk, on and off.
    let (mut wrench_writer, wrench_reader) = mailbox(job.wrench_table());
    // And the entity services: a snapshot after every step, SetEntityState of the crate
    // and of the floating base (issue 25).
    let entities = signorini::app::Entities::new(
        job.world().robot.as_ref().map(|r| &*r.model),
        &[],
        &["crate".to_string()],
        job.world().collision.objects(),
    );
    let (entity_loop, mut entity_io) = signorini::app::entity_exchange(job.world());
    let job = job.with_external_wrenches(wrench_reader).with_entities(entity_loop);
    let setter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut applied = 0;
            let robot = entities.all()[0].name.clone();
            while !stop.load(Ordering::Relaxed) {
                for (name, z) in [("crate", 0.5), (robot.as_str(), 0.4)] {
                    let request = signorini::app::entities::RequestedState {
                        frame: "",
                        position: [0.8, 0.0, z],
                        orientation: [0.0, 0.0, 0.0, 1.0],
                        linear: [0.0, 0.0, -0.1],
                        angular: [0.0; 3],
                    };
                    let e = entities.get(name).unwrap();
                    let command = signorini::app::entities::check_set(&e, &request).unwrap();
                    let sequence = entity_io.setter.send(command);
                    while !stop.load(Ordering::Relaxed) && !entity_io.setter.applied(sequence) {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    applied += 1;
                    let _ = entity_io.snapshots.latest();
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            applied
        })
    };
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut k = 0.0;
            while !stop.load(Ordering::Relaxed) {
                k += 1.0;
                // Alternating small efforts and a push on the trunk: the robot moves,
                // contacts come and go.
                let sign = if k % 2.0 == 0.0 { 1.0 } else { -1.0 };
                command_writer.write_with(|c| c.effort.fill(2.0 * sign));
                wrench_writer.write_with(|w| w.joints[1].linear.y = 5.0 * sign);
                std::thread::sleep(Duration::from_micros(300));
            }
        })
    };
    // The simulator services' requests, cycling: pause, 5 steps, resets, stop, play.
    let requests = job.requests();
    let services = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut stepped = 0;
            while !stop.load(Ordering::Relaxed) {
                requests.set_paused(true);
                if let Some(mut budget) = requests.begin_steps(5) {
                    while !stop.load(Ordering::Relaxed) && budget.poll(false) != StepProgress::Done {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    stepped += 5;
                }
                requests.reset(ResetScope::TIME);
                requests.reset(ResetScope::STATE);
                std::thread::sleep(Duration::from_millis(5));
                let _ = requests.set_state(SimulationState::Stopped);
                std::thread::sleep(Duration::from_millis(5));
                requests.set_paused(false);
                std::thread::sleep(Duration::from_millis(10));
            }
            stepped
        })
    };
    let drainer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut received = 0u64;
            while !stop.load(Ordering::Relaxed) || !consumer.is_empty() {
                while consumer.pop_with(|s| {
                    assert!(s.effort.iter().chain(&s.position).all(|x| x.is_finite()));
                    assert!(s.sensors.imu.iter().all(|r| r.value.is_finite()));
                    assert!(s.sensors.force_torque.iter().all(|r| r.value.is_finite()));
                    received += 1;
                }) {}
                std::thread::sleep(Duration::from_micros(200));
            }
            received
        })
    };

    let mut measured = Measured { inner: job, ticks: 1000, at_tick_1: 0, at_end: 0, stop: stop.clone() };
    let mut settings = LoopSettings::at_rate("alloc-test", 2000.0);
    settings.report_interval = Duration::from_millis(50);
    let last = run_loop(&settings, &mut measured, &stop, &mut report_writer);

    writer.join().unwrap();
    let received = drainer.join().unwrap();
    assert!(services.join().unwrap() >= 15, "several step budgets ran");
    assert!(setter.join().unwrap() >= 10, "several entity states were set");
    assert_eq!(last.total_ticks, 1000);
    assert!(report_reader.latest().value.window_index >= 10, "several report windows were published");
    // Paused and stopped ticks do not step: fewer samples than ticks.
    assert!(received + counters.snapshot().samples_dropped < 1000);
    assert!(counters.snapshot().samples_dropped < 1000, "the drainer received samples");
    assert_eq!(
        measured.at_end - measured.at_tick_1,
        0,
        "heap allocations on the loop thread between tick 1 and tick 999"
    );
}

/// The same with per-joint JointState commands flowing (issue 24): the arm in `mode: sim`
/// under position commands that change every 300 µs, checked by the node's
/// [`JointCommandInput`] and exchanged through its mailbox, its servos in the loop.
#[test]
fn the_loop_allocates_nothing_with_joint_state_commands_flowing() {
    let setup = Setup::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/arm7.yaml"), None).unwrap();
    let counters = Arc::new(Counters::default());
    let SimLoop { job, joint_commands: (mut table_writer, mut input), ends, .. } =
        SimLoop::new(&setup, counters.clone()).unwrap();
    let mut consumer = ends.samples;
    let (mut report_writer, _report_reader) = mailbox(LoopReport::default());
    let stop = Arc::new(AtomicBool::new(false));
    let names = setup.joint_names.clone();
    let start = setup.initial_positions.clone();
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut k = 0.0f64;
            while !stop.load(Ordering::Relaxed) {
                k += 1.0;
                let position: Vec<f64> = start.iter().map(|p| p + 0.2 * (k * 0.01).sin()).collect();
                let table = input.apply(&names, &position, &[], &[]).expect("a valid command");
                table_writer.write_with(|t| t.clone_from(table));
                std::thread::sleep(Duration::from_micros(300));
            }
        })
    };
    let drainer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) || !consumer.is_empty() {
                while consumer.pop_with(|s| assert!(s.effort.iter().chain(&s.position).all(|x| x.is_finite()))) {}
                std::thread::sleep(Duration::from_micros(200));
            }
        })
    };
    let mut measured = Measured { inner: job, ticks: 1000, at_tick_1: 0, at_end: 0, stop: stop.clone() };
    let mut settings = LoopSettings::at_rate("alloc-test-joint-commands", 2000.0);
    settings.report_interval = Duration::from_millis(50);
    let last = run_loop(&settings, &mut measured, &stop, &mut report_writer);
    writer.join().unwrap();
    drainer.join().unwrap();
    assert_eq!(last.total_ticks, 1000);
    let r = measured.inner.world().robot.as_ref().unwrap();
    let moved =
        setup.joint_slots().iter().zip(&setup.initial_positions).any(|(s, p)| (s.position(&r.q) - p).abs() > 1e-3);
    assert!(moved, "the servos followed the commands");
    assert_eq!(measured.at_end - measured.at_tick_1, 0, "heap allocations on the loop thread with joint commands");
}

/// The same while bodies are spawned and deleted (issue 25): a service thread spawns
/// cubes into the quadruped's world (built off the loop, swapped into their slots by the
/// loop), deletes them one by one and all at once; the slots' previous contents are
/// dropped on that thread.
#[test]
fn the_loop_allocates_nothing_while_bodies_are_spawned_and_deleted() {
    use signorini::app::spawning::{SpawnRequest, prepare};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml");
    let mut setup = Setup::load(&path, None).unwrap();
    setup.config.simulation_interfaces.spawn_capacity = 4;
    let counters = Arc::new(Counters::default());
    let SimLoop { job, ends, .. } = SimLoop::new(&setup, counters.clone()).unwrap();
    let mut consumer = ends.samples;
    let spawns = ends.spawns;
    let (mut report_writer, _report_reader) = mailbox(LoopReport::default());
    let stop = Arc::new(AtomicBool::new(false));
    let cube = r#"<robot name="cube"><link name="cube"><inertial><mass value="1"/>
        <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
        <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>"#;
    let service = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut applied = 0;
            let mut k = 0.0;
            while !stop.load(Ordering::Relaxed) {
                k += 1.0;
                let request = SpawnRequest {
                    resource_string: cube.into(),
                    allow_renaming: true,
                    position: [1.6, 0.0, 0.15 + 0.01 * (k % 5.0)],
                    orientation: [0.0, 0.0, 0.0, 1.0],
                    ..SpawnRequest::default()
                };
                let ticket = match spawns.spawn(prepare(&request).unwrap()) {
                    Ok((_, ticket)) => Some(ticket),
                    Err(_) => spawns.delete_all().unwrap(),
                };
                std::thread::sleep(Duration::from_millis(2));
                if ticket.is_some_and(|t| spawns.applied(t)) {
                    applied += 1;
                }
                if k % 3.0 == 0.0
                    && let Some(name) = spawns.names().first()
                {
                    spawns.delete(name).unwrap();
                }
            }
            applied
        })
    };
    let drainer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut spawned = 0;
            while !stop.load(Ordering::Relaxed) || !consumer.is_empty() {
                while consumer.pop_with(|s| spawned = spawned.max(s.spawned.iter().flatten().count())) {}
                std::thread::sleep(Duration::from_micros(200));
            }
            spawned
        })
    };
    let mut measured = Measured { inner: job, ticks: 1000, at_tick_1: 0, at_end: 0, stop: stop.clone() };
    let mut settings = LoopSettings::at_rate("alloc-test-spawning", 2000.0);
    settings.report_interval = Duration::from_millis(50);
    let last = run_loop(&settings, &mut measured, &stop, &mut report_writer);
    let applied = service.join().unwrap();
    let most_spawned = drainer.join().unwrap();
    assert_eq!(last.total_ticks, 1000);
    assert!(applied >= 50, "{applied} spawns applied");
    assert!(most_spawned >= 2, "samples held {most_spawned} spawned bodies at most");
    assert_eq!(measured.at_end - measured.at_tick_1, 0, "heap allocations on the loop thread while spawning");
}

#[test]
fn the_counting_allocator_sees_allocations() {
    // The proof above is only worth something if the counter counts.
    let before = allocations_here();
    let v: Vec<u64> = std::hint::black_box(vec![1, 2, 3]);
    assert!(allocations_here() > before);
    drop(v);
}

/// Many free bodies in several piles, solved island by island: after the first step (and
/// the first contacts) a step allocates nothing, whether the islands merge or split.
#[test]
fn the_stepper_allocates_nothing_with_many_bodies_in_islands() {
    use signorini::collision::CollisionShape;
    use signorini::model::{FreeBody, FreeBodyState};
    use signorini::scenes::worlds;
    use signorini::spatial::{SE3, Vec3, rotation_from_rpy};
    let mut world = worlds::ground(Vec3::z(), 0.6, 0.0);
    for pile in 0..6 {
        for k in 0..10 {
            let (layer, cell) = (k / 4, k % 4);
            let centre =
                Vec3::new(pile as f64 + 0.12 * (cell % 2) as f64, 0.12 * (cell / 2) as f64, 0.07 + 0.12 * layer as f64);
            let name = format!("box{pile}_{k}");
            let mut shape = worlds::shape(&name, CollisionShape::cuboid(Vec3::repeat(0.05)));
            shape.friction = 0.6;
            let pose = SE3::new(rotation_from_rpy(0.0, 0.0, 0.02 * k as f64), centre);
            let body = FreeBody::cuboid(&name, 1.0, &Vec3::repeat(0.05)).unwrap();
            world.add_body(body, &[shape], FreeBodyState::at_rest(pose));
        }
    }
    let settings = signorini::contact::ContactSettings { islands: true, ..Default::default() };
    let mut stepper = signorini::sim::Stepper::new(&world, 1e-3, &settings, 600);
    stepper.step(&mut world, &[]);
    let before = allocations_here();
    let (mut most_islands, mut most_contacts) = (0, 0);
    for _ in 0..400 {
        let r = stepper.step(&mut world, &[]);
        most_islands = most_islands.max(r.islands);
        most_contacts = most_contacts.max(r.contacts);
    }
    assert_eq!(allocations_here() - before, 0, "heap allocations while stepping 60 boxes in islands");
    assert!(most_islands >= 6 && most_contacts >= 100, "{most_islands} islands, {most_contacts} contacts");
}

/// The 1000-box pile of scripts/bench_scale.py's scale table (issue 28): a 10 × 10 × 10
/// lattice of 1 kg boxes (0.1 m, pitch 0.14 m, μ 0.6), jittered (±1 cm, ±0.2 rad of
/// yaw), dropped 0.3 m, stepped for its first second at Δt 1 ms: after the first step,
/// nothing allocates while the layers land and settle into a pile of thousands of contacts
/// in islands. The stepper is sized for 6000 contacts (5552 measured; examples/sim_scale.rs
/// sizes it for 8064): it still reserves its dense buffers for all of them in one island,
/// address space it does not touch (2.6 GB for the largest of them here).
#[test]
fn the_stepper_allocates_nothing_with_a_pile_of_1000_boxes() {
    use signorini::scenes::worlds;
    let (half, pitch, drop) = (0.05, 0.14, 0.3);
    let mut seed = 28u64;
    let mut jitter = |scale: f64| {
        // xorshift64*: a fixed jitter, so that the pile is the same on every run.
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let unit = (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        (2.0 * unit - 1.0) * scale
    };
    let boxes: Vec<[f64; 4]> = (0..1000)
        .map(|i| {
            let (layer, row, col) = (i / 100, (i % 100) / 10, i % 10);
            [
                pitch * col as f64 + jitter(0.01),
                pitch * row as f64 + jitter(0.01),
                half + drop + pitch * layer as f64 + jitter(0.005),
                jitter(0.2),
            ]
        })
        .collect();
    let mut world = worlds::box_layout(&boxes, 1.0, half, 0.6);
    let settings = signorini::contact::ContactSettings::default();
    let mut stepper = signorini::sim::Stepper::new(&world, 1e-3, &settings, 6000);
    stepper.step(&mut world, &[]);
    let before = allocations_here();
    let (mut most_contacts, mut unconverged) = (0, 0);
    for _ in 1..1000 {
        let r = stepper.step(&mut world, &[]);
        most_contacts = most_contacts.max(r.contacts);
        unconverged += usize::from(!r.converged);
    }
    assert_eq!(allocations_here() - before, 0, "heap allocations while stepping 1000 boxes");
    // 5552 contacts at most measured (bench_scale's own jitter: 5666); every step converged.
    assert!(most_contacts >= 5000, "{most_contacts} contacts at most");
    assert_eq!(unconverged, 0);
    assert!(world.is_finite());
}

/// A tower of 70 boxes standing: one island of 280 contacts, beyond `DENSE_CONTACTS`
/// solved by W without G (tests/sim_islands.rs checks its impulses): nothing allocates
/// after the first step.
#[test]
fn the_stepper_allocates_nothing_on_an_island_solved_without_g() {
    use signorini::scenes::worlds;
    let boxes: Vec<[f64; 4]> = (0..70).map(|k| [0.0, 0.0, 0.05 + 0.1 * k as f64, 0.0]).collect();
    let mut world = worlds::box_layout(&boxes, 1.0, 0.05, 0.6);
    let settings = signorini::contact::ContactSettings::default();
    let mut stepper = signorini::sim::Stepper::new(&world, 1e-3, &settings, 400);
    stepper.step(&mut world, &[]);
    let before = allocations_here();
    let mut most_contacts = 0;
    for _ in 0..50 {
        let r = stepper.step(&mut world, &[]);
        most_contacts = most_contacts.max(r.contacts);
        assert!(r.converged);
    }
    assert_eq!(allocations_here() - before, 0, "heap allocations while stepping the tower");
    assert!(most_contacts > signorini::contact::DENSE_CONTACTS, "{most_contacts} contacts");
}

/// The stepper's fallback and guard on unconverged steps (a solver whose impulses are a
/// million times too large, or NaN reported converged: tests/solver_faults.rs): with the
/// CCP fallback or none, refusing and scaling the impulses allocates nothing after the
/// first step.
#[test]
fn the_stepper_allocates_nothing_when_its_guard_refuses_impulses() {
    use common::{Fault, Faulty};
    use signorini::config::{ContactConfig, Fallback};
    use signorini::scenes::worlds;
    use signorini::sim::Stepper;
    for fault in [Fault::Amplified(1e6), Fault::NotANumber] {
        for fallback in [Fallback::Ccp, Fallback::None] {
            let mut world = worlds::box_layout(&[[0.0, 0.0, 0.05, 0.0], [0.3, 0.0, 0.05, 0.5]], 1.0, 0.05, 0.6);
            let contact = ContactConfig { polish: false, fallback, ..Default::default() }.settings();
            let solver = Box::new(Faulty::around_admm(&contact, Stepper::blocks(&world, 32), fault));
            let mut stepper = Stepper::with_solver(&world, 1e-3, &contact, 32, solver);
            stepper.step(&mut world, &[]);
            let before = allocations_here();
            let mut refused = 0;
            for _ in 0..100 {
                refused += usize::from(stepper.step(&mut world, &[]).refused);
            }
            assert_eq!(allocations_here() - before, 0, "{fault:?}, {fallback:?}: heap allocations while stepping");
            let expected = if fallback == Fallback::None { 100 } else { 0 };
            assert_eq!(refused, expected, "{fault:?}, {fallback:?}");
        }
    }
}

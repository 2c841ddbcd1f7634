//! The spawning scenario of issue 25, shared by `tests/spawning` (what it must do) and
//! `examples/spawn_timing.rs` (what it costs): the bundled quadruped simulated at 1 kHz
//! while 20 cubes of 0.2 m are spawned, one per simulated second, over five spots so that
//! they stack four high.
//!
//! The job is ticked as the loop ticks it, back to back (simulated time is the step count).

#![allow(dead_code)] // each user takes part of it

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use signorini::app::spawning::{SpawnRequest, prepare};
use signorini::app::{OutputLayout, Outputs, Setup, SimJob, Spawns};
use signorini::runtime::{Counters, EffortCommand, Job, MonotonicTime, SampleConsumer, Tick, mailbox, sample_ring};

/// A 0.2 m cube of 1 kg (its inertia left to the uniform solid's).
pub const CUBE: &str = r#"<robot name="cube"><link name="cube">
    <inertial><mass value="1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>"#;

/// The cube's side (m).
pub const SIDE: f64 = 0.2;

/// Where the boxes fall (x, y), clear of the robot and of the configured crate at (0.8, 0).
pub const SPOTS: [(f64, f64); 5] = [(1.6, -0.6), (1.6, 0.6), (-1.6, 0.0), (0.0, 1.6), (0.0, -1.6)];

/// Boxes spawned, one per second of simulated time.
pub const BOXES: usize = 20;

/// Ticks per simulated second at 1 kHz.
pub const SECOND: u64 = 1000;

/// The bundled quadruped's setup with `spawn_capacity` slots.
pub fn quadruped(spawn_capacity: usize) -> Setup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml");
    let mut setup = Setup::load(&path, None).expect("config/quadruped.yaml loads");
    setup.config.simulation_interfaces.spawn_capacity = spawn_capacity;
    assert_eq!(setup.config.sim_dt(), 1e-3, "the quadruped is simulated at 1 kHz");
    setup
}

/// A simulation job, its spawn table and counters, with a drained sample ring; `k` is
/// the next tick's index.
pub struct Run {
    pub job: SimJob,
    pub spawns: Arc<Spawns>,
    pub counters: Arc<Counters>,
    samples: SampleConsumer<Outputs>,
    pub k: u64,
}

impl Run {
    pub fn new(setup: &Setup) -> Self {
        let world = setup.sim_world().expect("the quadruped's world");
        let (producer, samples) = sample_ring(4, &OutputLayout::new(setup, &world).outputs());
        let (_, commands) = mailbox(EffortCommand { effort: vec![0.0; setup.joint_names.len()] });
        let counters = Arc::new(Counters::default());
        let job = SimJob::new(setup, world, commands, producer, Duration::from_millis(50), counters.clone());
        let spawns = job.spawns();
        Self { job, spawns, counters, samples, k: 0 }
    }

    /// Ticks the job once and returns the tick's compute time (around `Job::tick`).
    pub fn tick(&mut self) -> Duration {
        let t = MonotonicTime::from_nanos(self.k * 1_000_000);
        let tick = Tick { index: self.k, deadline: t, wake: t, period: Duration::from_millis(1) };
        let start = Instant::now();
        self.job.tick(&tick);
        let took = start.elapsed();
        while self.samples.pop_with(|_| {}) {}
        self.k += 1;
        took
    }

    /// `n` ticks; `each` gets their compute times.
    pub fn ticks(&mut self, n: u64, mut each: impl FnMut(Duration)) {
        for _ in 0..n {
            each(self.tick());
        }
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> u64 {
        self.counters.snapshot().last_contacts
    }

    /// The 20 boxes: one per simulated second, each 0.2 m above the top of its spot's
    /// stack, then it falls for the rest of the second. `each(spawning, took)` gets every
    /// tick's compute time, `spawning` on the tick that applied a spawn.
    pub fn spawn_the_boxes(&mut self, mut each: impl FnMut(bool, Duration)) {
        for b in 0..BOXES {
            let (x, y) = SPOTS[b % SPOTS.len()];
            let level = (b / SPOTS.len()) as f64;
            let request = cube_at(&box_name(b), x, y, SIDE * (level + 0.5) + SIDE);
            let (name, ticket) = self.spawns.spawn(prepare(&request).expect("the cube parses")).expect("a free slot");
            assert_eq!(name, box_name(b));
            each(true, self.tick());
            assert!(self.spawns.applied(ticket), "applied at the next tick");
            self.ticks(SECOND - 1, |took| each(false, took));
        }
    }
}

/// The name of box `b`.
pub fn box_name(b: usize) -> String {
    format!("box_{b}")
}

/// A request for the cube named `name` at (x, y, z), level.
pub fn cube_at(name: &str, x: f64, y: f64, z: f64) -> SpawnRequest {
    SpawnRequest {
        name: name.into(),
        resource_string: CUBE.into(),
        frame_id: "world".into(),
        position: [x, y, z],
        orientation: [0.0, 0.0, 0.0, 1.0],
        ..SpawnRequest::default()
    }
}

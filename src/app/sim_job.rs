//! The loop job of `mode: sim`: one simulator step per tick, driven by the latest effort
//! command.
//!
//! Each tick: the effort command (command mailbox → watchdog) while it is fresh, else per
//! joint its held JointState command through its servo ([`super::joint_commands`],
//! [`crate::sim::servo`]), else the fallback, the joint PD of `sim.hold_kp`/`hold_kd`
//! towards the initial posture (zero effort with the default gains); the newest external
//! wrenches; one step of the
//! simulator; its outputs
//! ([`super::outputs`]) pushed to the sample ring for the publisher, which is woken (every
//! `sim.publish_every` steps). A state that stops being finite is never published: it is
//! reset to the initial one and, by `sim.on_non_finite`, the simulation runs on (time
//! too) or halts until a reset of the state; either is counted. The sensors (`sensors:`)
//! are measured after each step and their readings ride in the samples. A step whose
//! contact solve used `contact.fallback`, or whose impulses the stepper's guard refused,
//! is counted. The I/O side's requests
//! ([`SimRequests`]: resets by scope, playing, pausing, steps while paused) are read at the
//! top of each tick. Nothing allocates after start-up.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::Thread;
use std::time::Duration;

use super::entity_exchange::EntityLoop;
use super::joint_commands::JointCommandTable;
use super::outputs::{OutputLayout, Outputs};
use super::sim_requests::SimRequests;
use super::sim_requests::SimulationState;
use super::spawning::{self, SpawnOrders, Spawns};
use crate::app::{JointSlot, Setup};
use crate::config::{Fallback, InitialState, NonFinitePolicy};
use crate::model::FreeBodyState;
use crate::runtime::{Counters, EffortCommand, Freshness, HandOff, Job, MailboxReader, SampleProducer, Tick, Watchdog};
use crate::sim::{JointPd, JointServo, Sensors, Stepper, World};
use crate::spatial::Force;

/// External wrenches from the I/O side (`~/external_wrench`): the whole table, one per
/// robot joint's body (world axes, torque about the joint's origin) and one per free body
/// (world axes, at its origin); the loop applies the newest table until the next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExternalWrenches {
    /// Per robot joint (the model's njoints).
    pub joints: Vec<Force>,
    /// Per free body.
    pub bodies: Vec<Force>,
}

/// The configured initial state (`simulation_interfaces.initial_state`).
fn initial_state(configured: InitialState) -> SimulationState {
    match configured {
        InitialState::Playing => SimulationState::Playing,
        InitialState::Paused => SimulationState::Paused,
        InitialState::Stopped => SimulationState::Stopped,
    }
}

/// `setup`'s spawn slots (`simulation_interfaces.spawn_capacity`) added to `world`, and
/// their table (the robot's and the configured bodies' names are not for spawned ones).
fn spawn_table(setup: &Setup, world: &mut World) -> (Spawns, SpawnOrders) {
    let capacity = setup.config.simulation_interfaces.spawn_capacity;
    let mut fixed: Vec<String> = world.bodies.iter().map(|b| b.name.clone()).collect();
    fixed.push(setup.robot.name.clone());
    // Their poses go on /tf as frames of their names: no robot frame's.
    fixed.extend(setup.model.frames.iter().map(|f| f.name.clone()));
    fixed.push("world".into());
    // Nor any other entity's name (the robots, their links, the environment's shapes).
    let entities = super::Entities::new(Some(&setup.model), &setup.robots, &[], world.collision.objects());
    fixed.extend(entities.all().iter().map(|e| e.name.clone()));
    if capacity > 0 {
        let (placeholder, shape) = spawning::placeholder();
        world.add_spawn_slots(capacity, &placeholder, &shape);
    }
    Spawns::new(capacity, fixed)
}

/// The simulator in the loop.
pub struct SimJob {
    world: World,
    stepper: Stepper,
    fallback: JointPd,
    joints: Vec<JointSlot>,
    layout: OutputLayout,
    commands: MailboxReader<EffortCommand>,
    samples: SampleProducer<Outputs>,
    watchdog: Watchdog,
    counters: Arc<Counters>,
    tau: Vec<f64>,
    /// The initial robot state and free bodies, for a reset.
    initial: (Vec<f64>, Vec<f64>, Vec<FreeBodyState>),
    /// The publisher woken after a tick that pushed a sample.
    hand_off: HandOff,
    /// The simulated state stopped being finite under `sim.on_non_finite: halt`: no step
    /// until a reset of the state.
    halted: bool,
    requests: Arc<SimRequests>,
    /// Publish one step of this many (`sim.publish_every`), counting `steps`.
    publish_every: u64,
    steps: u64,
    /// Every step taken (see [`SimJob::steps_taken`]).
    taken: u64,
    /// External wrenches, and the sequence of the table applied.
    wrenches: Option<(MailboxReader<ExternalWrenches>, u64)>,
    /// Commands from the same process (the controller of `mode: sim+control`): applied
    /// however old, as the controller does not tick while the simulation is paused.
    trusted: bool,
    on_non_finite: NonFinitePolicy,
    /// The robot's sensors, if any are configured.
    sensors: Option<Sensors>,
    /// Per-joint commands held from the JointState topic, and their servos.
    joint_commands: Option<HeldCommands>,
    /// The entity services' snapshots and SetEntityState requests.
    entities: Option<EntityLoop>,
    /// Bodies spawned and deleted while running: the orders from the I/O side's table.
    spawn_orders: SpawnOrders,
    spawns: Arc<Spawns>,
}

/// The held JointState commands the loop reads, each joint's servo and its integral.
struct HeldCommands {
    table: MailboxReader<JointCommandTable>,
    servos: Vec<JointServo>,
    integrals: Vec<f64>,
}

impl SimJob {
    /// Runs `world` (`setup.sim_world()`, at its initial state) as `setup` configures.
    /// Commands older than `stale_after` give way to the fallback ([`SimJob::hand_off_to`]
    /// wakes a publisher after each sample). The sample ring's samples must be
    /// `OutputLayout::new(setup, &world).outputs()`.
    pub fn new(
        setup: &Setup,
        world: World,
        commands: MailboxReader<EffortCommand>,
        samples: SampleProducer<Outputs>,
        stale_after: Duration,
        counters: Arc<Counters>,
    ) -> Self {
        let dt = setup.config.sim_dt();
        let mut world = world;
        let (spawns, spawn_orders) = spawn_table(setup, &mut world);
        let stepper =
            Stepper::new(&world, dt, &setup.config.contact.settings(), setup.config.collision.max_contacts.get());
        let joints = setup.joint_slots();
        let fallback = setup.hold_pd();
        let initial = match world.robot.as_ref() {
            Some(r) => (r.q.clone(), r.v.clone(), world.states.clone()),
            None => (Vec::new(), Vec::new(), world.states.clone()),
        };
        let sensors = match world.robot.as_ref() {
            Some(r) if !setup.sensors.is_empty() => {
                Some(Sensors::new(&r.model, world.collision.objects(), setup.sensors.clone()))
            }
            _ => None,
        };
        Self {
            sensors,
            layout: OutputLayout::new(setup, &world),
            tau: vec![0.0; setup.model.nv],
            world,
            stepper,
            fallback,
            joints,
            commands,
            samples,
            watchdog: Watchdog::new(stale_after),
            counters,
            initial,
            hand_off: HandOff::default(),
            halted: false,
            requests: Arc::new(SimRequests::new(initial_state(setup.config.simulation_interfaces.initial_state))),
            publish_every: setup.config.sim.publish_every.get() as u64,
            steps: 0,
            taken: 0,
            wrenches: None,
            trusted: false,
            on_non_finite: setup.config.sim.on_non_finite,
            joint_commands: None,
            entities: None,
            spawn_orders,
            spawns: Arc::new(spawns),
        }
    }

    /// Publishes entity snapshots to, and applies SetEntityState requests from, `ends`
    /// ([`super::entity_exchange`]).
    pub fn with_entities(mut self, ends: EntityLoop) -> Self {
        self.entities = Some(ends);
        self
    }

    /// The spawned bodies' table, through which the I/O side spawns and deletes them.
    pub fn spawns(&self) -> Arc<Spawns> {
        self.spawns.clone()
    }

    /// Drives each joint by the command `table` holds for it (a table of the controlled
    /// joints) through its servo of `servos` (`setup.joint_servos()`), while no fresh
    /// effort command drives them all; joints never commanded keep the fallback.
    pub fn with_joint_commands(mut self, table: MailboxReader<JointCommandTable>, servos: Vec<JointServo>) -> Self {
        let integrals = vec![0.0; servos.len()];
        self.joint_commands = Some(HeldCommands { table, servos, integrals });
        self
    }

    /// Unparks `publisher` after each sample (the hand-off, measured apart in the loop
    /// report).
    pub fn hand_off_to(&mut self, publisher: Thread) {
        self.hand_off.to(publisher);
    }

    /// Applies the latest command whatever its age (a controller in the same loop writes
    /// one each step it sees; none while paused).
    pub fn with_trusted_commands(mut self) -> Self {
        self.trusted = true;
        self
    }

    /// Applies the external wrench tables `wrenches` delivers (sized as
    /// [`SimJob::wrench_table`]).
    pub fn with_external_wrenches(mut self, wrenches: MailboxReader<ExternalWrenches>) -> Self {
        self.wrenches = Some((wrenches, 0));
        self
    }

    /// An empty table of external wrenches for this world.
    pub fn wrench_table(&self) -> ExternalWrenches {
        let joints = self.world.robot.as_ref().map_or(0, |r| r.model.njoints());
        ExternalWrenches { joints: vec![Force::ZERO; joints], bodies: vec![Force::ZERO; self.world.bodies.len()] }
    }

    /// The newest external wrench table into the world.
    fn apply_wrenches(&mut self) {
        let Some((reader, applied)) = self.wrenches.as_mut() else { return };
        let latest = reader.latest();
        if latest.sequence == *applied {
            return;
        }
        *applied = latest.sequence;
        if let Some(r) = self.world.robot.as_mut()
            && r.wrenches.len() == latest.value.joints.len()
        {
            r.wrenches.copy_from_slice(&latest.value.joints);
        }
        if self.world.wrenches.len() == latest.value.bodies.len() {
            self.world.wrenches.copy_from_slice(&latest.value.bodies);
        }
    }

    /// The handle through which the I/O side pauses, steps and resets the simulation.
    pub fn requests(&self) -> Arc<SimRequests> {
        self.requests.clone()
    }

    /// What the samples hold.
    pub fn layout(&self) -> &OutputLayout {
        &self.layout
    }

    /// Freshness of the effort command at the last tick.
    pub fn input_freshness(&self) -> Freshness {
        self.watchdog.state()
    }

    /// The simulated world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// τ: the fresh command on the controlled joints, else the fallback.
    fn effort(&mut self, tick: &Tick) {
        let command = self.commands.latest();
        let received = (command.sequence > 0).then_some(command.stamp);
        let freshness = match (self.trusted, received) {
            (true, Some(_)) => Freshness::Fresh,
            _ => {
                let verdict = self.watchdog.verdict(received, tick.wake);
                self.counters.record_input(verdict);
                verdict.freshness
            }
        };
        let Some(r) = self.world.robot.as_ref() else { return };
        match freshness {
            // The I/O side only publishes commands of the right length.
            Freshness::Fresh if command.value.effort.len() == self.joints.len() => {
                // NaN: a joint no command has reached yet (a robot of `robots:` whose
                // controller has not published): the fallback holds it.
                if command.value.effort.iter().any(|e| e.is_nan()) {
                    self.fallback.torques(&r.model, &r.q, &r.v, &mut self.tau);
                } else {
                    self.tau.fill(0.0);
                }
                for (slot, e) in self.joints.iter().zip(&command.value.effort).filter(|(_, e)| !e.is_nan()) {
                    self.tau[slot.idx_v] = *e;
                }
            }
            _ => {
                self.fallback.torques(&r.model, &r.q, &r.v, &mut self.tau);
                self.servo_held_commands();
                return;
            }
        }
        // The effort command took over: the servos start afresh after it.
        if let Some(held) = self.joint_commands.as_mut() {
            held.integrals.fill(0.0);
        }
    }

    /// τ of each joint with a held JointState command: its servo's, at the state the step
    /// starts from (over the fallback's).
    fn servo_held_commands(&mut self) {
        let (Some(held), Some(r)) = (self.joint_commands.as_mut(), self.world.robot.as_ref()) else { return };
        let table = &held.table.latest().value;
        let commands = table.targets.iter().zip(&table.commanded).zip(&held.servos).zip(&mut held.integrals);
        for ((((&target, &commanded), servo), integral), slot) in commands.zip(&self.joints) {
            if commanded {
                let (position, velocity) = (slot.position(&r.q), r.v[slot.idx_v]);
                self.tau[slot.idx_v] = servo.torque(target, position, velocity, integral, self.stepper.dt);
            }
        }
    }

    /// Puts the robot and the free bodies back at their initial state (time runs on).
    fn reset(&mut self) {
        if let Some(r) = self.world.robot.as_mut() {
            r.q.copy_from_slice(&self.initial.0);
            r.v.copy_from_slice(&self.initial.1);
        }
        self.world.states.clone_from_slice(&self.initial.2);
        if let Some(held) = self.joint_commands.as_mut() {
            held.integrals.fill(0.0);
        }
        if let Some(sensors) = self.sensors.as_mut() {
            sensors.reset();
        }
    }

    /// The resets the I/O side asked for: the state (which also ends a halt), simulated
    /// time back to 0 (the next step is at Δt).
    fn apply_resets(&mut self) {
        let Some((scope, generation)) = self.requests.take_reset() else { return };
        if scope.state() {
            self.reset();
            self.halted = false;
            self.requests.set_halted(false);
            self.counters.sim_halted.store(0, Ordering::Relaxed);
        }
        if scope.time() {
            self.world.steps = 0;
            self.world.time = 0.0;
        }
        if let Some(e) = self.entities.as_mut() {
            e.after_reset(&self.world);
        }
        self.requests.reset_applied(generation);
    }

    /// A state that stopped being finite: back to the initial one, and halted by policy.
    fn recover_non_finite(&mut self) {
        self.reset();
        if let Some(e) = self.entities.as_mut() {
            e.after_reset(&self.world);
        }
        match self.on_non_finite {
            NonFinitePolicy::Reset => Counters::bump(&self.counters.sim_resets),
            NonFinitePolicy::Halt => {
                Counters::bump(&self.counters.sim_halts);
                self.halted = true;
                self.requests.set_halted(true);
                // Reported on /diagnostics; the loop decides by `halted`.
                self.counters.sim_halted.store(1, Ordering::Relaxed);
            }
        }
    }

    /// Steps taken since start-up, one that ended non-finite included (never reset,
    /// unlike the world's step count).
    pub fn steps_taken(&self) -> u64 {
        self.taken
    }

    /// One step of the simulator and its sample; `steps` counts it.
    fn step(&mut self, tick: &Tick) {
        self.effort(tick);
        self.apply_wrenches();
        if let Some(s) = self.sensors.as_mut() {
            s.before_step(&self.world);
        }
        if let Some(e) = self.entities.as_mut() {
            e.before_step(&self.world);
        }
        let report = *self.stepper.step(&mut self.world, &self.tau);
        self.counters.last_contacts.store(report.contacts as u64, Ordering::Relaxed);
        self.counters.last_iterations.store(report.iterations as u64, Ordering::Relaxed);
        if !report.converged {
            Counters::bump(&self.counters.steps_not_converged);
        }
        if report.fallback != Fallback::None {
            Counters::bump(&self.counters.solver_fallbacks);
        }
        if report.refused {
            Counters::bump(&self.counters.impulses_refused);
        }
        if report.regenerated > 0 {
            Counters::bump(&self.counters.steps_solved_again);
        }
        if report.contacts_dropped > 0 {
            self.counters.contacts_dropped.fetch_add(report.contacts_dropped as u64, Ordering::Relaxed);
        }
        self.taken += 1;
        if !self.world.is_finite() {
            self.recover_non_finite();
            return;
        }
        if let Some(s) = self.sensors.as_mut() {
            s.after_step(&self.world, &self.stepper);
        }
        if let Some(e) = self.entities.as_mut() {
            e.after_step(&self.world, self.stepper.dt);
        }
        self.steps += 1;
        if !self.steps.is_multiple_of(self.publish_every) {
            return;
        }
        let (layout, world, stepper, sensors) = (&self.layout, &self.world, &self.stepper, &mut self.sensors);
        let filled = self.samples.push_with(|s| {
            layout.fill(world, stepper, s);
            if let Some(sensors) = sensors {
                sensors.take_readings(&mut s.sensors);
            }
        });
        if !filled {
            self.counters.samples_dropped.fetch_add(1, Ordering::Relaxed);
        }
        self.requests.sample_pushed(self.world.time_ns());
        self.hand_off.sample_pushed();
    }
}

impl Job for SimJob {
    fn start(&mut self) {
        crate::contact::dense::warm_up_thread();
    }

    fn tick(&mut self, tick: &Tick) {
        // The entity services read a spawned or deleted body from the tick that placed it.
        let entities = &mut self.entities;
        spawning::apply_orders(&mut self.spawn_orders, &mut self.world, &mut self.initial.2, |world| {
            if let Some(e) = entities.as_mut() {
                e.after_reset(world);
            }
        });
        self.apply_resets();
        if let Some(e) = self.entities.as_mut() {
            e.apply_command(&mut self.world);
        }
        // Halted: the state (reset to the initial one) waits for a reset.
        if self.halted {
            return;
        }
        // Playing, or paused with a step of a budget to run.
        let Some(budgeted) = self.requests.take_step() else { return };
        self.step(tick);
        if budgeted {
            self.requests.step_finished();
        }
    }

    fn hand_off(&mut self) {
        self.hand_off.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ResetScope;
    use crate::runtime::{MonotonicTime, mailbox, sample_ring};
    use std::path::Path;

    fn tick(index: u64, wake_ms: u64) -> Tick {
        let t = MonotonicTime::from_nanos(wake_ms * 1_000_000);
        Tick { index, deadline: t, wake: t, period: Duration::from_millis(1) }
    }

    fn quadruped() -> Setup {
        Setup::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("config/quadruped.yaml"), None).unwrap()
    }

    /// A fresh command is the applied effort (within the effort limits); before any
    /// command, and once it is stale, the fallback PD holds the posture; time advances by
    /// the step per sample.
    #[test]
    fn applies_fresh_commands_and_the_fallback_otherwise() {
        let setup = quadruped();
        let n = setup.joint_names.len();
        let world = setup.sim_world().unwrap();
        let (prod, mut cons) = sample_ring(8, &OutputLayout::new(&setup, &world).outputs());
        let (mut cmd_w, cmd_r) = mailbox(EffortCommand { effort: vec![0.0; n] });
        let counters = Arc::new(Counters::default());
        let mut job = SimJob::new(&setup, world, cmd_r, prod, Duration::from_millis(10), counters.clone());
        let fallback = |job: &SimJob| {
            let r = job.world().robot.as_ref().unwrap();
            let mut tau = vec![0.0; r.model.nv];
            job.fallback.clone().torques(&r.model, &r.q, &r.v, &mut tau);
            job.joints.iter().map(|s| tau[s.idx_v]).collect::<Vec<_>>()
        };

        let now_ms = MonotonicTime::now().as_nanos() / 1_000_000;
        let held = fallback(&job);
        job.tick(&tick(0, now_ms));
        assert_eq!(job.input_freshness(), Freshness::NeverReceived);
        cmd_w.write_with(|c| c.effort.fill(3.0));
        job.tick(&tick(1, now_ms + 1));
        let stale = fallback(&job);
        job.tick(&tick(2, now_ms + 1000)); // far past the stamp: stale

        let mut samples = vec![];
        while cons.pop_with(|s| samples.push(s.clone())) {}
        assert_eq!(samples.len(), 3);
        assert_eq!(samples[0].effort, held);
        assert!(stale.iter().any(|t| t.abs() > 1e-6), "the fallback PD acts once the robot moved: {stale:?}");
        assert_eq!(samples[1].effort, vec![3.0; n]);
        assert_eq!(samples[2].effort, stale);
        let times: Vec<u64> = samples.iter().map(|s| s.time_ns).collect();
        assert_eq!(times, [1_000_000, 2_000_000, 3_000_000]);
        assert_eq!(counters.snapshot().input_stale_events, 1);
        let links = &job.layout().links;
        for foot in ["lf_foot", "lh_foot", "rf_foot", "rh_foot"] {
            assert!(links.iter().any(|(l, _)| l == foot), "{foot} in {links:?}");
        }
        assert!(samples.iter().all(|s| s.base.is_some() && s.wrenches.len() == links.len()));
    }

    /// Paused, the job steps exactly a budget's steps; a reset of TIME puts simulated time
    /// back to 0 (the next sample at Δt) and leaves the state; one of STATE puts the robot
    /// and the crate back at their initial state and leaves time; each at the next tick,
    /// stepping or not.
    #[test]
    fn resets_by_scope_and_steps_by_budget() {
        use crate::app::sim_requests::StepProgress;
        let setup = quadruped();
        let world = setup.sim_world().unwrap();
        let (prod, mut cons) = sample_ring(64, &OutputLayout::new(&setup, &world).outputs());
        let (_w, cmd_r) = mailbox(EffortCommand { effort: vec![] });
        let mut job = SimJob::new(&setup, world, cmd_r, prod, Duration::from_millis(10), Arc::new(Counters::default()));
        let requests = job.requests();
        let initial = job.world.robot.as_ref().unwrap().q.clone();
        let crate_start = job.world.states[0].pose.translation;
        let times = |cons: &mut crate::runtime::SampleConsumer<Outputs>| {
            let mut t = vec![];
            while cons.pop_with(|s| t.push(s.time_ns)) {}
            t
        };
        for k in 0..20 {
            job.tick(&tick(k, k));
        }
        assert_eq!(times(&mut cons).len(), 20);
        let moved = job.world.robot.as_ref().unwrap().q.clone();
        assert_ne!(moved, initial, "the robot settled on its feet");

        requests.set_paused(true);
        let ticket = requests.reset(ResetScope::TIME);
        job.tick(&tick(20, 20));
        assert!(requests.reset_done(ticket));
        assert_eq!((job.world.time, job.world.steps), (0.0, 0), "time back to 0");
        assert_eq!(job.world.robot.as_ref().unwrap().q, moved, "the state untouched");
        assert_eq!(times(&mut cons), Vec::<u64>::new(), "paused: no step, no sample");

        let mut budget = requests.begin_steps(3).unwrap();
        assert_eq!(budget.poll(false), StepProgress::Running { done: 0 });
        for k in 21..26 {
            job.tick(&tick(k, k));
        }
        assert_eq!(budget.poll(false), StepProgress::Done);
        drop(budget);
        assert_eq!(times(&mut cons), [1_000_000, 2_000_000, 3_000_000], "exactly the 3 steps, from Δt");

        let ticket = requests.reset(ResetScope::STATE);
        job.tick(&tick(26, 26));
        assert!(requests.reset_done(ticket));
        assert_eq!(job.world.robot.as_ref().unwrap().q, initial, "the robot back");
        assert_eq!(job.world.states[0].pose.translation, crate_start, "the crate back");
        assert_eq!(job.world.time_ns(), 3_000_000, "time untouched");
    }

    /// `simulation_interfaces.initial_state: stopped`: no step until played.
    #[test]
    fn a_simulation_configured_stopped_waits_to_be_played() {
        let mut setup = quadruped();
        setup.config.simulation_interfaces.initial_state = InitialState::Stopped;
        let world = setup.sim_world().unwrap();
        let (prod, mut cons) = sample_ring(8, &OutputLayout::new(&setup, &world).outputs());
        let (_w, cmd_r) = mailbox(EffortCommand { effort: vec![] });
        let mut job = SimJob::new(&setup, world, cmd_r, prod, Duration::from_millis(10), Arc::new(Counters::default()));
        assert_eq!(job.requests().state(), SimulationState::Stopped);
        job.tick(&tick(0, 0));
        assert!(!cons.pop_with(|_| {}), "stopped: no step");
        assert_eq!(job.requests().set_state(SimulationState::Playing), Ok(None));
        job.tick(&tick(1, 1));
        assert!(cons.pop_with(|s| assert_eq!(s.time_ns, 1_000_000)), "played: the first step");
    }

    #[test]
    fn a_full_ring_drops_and_counts() {
        let setup = quadruped();
        let world = setup.sim_world().unwrap();
        let (prod, _cons) = sample_ring(2, &OutputLayout::new(&setup, &world).outputs());
        let (_w, cmd_r) = mailbox(EffortCommand { effort: vec![] });
        let counters = Arc::new(Counters::default());
        let mut job = SimJob::new(&setup, world, cmd_r, prod, Duration::from_millis(10), counters.clone());
        for k in 0..5 {
            job.tick(&tick(k, k));
        }
        assert_eq!(counters.snapshot().samples_dropped, 3);
    }

    /// A state that stops being finite is never published: it is reset to the initial one
    /// and counted; with `sim.on_non_finite: halt` the simulation then stops stepping
    /// (nothing published, /diagnostics at ERROR) until ~/reset.
    #[test]
    fn a_state_that_stops_being_finite_is_reset_or_halted_by_policy() {
        for policy in [NonFinitePolicy::Reset, NonFinitePolicy::Halt] {
            let mut setup = quadruped();
            setup.config.sim.on_non_finite = policy;
            let world = setup.sim_world().unwrap();
            let (prod, mut cons) = sample_ring(16, &OutputLayout::new(&setup, &world).outputs());
            let (_w, cmd_r) = mailbox(EffortCommand { effort: vec![] });
            let counters = Arc::new(Counters::default());
            let mut job = SimJob::new(&setup, world, cmd_r, prod, Duration::from_millis(10), counters.clone());
            let start = job.world.states[0].pose.translation;
            job.tick(&tick(0, 0));
            // The crate's velocity corrupted, as an overflowing state would be.
            job.world.states[0].velocity.linear.x = f64::NAN;
            job.tick(&tick(1, 1));
            assert!(job.world.is_finite(), "{policy:?}");
            assert_eq!(job.world.states[0].pose.translation, start, "{policy:?}: back at the initial state");
            for k in 2..5 {
                job.tick(&tick(k, k));
            }
            let mut samples = vec![];
            while cons.pop_with(|s| samples.push(s.clone())) {}
            assert!(samples.iter().all(|s| s.position.iter().chain(&s.velocity).all(|x| x.is_finite())));
            let c = counters.snapshot();
            match policy {
                NonFinitePolicy::Reset => {
                    assert_eq!((c.sim_resets, c.sim_halts, c.sim_halted), (1, 0, 0));
                    assert_eq!(samples.len(), 4, "the first step and the three after the reset");
                }
                NonFinitePolicy::Halt => {
                    assert_eq!((c.sim_resets, c.sim_halts, c.sim_halted), (0, 1, 1));
                    assert_eq!(samples.len(), 1, "nothing after the halt");
                    job.requests().reset(ResetScope::STATE);
                    job.tick(&tick(5, 5));
                    assert_eq!(counters.snapshot().sim_halted, 0);
                    assert!(cons.pop_with(|_| {}), "stepping again after ~/reset");
                }
            }
        }
    }
}

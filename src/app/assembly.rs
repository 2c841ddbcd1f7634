//! One loop assembly per mode, without ROS: the job the real-time loop runs and the I/O
//! side's ends of its exchanges (mailboxes in, the sample ring out). The ROS node wires
//! these ends to topics and services, `signorini loop` to nothing; both run the same
//! assembly.

use std::sync::Arc;

use super::outputs::{OutputLayout, Outputs};
use super::{ControlJob, ExternalWrenches, ReferenceCommand, SetupError, SimAndControlJob, SimJob, SimRequests};
use super::{
    Entities, EntityEnds, EntityView, JointCommandInput, JointCommandTable, Setup, WrenchTargets, entity_exchange,
};
use crate::runtime::{Counters, EffortCommand, MailboxWriter, MeasuredState, SampleConsumer, mailbox, sample_ring};

/// Output samples the publisher may lag behind the loop before samples are dropped
/// (0.25 s at 1 kHz).
pub const SAMPLE_RING_CAPACITY: usize = 256;

/// `mode: sim`: the simulator, its effort commands, external wrenches and requests in,
/// its samples out.
pub struct SimLoop {
    /// The job.
    pub job: SimJob,
    /// Effort commands (validated by the writer, [`crate::runtime::validate_efforts`]).
    pub commands: MailboxWriter<EffortCommand>,
    /// Per-joint JointState commands: the tables [`JointCommandInput::apply`] builds.
    pub joint_commands: (MailboxWriter<JointCommandTable>, JointCommandInput),
    /// The rest of the I/O side's ends.
    pub ends: SimEnds,
}

/// The simulator's ends besides its commands.
pub struct SimEnds {
    /// External wrench tables, by name through [`Self::targets`].
    pub wrenches: MailboxWriter<ExternalWrenches>,
    /// The links and bodies external wrenches may name.
    pub targets: WrenchTargets,
    /// Reset, pause and step.
    pub requests: Arc<SimRequests>,
    /// Spawn and delete free bodies.
    pub spawns: Arc<super::Spawns>,
    /// The samples, for the publisher (or to be drained).
    pub samples: SampleConsumer<Outputs>,
    /// What the samples hold.
    pub layout: OutputLayout,
    /// The world's entities and the loop's entity snapshots and SetEntityState requests.
    pub entities: EntityEnds,
}

impl SimLoop {
    /// The simulator of `setup`, at its initial state, counting into `counters`.
    pub fn new(setup: &Setup, counters: Arc<Counters>) -> Result<Self, SetupError> {
        let world = setup.sim_world()?;
        let layout = OutputLayout::new(setup, &world);
        let (producer, samples) = sample_ring(SAMPLE_RING_CAPACITY, &layout.outputs());
        let n = setup.joint_names.len();
        let (commands, command_reader) = mailbox(EffortCommand { effort: vec![0.0; n] });
        let stale_after = setup.config.stale_after();
        let job = SimJob::new(setup, world, command_reader, producer, stale_after, counters);
        let (wrenches, wrench_reader) = mailbox(job.wrench_table());
        let targets = WrenchTargets::new(&setup.model, job.world(), job.wrench_table());
        let servos = setup.joint_servos()?;
        let input = JointCommandInput::new(setup.joint_names.clone(), servos.iter().map(|s| s.interface).collect());
        let (table_writer, table_reader) = mailbox(input.table().clone());
        let model = job.world().robot.as_ref().map(|r| &*r.model);
        let entities = Entities::new(model, &setup.robots, &layout.body_names, job.world().collision.objects())
            .with_spawns(job.spawns(), job.world().configured_bodies());
        let view = EntityView::new(model);
        let (entity_loop, io) = entity_exchange(job.world());
        let entities = EntityEnds { entities, view, io };
        let job = job
            .with_external_wrenches(wrench_reader)
            .with_joint_commands(table_reader, servos)
            .with_entities(entity_loop);
        let requests = job.requests();
        let spawns = job.spawns();
        let joint_commands = (table_writer, input);
        Ok(Self {
            job,
            commands,
            joint_commands,
            ends: SimEnds { wrenches, targets, requests, spawns, samples, layout, entities },
        })
    }
}

/// `mode: control`: the controller, the measured state and references in, the torques
/// and predicted wrenches out.
pub struct ControlLoop {
    /// The job.
    pub job: ControlJob,
    /// Measured states (assembled by [`crate::runtime::StateAssembly`]).
    pub states: MailboxWriter<MeasuredState>,
    /// The rest of the I/O side's ends.
    pub ends: ControlEnds,
}

/// The controller's ends besides its measured state.
pub struct ControlEnds {
    /// Joint trajectories.
    pub references: MailboxWriter<ReferenceCommand>,
    /// The floating base's pose reference ([`crate::runtime::base_pose`]).
    pub base_references: MailboxWriter<Option<[f64; 7]>>,
    /// The samples (torques and predicted wrenches), for the publisher.
    pub samples: SampleConsumer<Outputs>,
    /// What the samples hold.
    pub layout: OutputLayout,
}

impl ControlLoop {
    /// The controller of `setup`, counting into `counters`.
    pub fn new(setup: &Setup, counters: Arc<Counters>) -> Result<Self, SetupError> {
        let (states, state_reader) = mailbox(MeasuredState::of_joints(setup.joint_names.len()));
        let (references, reference_reader) = mailbox(ReferenceCommand::default());
        let (base_references, base_reader) = mailbox(None);
        let layout = OutputLayout::of_objects(setup, setup.collision_world()?.objects(), Vec::new());
        let (producer, samples) = sample_ring(SAMPLE_RING_CAPACITY, &layout.outputs());
        let job = ControlJob::new(setup, state_reader, producer, setup.config.stale_after(), counters)?
            .with_references(reference_reader)
            .with_base_references(base_reader);
        Ok(Self { job, states, ends: ControlEnds { references, base_references, samples, layout } })
    }
}

/// `mode: sim+control`: both in one job, exchanging state and torques in memory (no
/// effort commands from outside: the controller drives the simulator).
pub struct SimAndControlLoop {
    /// The job.
    pub job: SimAndControlJob,
    /// The simulator's ends.
    pub sim: SimEnds,
    /// The controller's ends.
    pub control: ControlEnds,
}

impl SimAndControlLoop {
    /// The simulator and the controller of `setup`, counting into `counters`; the
    /// controller steps with the simulator's time step.
    pub fn new(setup: &Setup, counters: Arc<Counters>) -> Result<Self, SetupError> {
        let sim = SimLoop::new(setup, counters.clone())?;
        let control = ControlLoop::new(setup, counters)?;
        let job = control.job.with_command_output(sim.commands).with_step(setup.config.sim_dt());
        let job = SimAndControlJob::new(sim.job.with_trusted_commands(), job, control.states, setup.joint_slots());
        Ok(Self { job, sim: sim.ends, control: control.ends })
    }
}

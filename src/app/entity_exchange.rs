//! How entity states and SetEntityState requests cross between the simulator loop and the
//! I/O side without a lock: the loop writes an [`EntitySnapshot`] (the robot's q, v and the
//! step's acceleration, each free body's state and acceleration) into a latest-value
//! mailbox after every step, reset and applied request; the I/O side writes one
//! [`EntityCommand`] at a time into another and waits until the loop reports its sequence
//! applied ([`EntitySetter::applied`]). Both mailboxes are sized at start-up: the loop copies
//! numbers into preallocated slots and allocates nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::entities::{Entities, EntityCommand, EntityView, SetTarget};
use crate::model::FreeBodyState;
use crate::runtime::{MailboxReader, MailboxWriter, mailbox};
use crate::sim::World;
use crate::spatial::{Motion, Vec6};

/// A free body in a snapshot.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BodyMotion {
    /// Pose and velocity (its frame).
    pub state: FreeBodyState,
    /// The last step's Δv/Δt, in its frame (zero after a reset or a set).
    pub acceleration: Motion,
}

/// The world's state as the entity services read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntitySnapshot {
    /// Simulated time (ns): the stamp of the sample published for the same step.
    pub time_ns: u64,
    /// The robot's configuration (nq; empty without robot).
    pub q: Vec<f64>,
    /// Its velocity (nv).
    pub v: Vec<f64>,
    /// The last step's Δv/Δt (nv; zero after a reset or a set).
    pub a: Vec<f64>,
    /// Each free body, in the world's order.
    pub bodies: Vec<BodyMotion>,
}

impl EntitySnapshot {
    /// A snapshot sized for `world`, at its state, at rest acceleration.
    pub fn of(world: &World) -> Self {
        let (q, v) = world.robot.as_ref().map_or((Vec::new(), Vec::new()), |r| (r.q.clone(), r.v.clone()));
        let a = vec![0.0; v.len()];
        let bodies =
            world.states.iter().map(|&state| BodyMotion { state, acceleration: Motion::ZERO }).collect::<Vec<_>>();
        Self { time_ns: world.time_ns(), q, v, a, bodies }
    }
}

/// The loop's end.
pub struct EntityLoop {
    snapshots: MailboxWriter<EntitySnapshot>,
    commands: MailboxReader<EntityCommand>,
    applied: Arc<AtomicU64>,
    /// The velocities at the start of the step (robot nv, then 6 per body).
    before: Vec<f64>,
}

/// The I/O side's end.
pub struct EntityIo {
    /// The latest snapshot.
    pub snapshots: MailboxReader<EntitySnapshot>,
    /// Where SetEntityState requests go.
    pub setter: EntitySetter,
}

/// What the entity services get at start-up: the names, the kinematics to compute states
/// and the I/O end.
pub struct EntityEnds {
    /// The world's entities.
    pub entities: Entities,
    /// Computes their states from snapshots.
    pub view: EntityView,
    /// The exchange with the loop.
    pub io: EntityIo,
}

/// Sends SetEntityState requests to the loop, one at a time.
pub struct EntitySetter {
    commands: MailboxWriter<EntityCommand>,
    applied: Arc<AtomicU64>,
}

/// The two ends for `world`.
pub fn entity_exchange(world: &World) -> (EntityLoop, EntityIo) {
    let (snapshot_writer, snapshots) = mailbox(EntitySnapshot::of(world));
    let (commands, command_reader) = mailbox(EntityCommand::default());
    let applied = Arc::new(AtomicU64::new(0));
    let ends = EntityLoop {
        snapshots: snapshot_writer,
        commands: command_reader,
        applied: applied.clone(),
        before: vec![0.0; world.nv()],
    };
    (ends, EntityIo { snapshots, setter: EntitySetter { commands, applied } })
}

impl EntitySetter {
    /// Sends `command` to the loop; returns its sequence for [`EntitySetter::applied`].
    pub fn send(&mut self, command: EntityCommand) -> u64 {
        self.commands.write_with(|c| *c = command);
        self.commands.sequence()
    }

    /// Whether the loop applied the command of `sequence`.
    pub fn applied(&self, sequence: u64) -> bool {
        self.applied.load(Ordering::Acquire) >= sequence
    }
}

impl EntityLoop {
    /// Before a step: keeps the velocities the step starts from.
    pub fn before_step(&mut self, world: &World) {
        let robot_nv = world.robot.as_ref().map_or(0, |r| {
            self.before[..r.v.len()].copy_from_slice(&r.v);
            r.v.len()
        });
        for (b, s) in world.states.iter().enumerate() {
            let at = robot_nv + 6 * b;
            self.before[at..at + 6].copy_from_slice(s.velocity.to_vector().as_slice());
        }
    }

    /// After a step of `dt`: the snapshot with the step's Δv/Δt.
    pub fn after_step(&mut self, world: &World, dt: f64) {
        let before = &self.before;
        self.snapshots.write_with(|s| fill(s, world, Some((before, dt))));
    }

    /// After a reset (or anything else that put the world in a new state without a step):
    /// the snapshot at rest acceleration.
    pub fn after_reset(&mut self, world: &World) {
        self.snapshots.write_with(|s| fill(s, world, None));
    }

    /// Applies the I/O side's newest SetEntityState, if new, then publishes the snapshot;
    /// returns whether it applied one.
    pub fn apply_command(&mut self, world: &mut World) -> bool {
        let latest = self.commands.latest();
        if latest.sequence <= self.applied.load(Ordering::Acquire) {
            return false;
        }
        let (command, sequence) = (latest.value, latest.sequence);
        match command.target {
            SetTarget::Base(joint) => {
                if let Some(r) = world.robot.as_mut()
                    && r.model.joint_types.get(joint) == Some(&crate::model::JointType::FreeFlyer)
                {
                    let (iq, iv) = (r.model.idx_q[joint], r.model.idx_v[joint]);
                    let t = command.pose.translation;
                    let quaternion = crate::model::joint::rotation_to_quaternion(&command.pose.rotation);
                    r.q[iq..iq + 3].copy_from_slice(t.as_slice());
                    r.q[iq + 3..iq + 7].copy_from_slice(&quaternion);
                    r.v[iv..iv + 6].copy_from_slice(command.velocity.to_vector().as_slice());
                }
            }
            SetTarget::Body(slot) => {
                if let Some(s) = world.states.get_mut(slot) {
                    *s = FreeBodyState { pose: command.pose, velocity: command.velocity };
                }
            }
        }
        self.after_reset(world);
        self.applied.store(sequence, Ordering::Release);
        true
    }
}

/// `s` from `world`; the acceleration Δv/Δt from the velocities `before` a step of `dt`,
/// zero without.
fn fill(s: &mut EntitySnapshot, world: &World, step: Option<(&Vec<f64>, f64)>) {
    s.time_ns = world.time_ns();
    let robot_nv = match world.robot.as_ref() {
        Some(r) => {
            s.q.copy_from_slice(&r.q);
            s.v.copy_from_slice(&r.v);
            for (k, a) in s.a.iter_mut().enumerate() {
                *a = step.map_or(0.0, |(before, dt)| (r.v[k] - before[k]) / dt);
            }
            r.v.len()
        }
        None => 0,
    };
    for (b, (out, state)) in s.bodies.iter_mut().zip(&world.states).enumerate() {
        let at = robot_nv + 6 * b;
        let acceleration = match step {
            Some((before, dt)) => {
                let v0 = Vec6::from_column_slice(&before[at..at + 6]);
                Motion::from_vector(&((state.velocity.to_vector() - v0) / dt))
            }
            None => Motion::ZERO,
        };
        *out = BodyMotion { state: *state, acceleration };
    }
}

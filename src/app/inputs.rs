//! The node's message handlers without ROS: each takes one message's plain values, checks
//! them with the library's check, writes the accepted ones to the loop's mailbox and
//! counts (on [`Counters`], reported on /diagnostics) what it accepted and refused. The
//! node's subscription tasks ([`crate::ros`]) only convert messages and log the refusals
//! these return; the fuzzing tests drive these same handlers into the loop jobs.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{ExternalWrenches, JointCommandInput, JointCommandTable, ReferenceCommand, WrenchTargets};
use crate::control::{JointTrajectory, TrajectoryPoint};
use crate::runtime::{
    Counters, EffortCommand, MailboxWriter, MeasuredState, Odometry, StateAssembly, base_pose, validate_efforts,
};
use crate::spatial::Force;

/// Effort commands: one topic per robot, each its range of the loop's command (one range
/// covering it all for a single robot). A robot whose controller has not published yet
/// has NaN efforts, which the loop replaces by its fallback.
pub struct EffortInput {
    writer: MailboxWriter<EffortCommand>,
    ranges: Vec<Range<usize>>,
    merged: Vec<f64>,
    counters: Arc<Counters>,
}

impl EffortInput {
    /// Commands of the loop's `n` joints, robot `k`'s in `ranges[k]`, into `writer`.
    pub fn new(
        writer: MailboxWriter<EffortCommand>,
        n: usize,
        ranges: Vec<Range<usize>>,
        counters: Arc<Counters>,
    ) -> Self {
        let ranges = ranges.into_iter().filter(|r| r.end <= n).collect();
        Self { writer, ranges, merged: vec![f64::NAN; n], counters }
    }

    /// The efforts of robot `k` (its joints in configured order), checked by
    /// [`validate_efforts`]; the refusal's text.
    pub fn accept(&mut self, k: usize, efforts: &[f64]) -> Result<(), String> {
        let Some(range) = self.ranges.get(k) else { return Err(format!("no robot {k}")) };
        match validate_efforts(efforts, range.len()) {
            Ok(()) => {
                self.merged[range.clone()].copy_from_slice(efforts);
                let merged = &self.merged;
                self.writer.write_with(|c| c.effort.copy_from_slice(merged));
                Counters::bump(&self.counters.commands_accepted);
                Ok(())
            }
            Err(why) => {
                self.counters.count_rejection(why);
                Err(format!("command rejected: {why}"))
            }
        }
    }
}

/// Per-joint JointState commands, checked whole by [`JointCommandInput::apply`]; each
/// accepted one updates the held table the loop reads.
pub struct JointCommandSink {
    writer: MailboxWriter<JointCommandTable>,
    input: JointCommandInput,
    counters: Arc<Counters>,
}

impl JointCommandSink {
    /// Commands checked by `input` into `writer`.
    pub fn new(
        (writer, input): (MailboxWriter<JointCommandTable>, JointCommandInput),
        counters: Arc<Counters>,
    ) -> Self {
        Self { writer, input, counters }
    }

    /// One JointState command.
    pub fn accept(
        &mut self,
        name: &[String],
        position: &[f64],
        velocity: &[f64],
        effort: &[f64],
    ) -> Result<(), String> {
        match self.input.apply(name, position, velocity, effort) {
            Ok(table) => {
                self.writer.write_with(|t| t.clone_from(table));
                Counters::bump(&self.counters.joint_commands_accepted);
                Ok(())
            }
            Err(why) => {
                Counters::bump(&self.counters.joint_commands_rejected);
                Err(format!("joint command rejected: {}", why.describe(name)))
            }
        }
    }
}

/// Measured states: joint states and, for a floating base, its odometry, checked and
/// paired by [`StateAssembly`]; each completed state goes to the loop.
pub struct StateInput {
    writer: MailboxWriter<MeasuredState>,
    assembly: StateAssembly,
    out: MeasuredState,
    counters: Arc<Counters>,
}

impl StateInput {
    /// States assembled by `assembly` into `writer`.
    pub fn new(writer: MailboxWriter<MeasuredState>, assembly: StateAssembly, counters: Arc<Counters>) -> Self {
        let out = MeasuredState::of_joints(assembly.joints().len());
        Self { writer, assembly, out, counters }
    }

    /// A JointState stamped (sec, nanosec); Err: what to warn about (a refusal, or states
    /// left without odometry within the pairing tolerance).
    pub fn joint_state(
        &mut self,
        stamp: (i32, u32),
        names: &[String],
        position: &[f64],
        velocity: &[f64],
    ) -> Result<(), String> {
        match self.assembly.joint_state(stamp, names, position, velocity, &mut self.out) {
            Ok(assembled) => self.assembled(assembled),
            Err(why) => {
                Counters::bump(&self.counters.states_rejected);
                Err(format!("state rejected: {}", why.describe(self.assembly.joints(), names)))
            }
        }
    }

    /// The floating base's odometry stamped (sec, nanosec).
    pub fn odometry(&mut self, stamp: (i32, u32), odometry: Odometry) -> Result<(), String> {
        match self.assembly.odometry(stamp, odometry, &mut self.out) {
            Ok(assembled) => self.assembled(assembled),
            Err(why) => {
                Counters::bump(&self.counters.odometry_rejected);
                Err(format!("odometry rejected: {why}"))
            }
        }
    }

    fn assembled(&mut self, assembled: crate::runtime::Assembled) -> Result<(), String> {
        if assembled.ready {
            let out = &self.out;
            self.writer.write_with(|s| s.clone_from(out));
        }
        if assembled.unpaired > 0 {
            self.counters.states_unpaired.fetch_add(u64::from(assembled.unpaired), Ordering::Relaxed);
            return Err("joint states without odometry within the pairing tolerance".into());
        }
        Ok(())
    }

    /// The configured joints.
    pub fn joints(&self) -> &[String] {
        self.assembly.joints()
    }
}

/// Joint trajectories → the controller's reference, as [`JointTrajectory::for_joints`]
/// checks them (named joints in any order, the others hold the posture); an empty one
/// returns to the posture, as joint_trajectory_controller stops on one.
pub struct ReferenceInput {
    writer: MailboxWriter<ReferenceCommand>,
    joints: Vec<String>,
    hold: Vec<f64>,
    counters: Arc<Counters>,
}

impl ReferenceInput {
    /// References of `joints` (holding `hold` when unnamed) into `writer`.
    pub fn new(
        writer: MailboxWriter<ReferenceCommand>,
        (joints, hold): (Vec<String>, Vec<f64>),
        counters: Arc<Counters>,
    ) -> Self {
        Self { writer, joints, hold, counters }
    }

    /// A trajectory of `names` starting at `start_ns` (0: now).
    pub fn accept(&mut self, start_ns: u64, names: &[String], points: &[TrajectoryPoint]) -> Result<(), String> {
        let trajectory = match points.is_empty() {
            true => Ok(None),
            false => JointTrajectory::for_joints(&self.joints, &self.hold, names, points).map(Some),
        };
        match trajectory {
            Ok(trajectory) => {
                self.writer.write_with(|r| *r = ReferenceCommand { trajectory, start_ns });
                Counters::bump(&self.counters.references_accepted);
                Ok(())
            }
            Err(why) => {
                Counters::bump(&self.counters.references_rejected);
                Err(format!("trajectory rejected: {why}"))
            }
        }
    }
}

/// The floating base's pose reference, as [`base_pose`] checks it (counted with the
/// references).
pub struct BasePoseInput {
    writer: MailboxWriter<Option<[f64; 7]>>,
    counters: Arc<Counters>,
}

impl BasePoseInput {
    /// Poses into `writer`.
    pub fn new(writer: MailboxWriter<Option<[f64; 7]>>, counters: Arc<Counters>) -> Self {
        Self { writer, counters }
    }

    /// A pose: x y z, quaternion x y z w.
    pub fn accept(&mut self, pose: [f64; 7]) -> Result<(), String> {
        match base_pose(pose) {
            Some(pose) => {
                self.writer.write_with(|r| *r = Some(pose));
                Counters::bump(&self.counters.references_accepted);
                Ok(())
            }
            None => {
                Counters::bump(&self.counters.references_rejected);
                Err("pose rejected: not finite, or not a unit quaternion".into())
            }
        }
    }
}

/// External wrenches by link or body name, in force until replaced, as
/// [`WrenchTargets::set`] checks them.
pub struct WrenchInput {
    writer: MailboxWriter<ExternalWrenches>,
    targets: WrenchTargets,
    counters: Arc<Counters>,
}

impl WrenchInput {
    /// Wrenches on `targets` into `writer`.
    pub fn new(writer: MailboxWriter<ExternalWrenches>, targets: WrenchTargets, counters: Arc<Counters>) -> Self {
        Self { writer, targets, counters }
    }

    /// The wrench on `frame` (world axes, about the origin of the joint frame carrying the
    /// link, or of the body).
    pub fn accept(&mut self, frame: &str, wrench: Force) -> Result<(), String> {
        match self.targets.set(frame, wrench) {
            Ok(table) => {
                self.writer.write_with(|w| w.clone_from(table));
                Ok(())
            }
            Err(why) => {
                Counters::bump(&self.counters.wrenches_rejected);
                Err(format!("wrench rejected: {why}"))
            }
        }
    }
}

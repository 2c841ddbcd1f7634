//! What the controller's loop job sends out stays within the robot's limits (issue 26,
//! item 5), through the exchanges the node uses (state and reference mailboxes in, sample
//! ring out): a trajectory beyond a joint's URDF position limit is held at the limit and
//! counted (`references_clamped_total`); a safe output that is not finite is replaced by 0
//! and counted (`safe_output_non_finite_total`); no tick allocates.

mod common;
mod counting;

use std::sync::Arc;
use std::time::Duration;

use signorini::app::{ControlJob, OutputLayout, ReferenceCommand, Setup};
use signorini::config::{NonNegativeF64, SafeOutput};
use signorini::control::{JointTrajectory, TrajectoryPoint};
use signorini::runtime::{
    Counters, Job, MailboxWriter, MeasuredState, MonotonicTime, SampleConsumer, Tick, mailbox, sample_ring,
};

/// A control job of `setup` with its state and reference mailboxes, its samples and its
/// counters.
struct Harness {
    job: ControlJob,
    states: MailboxWriter<MeasuredState>,
    references: MailboxWriter<ReferenceCommand>,
    samples: SampleConsumer<signorini::app::Outputs>,
    counters: Arc<Counters>,
}

impl Harness {
    fn new(setup: &Setup) -> Self {
        let n = setup.joint_names.len();
        let (states, reader) = mailbox(MeasuredState::of_joints(n));
        let (references, reference_reader) = mailbox(ReferenceCommand::default());
        let layout = OutputLayout::of_objects(setup, setup.collision_world().unwrap().objects(), Vec::new());
        let (producer, samples) = sample_ring(4, &layout.outputs());
        let counters = Arc::new(Counters::default());
        let job = ControlJob::new(setup, reader, producer, Duration::from_millis(20), counters.clone())
            .unwrap()
            .with_references(reference_reader);
        Self { job, states, references, samples, counters }
    }

    /// Writes the state (`position`, `velocity` at `time_ns`), ticks `late` after it, and
    /// returns the published effort and the tick's allocations.
    fn tick(&mut self, k: u64, time_ns: u64, position: &[f64], velocity: &[f64], late: Duration) -> (Vec<f64>, u64) {
        self.states.write_with(|s| {
            s.time_ns = time_ns;
            s.position.copy_from_slice(position);
            s.velocity.copy_from_slice(velocity);
        });
        let t = MonotonicTime::now();
        let tick = Tick { index: k, deadline: t, wake: t + late, period: Duration::from_millis(1) };
        let allocations = counting::allocations_during(|| self.job.tick(&tick));
        let mut effort = vec![0.0; position.len()];
        assert!(self.samples.pop_with(|s| effort.copy_from_slice(&s.effort)), "tick {k}: no sample");
        (effort, allocations)
    }

    /// Sends a one-point trajectory: `joint` to `position`, the others holding `posture`.
    fn send(&mut self, setup: &Setup, joint: &str, position: f64) {
        let point = TrajectoryPoint { positions: vec![position], time_from_start: 0.5, ..Default::default() };
        let trajectory = JointTrajectory::for_joints(
            &setup.joint_names,
            &setup.posture_positions,
            &[joint.to_owned()],
            std::slice::from_ref(&point),
        )
        .unwrap();
        self.references.write_with(|r| *r = ReferenceCommand { trajectory: Some(trajectory), start_ns: 0 });
    }
}

/// Three controllers of the arm see the same states; their trajectories take joint2
/// 0.5 rad beyond its upper URDF limit (2.09 rad), exactly to it, and 0.1 rad short of it.
/// The first is held at the limit: its torques equal the second's bit for bit at every
/// tick, while the third's differ (the comparison can fail). The first counts one clamped
/// reference, then a second for a trajectory beyond the lower limit; the others count none.
#[test]
fn a_reference_beyond_a_urdf_limit_is_held_at_the_limit_and_counted() {
    let setup = Setup::load(&common::repo("config/arm7_control.yaml"), None).unwrap();
    let n = setup.joint_names.len();
    let j2 = setup.joint_names.iter().position(|j| j == "joint2").unwrap();
    let slot = setup.joint_slots()[j2];
    let (lower, upper) = (setup.model.lower_position_limit[slot.idx_q], setup.model.upper_position_limit[slot.idx_q]);
    assert_eq!((lower, upper), (-2.09, 2.09), "arm7.urdf's joint2");
    let mut beyond = Harness::new(&setup);
    let mut at = Harness::new(&setup);
    let mut short = Harness::new(&setup);
    beyond.send(&setup, "joint2", upper + 0.5);
    at.send(&setup, "joint2", upper);
    short.send(&setup, "joint2", upper - 0.1);
    // The arm at its posture but joint2 0.09 rad short of the limit, moving towards it
    // (close enough that no torque saturates: the comparison is of the references).
    let mut position = setup.posture_positions.clone();
    position[j2] = 2.0;
    let mut velocity = vec![0.0; n];
    velocity[j2] = 0.3;
    let mut differs = 0.0f64;
    for k in 0..300u64 {
        let time_ns = k * 1_000_000;
        let (a, alloc_a) = beyond.tick(k, time_ns, &position, &velocity, Duration::ZERO);
        let (b, alloc_b) = at.tick(k, time_ns, &position, &velocity, Duration::ZERO);
        let (c, _) = short.tick(k, time_ns, &position, &velocity, Duration::ZERO);
        assert_eq!(a, b, "tick {k}: the clamped reference is the limit's");
        assert!(k < 2 || alloc_a + alloc_b == 0, "tick {k}: {alloc_a} + {alloc_b} allocations");
        differs = differs.max((a[j2] - c[j2]).abs());
    }
    // Measured at the first tick: joint2's torque 12.4 N·m towards the limit, −79.9 N·m
    // towards 0.1 rad short of it.
    assert!(differs > 50.0, "a reference 0.1 rad short gives other torques ({differs} N·m)");
    let count = |h: &Harness| h.counters.snapshot().references_clamped;
    assert_eq!((count(&beyond), count(&at), count(&short)), (1, 0, 0), "once per trajectory");
    beyond.send(&setup, "joint2", lower - 1.0);
    for k in 300..310u64 {
        beyond.tick(k, k * 1_000_000, &position, &velocity, Duration::ZERO);
    }
    assert_eq!(count(&beyond), 2);
}

/// The arm's controller with `safe_output: damping` (D = 10 N·m·s/rad) and joint3's
/// effort limit removed: its last state measured joint3 at f64::MAX rad/s (finite, so
/// accepted) and joint5 too. When the state goes stale the safe output −D·v is −∞ on both:
/// joint5's is clamped to its 110 N·m limit, joint3's (no limit) is replaced by 0 and
/// counted once per tick; the other joints get −D·v exactly. Nothing published is NaN
/// or infinite, and the safe output allocates nothing.
#[test]
fn a_non_finite_safe_output_is_zero_and_counted() {
    let mut setup = Setup::load(&common::repo("config/arm7_control.yaml"), None).unwrap();
    setup.config.control.safe_output = SafeOutput::Damping;
    setup.config.control.safe_damping = NonNegativeF64::new(10.0).unwrap();
    let n = setup.joint_names.len();
    let slots = setup.joint_slots();
    let (j3, j5) = (2, 4);
    assert_eq!((setup.joint_names[j3].as_str(), setup.joint_names[j5].as_str()), ("joint3", "joint5"));
    setup.model.effort_limit[slots[j3].idx_v] = f64::INFINITY;
    let mut h = Harness::new(&setup);
    let position = setup.posture_positions.clone();
    let mut velocity: Vec<f64> = (0..n).map(|k| 0.1 * (k as f64 + 1.0)).collect();
    velocity[j3] = f64::MAX;
    velocity[j5] = f64::MAX;
    // A fresh state (the controller's own tick, refused or not), then stale ones.
    let (fresh, _) = h.tick(0, 0, &position, &velocity, Duration::ZERO);
    assert!(fresh.iter().all(|e| e.is_finite()), "{fresh:?}");
    let before = h.counters.snapshot().safe_outputs_non_finite;
    for k in 1..4u64 {
        let (effort, allocations) = h.tick(k, 0, &position, &velocity, Duration::from_millis(100));
        assert_eq!(allocations, 0, "tick {k}");
        assert!(effort.iter().all(|e| e.is_finite()), "{effort:?}");
        assert_eq!(effort[j3], 0.0, "no limit: the infinity replaced by 0");
        assert_eq!(effort[j5], -110.0, "clamped to joint5's effort limit");
        for k in (0..n).filter(|&k| k != j3 && k != j5) {
            assert_eq!(effort[k], -10.0 * velocity[k], "joint {k}: −D·v");
        }
        assert_eq!(h.counters.snapshot().safe_outputs_non_finite, before + k, "one count per tick");
    }
}

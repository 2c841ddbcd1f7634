//! URDF joint damping, taken implicitly: a damped turntable spinning freely slows as
//! implicit Euler says, v_{k+1} = v_k·I/(I + Δt·d).
//!
//! Joint Coulomb friction (URDF `<dynamics friction>`) as interval blocks of the contact
//! problem, against the analytic answers of a 1-dof turntable (vertical axis, so gravity
//! exerts no torque; inertia about the axis I = I_zz + m·d²): it sticks while |τ| ≤ F,
//! accelerates at (τ − F)/I beyond, and a spinning table stops at t = I·v₀/F and stays
//! stopped; then on the 7-dof arm, where friction couples the joints: with F above the
//! exactly its gravity torque. The solver runs at a tolerance of 1e-12 so that the
//! analytic answers are checked to 1e-9.
//!
//! A joint with friction resting on its limit, one block holding both (joint_blocks'
//! "Both"; as two, the pair's impulses are not unique and the ADMM missed the tolerance):
//! pushed into the limit or pulled away below F it stays; pulled beyond F it leaves at
//! (τ − F)/I from the first step on (the limit, K_0, only pushes: its impulse is not held
//! at a pulling value).

mod common;
mod counting;

use signorini::config::ContactConfig;
use signorini::contact::JointBlockKind;
use signorini::model::{Model, ModelOptions};
use signorini::scenes::{Sources, worlds};
use signorini::sim::{Robot, Stepper, World};

const DT: f64 = 1e-3;
/// F (N·m).
const FRICTION: f64 = 0.8;
/// m (kg), d (m), I_zz (kg·m²) of the turntable's arm.
const MASS: f64 = 2.0;
const OFFSET: f64 = 0.5;
const IZZ: f64 = 0.1;

fn tight() -> ContactConfig {
    serde_yaml_ng::from_str("tolerance: 1e-12").unwrap()
}

fn turntable() -> World {
    turntable_with(0.0, FRICTION)
}

fn turntable_with(damping: f64, friction: f64) -> World {
    turntable_joint(damping, friction, "continuous", "", None)
}

/// The upper limit of [`limited_turntable`] (rad), where it starts.
const UPPER: f64 = 0.5;

/// The turntable on a revolute joint limited to [−1, UPPER] rad, resting on its upper limit.
fn limited_turntable() -> World {
    let limit = format!(r#"<limit lower="-1" upper="{UPPER}" effort="100" velocity="10"/>"#);
    turntable_joint(0.0, FRICTION, "revolute", &limit, Some(UPPER))
}

/// The turntable on a joint of `kind` (with its `limit` element), at `q0` (revolute) or
/// its neutral configuration.
fn turntable_joint(damping: f64, friction: f64, kind: &str, limit: &str, q0: Option<f64>) -> World {
    let xml = format!(
        r#"<robot name="turntable">
  <link name="base"/>
  <link name="arm">
    <inertial>
      <origin xyz="{OFFSET} 0 0"/>
      <mass value="{MASS}"/>
      <inertia ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="{IZZ}"/>
    </inertial>
  </link>
  <joint name="spin" type="{kind}">
    <parent link="base"/>
    <child link="arm"/>
    <axis xyz="0 0 1"/>
    {limit}
    <dynamics damping="{damping}" friction="{friction}"/>
  </joint>
</robot>"#
    );
    let model = Model::from_urdf_xml(&xml, "turntable", &ModelOptions::default()).unwrap();
    assert_eq!((model.damping[0], model.friction[0]), (damping, friction));
    let q = q0.map_or_else(|| model.neutral_configuration().as_slice().to_vec(), |q| vec![q]);
    World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default()).unwrap()
}

fn inertia() -> f64 {
    IZZ + MASS * OFFSET * OFFSET
}

/// The joint's velocity (rad/s).
fn speed(world: &World) -> f64 {
    world.robot.as_ref().unwrap().v[0]
}

/// The friction torque of the last step (N·m): the joint block's impulse over Δt.
fn friction_torque(stepper: &Stepper) -> f64 {
    let blocks = stepper.joint_blocks();
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert_eq!(blocks[0].kind, JointBlockKind::Friction { force: FRICTION });
    stepper.impulses()[2] / DT
}

#[test]
fn a_damped_turntable_slows_as_implicit_euler_says() {
    let (d, v0) = (0.3, 2.0);
    let mut world = turntable_with(d, 0.0);
    world.robot.as_mut().unwrap().v[0] = v0;
    let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
    let decay = inertia() / (inertia() + DT * d);
    for k in 1..=1000 {
        stepper.step(&mut world, &[0.0]);
        let want = v0 * decay.powi(k);
        assert!((speed(&world) - want).abs() < 1e-12, "step {k}: v = {}, expected {want}", speed(&world));
    }
}

#[test]
fn below_the_friction_torque_the_turntable_sticks() {
    for tau in [0.0, 0.5 * FRICTION, -0.99 * FRICTION, FRICTION] {
        let mut world = turntable();
        let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
        for k in 0..500 {
            let report = *stepper.step(&mut world, &[tau]);
            assert!(report.converged, "τ {tau}, step {k}: {report:?}");
            assert_eq!(report.joint_friction, 1);
            assert!(speed(&world).abs() < 1e-9, "τ {tau}, step {k}: v = {}", speed(&world));
            // The friction balances the torque (to the tolerance over Δt).
            assert!((friction_torque(&stepper) + tau).abs() < 1e-8, "τ {tau}: {}", friction_torque(&stepper));
        }
    }
}

#[test]
fn above_it_the_turntable_accelerates_at_the_torque_left_over() {
    for tau in [2.0 * FRICTION, -3.0 * FRICTION] {
        let mut world = turntable();
        let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
        let accel = (tau - tau.signum() * FRICTION) / inertia();
        for k in 1..=1000 {
            let report = *stepper.step(&mut world, &[tau]);
            assert!(report.converged, "τ {tau}, step {k}: {report:?}");
            // Semi-implicit Euler is exact for a constant acceleration: v_k = k·Δt·a.
            let want = k as f64 * DT * accel;
            assert!((speed(&world) - want).abs() < 1e-9 * want.abs().max(1.0), "τ {tau}, step {k}");
            // Slipping: the friction sits at its bound, against the motion.
            assert!((friction_torque(&stepper) + tau.signum() * FRICTION).abs() < 1e-9, "τ {tau}, step {k}");
        }
    }
}

#[test]
fn a_spinning_turntable_stops_at_i_v0_over_f_and_stays_stopped() {
    let v0 = 1.5;
    let mut world = turntable();
    world.robot.as_mut().unwrap().v[0] = v0;
    let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
    let stop = inertia() * v0 / FRICTION;
    let mut stopped_at = None;
    for k in 1..=2000 {
        let report = *stepper.step(&mut world, &[0.0]);
        assert!(report.converged, "step {k}: {report:?}");
        let t = k as f64 * DT;
        let want = (v0 - t * FRICTION / inertia()).max(0.0);
        assert!((speed(&world) - want).abs() < 1e-9, "step {k}: v = {}, expected {want}", speed(&world));
        if stopped_at.is_none() && speed(&world).abs() < 1e-9 {
            stopped_at = Some(t);
        }
    }
    let t = stopped_at.expect("never stopped");
    // The step that stops it is the first whose friction impulse F·Δt exceeds I·v.
    assert!(t >= stop && t < stop + DT, "stopped at {t} s, analytic {stop} s");
    assert!(friction_torque(&stepper).abs() < 1e-9, "at rest, no torque: {}", friction_torque(&stepper));
}

/// The joint's position (rad).
fn angle(world: &World) -> f64 {
    world.robot.as_ref().unwrap().q[0]
}

#[test]
fn on_its_limit_the_turntable_stays_pushed_in_or_pulled_out_below_the_friction() {
    for tau in [2.0 * FRICTION, 0.0, -0.5 * FRICTION, -0.99 * FRICTION] {
        let mut world = limited_turntable();
        let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
        for k in 0..500 {
            let report = *stepper.step(&mut world, &[tau]);
            assert!(report.converged, "τ {tau}, step {k}: {report:?}");
            // One block, the limit holding the friction (joint_blocks' "Both").
            assert_eq!((report.joint_limits, report.joint_friction), (1, 1), "τ {tau}, step {k}");
            let blocks = stepper.joint_blocks();
            let held = matches!(blocks[..], [b] if b.held_friction() == FRICTION);
            assert!(held, "τ {tau}, step {k}: {blocks:?}");
            assert!(speed(&world).abs() < 1e-9, "τ {tau}, step {k}: v = {}", speed(&world));
            assert!((angle(&world) - UPPER).abs() < 1e-9, "τ {tau}, step {k}: q = {}", angle(&world));
        }
    }
}

#[test]
fn pulled_off_its_limit_beyond_the_friction_it_leaves_at_the_torque_left_over() {
    let tau = -3.0 * FRICTION;
    let mut world = limited_turntable();
    let mut stepper = Stepper::new(&world, DT, &tight().settings(), 4);
    let accel = (tau + FRICTION) / inertia();
    for k in 1..=300 {
        let report = *stepper.step(&mut world, &[tau]);
        assert!(report.converged, "step {k}: {report:?}");
        assert_eq!(report.joint_friction, 1, "step {k}");
        let want = k as f64 * DT * accel;
        assert!((speed(&world) - want).abs() < 1e-9, "step {k}: v = {}, expected {want}", speed(&world));
    }
    assert_eq!(stepper.joint_blocks().len(), 1, "off the limit, the friction block alone");
    assert!(!stepper.joint_blocks()[0].is_limit());
}

#[test]
fn an_arm_with_friction_above_its_gravity_torques_holds_any_pose_unpowered() {
    let mut model = Model::from_urdf_file(&common::repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for (joint, value) in [("joint2", 0.5), ("joint4", -1.2), ("joint6", 0.7)] {
        q[model.idx_q[model.joint_id(joint).unwrap()]] = value;
    }
    let mut data = signorini::model::Data::new(&model);
    let g = signorini::dynamics::gravity_torque(&model, &mut data, &q).clone_owned();
    let largest = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(largest > 1.0, "a pose that loads the joints: {g}");
    for f in model.friction.iter_mut() {
        *f = 1.5 * largest;
    }
    let start = q.clone();
    let mut world = World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default()).unwrap();
    let mut stepper = Stepper::new(&world, DT, &tight().settings(), 8);
    let tau = vec![0.0; world.nv()];
    for k in 0..1000 {
        let report = *stepper.step(&mut world, &tau);
        assert!(report.converged, "step {k}: {report:?}");
        assert_eq!(report.joint_friction, 7);
    }
    let r = world.robot.as_ref().unwrap();
    let moved = r.q.iter().zip(&start).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(moved < 1e-9, "moved {moved} rad in 1 s");
    // At rest M(v⁺ − v) = Δt(τ − g) + λ: each joint's friction carries its gravity torque.
    let n = stepper.contacts().len();
    for (i, b) in stepper.joint_blocks().iter().enumerate() {
        let load = stepper.impulses()[3 * (n + i) + 2] / DT;
        assert!((load - g[b.dof]).abs() < 1e-8, "dof {}: friction {load}, gravity {}", b.dof, g[b.dof]);
    }
}

/// Friction and contacts in one problem: the bundled quadruped with 0.5 N·m of friction
/// in every joint stands under its PD, every step solved without allocating, its weight
/// on its feet.
#[test]
fn the_quadruped_with_joint_friction_stands_on_its_feet() {
    let (mut world, reference, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
    let r = world.robot.as_mut().unwrap();
    let joints = r.model.nv - 6;
    for f in std::sync::Arc::make_mut(&mut r.model).friction.iter_mut().skip(6) {
        *f = 0.5;
    }
    let weight = r.model.total_mass() * 9.81;
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut hold = worlds::hold(&world, &reference, kp, kd);
    for k in 0..3000 {
        worlds::pd(&world, &mut hold, &mut tau);
        let allocations = counting::allocations_during(|| {
            stepper.step(&mut world, &tau);
        });
        let report = *stepper.report();
        assert!(report.converged, "step {k}: {report:?}");
        assert_eq!((report.contacts, report.joint_friction), (4, joints), "step {k}");
        assert_eq!(allocations, 0, "step {k}");
    }
    let support: f64 = (0..4).map(|i| stepper.impulses()[3 * i + 2]).sum::<f64>() / DT;
    assert!((support - weight).abs() < 1e-3 * weight, "feet carry {support} N, weight {weight} N");
    let r = world.robot.as_ref().unwrap();
    assert!(r.v.iter().all(|x| x.abs() < 1e-4), "at rest: {:?}", r.v);
}

//! The simulator with robots: the bundled quadruped standing under a joint PD and dropped
//! from 0.3 m, and the zero-allocation proof of a step with a robot and a free body.

mod common;
mod counting;

use std::sync::Arc;

use signorini::app::Setup;
use signorini::collision::{CollisionShape, FreeBodyShape};
use signorini::config::{CollisionConfig, ContactConfig, EnvironmentConfig};
use signorini::model::{FreeBody, FreeBodyState, Model, ModelOptions};
use signorini::scenes::{Sources, robots, worlds};
use signorini::sim::{Robot, Stepper, World};
use signorini::spatial::{SE3, Vec3};

use counting::allocations_during;

const DT: f64 = 1e-3;

/// Σ of the normal contact forces of the last step (N).
fn normal_force(stepper: &Stepper) -> f64 {
    (0..stepper.contacts().len()).map(|i| stepper.impulses()[3 * i + 2]).sum::<f64>() / DT
}

/// The scenes' quadruped is the one config/quadruped.yaml simulates: the same URDF,
/// initial posture (also the contact fixture quadruped_standing's), environment, collision
/// settings and posture hold.
#[test]
fn the_quadruped_scenes_are_the_configured_quadruped() {
    let setup = Setup::load(&common::repo("config/quadruped.yaml"), None).unwrap();
    let (_, reference, gains) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
    let (_, posture) = robots::quadruped(&Sources::repository()).unwrap();
    assert_eq!(reference[3..], setup.initial_configuration()[3..], "the fixture's posture is the configured one");
    assert_eq!(posture[3..], reference[3..], "robots::QUADRUPED_POSTURE is the configured posture");
    assert_eq!(setup.config.environment, EnvironmentConfig::default());
    assert_eq!(setup.config.collision, CollisionConfig::default());
    assert_eq!(gains, (setup.config.sim.hold_kp.get(), setup.config.sim.hold_kd.get()));
}

#[test]
fn the_quadruped_stands_under_a_joint_pd_for_ten_seconds() {
    let (mut world, reference, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
    let mass = world.robot.as_ref().unwrap().model.total_mass();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut settled = 0.0;
    let mut hold = worlds::hold(&world, &reference, kp, kd);
    for k in 0..10_000 {
        worlds::pd(&world, &mut hold, &mut tau);
        let report = *stepper.step(&mut world, &tau);
        assert_eq!(report.contacts, 4, "step {k}");
        assert!(report.converged, "step {k}: {report:?}");
        if k == 999 {
            settled = world.robot.as_ref().unwrap().q[2];
        }
    }
    let r = world.robot.as_ref().unwrap();
    let drift = (r.q[2] - settled).abs();
    assert!(drift < 1e-3, "base height drifted {drift} m from 1 s to 10 s");
    let weight = mass * 9.81;
    let support = normal_force(&stepper);
    assert!((support - weight).abs() < 1e-3 * weight, "feet carry {support} N, weight {weight} N");
    assert!(r.v.iter().all(|x| x.abs() < 1e-4), "at rest: {:?}", r.v);
}

#[test]
fn the_quadruped_dropped_from_thirty_centimetres_lands_and_settles() {
    let (mut world, reference, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.3).unwrap();
    let z0 = world.robot.as_ref().unwrap().q[2] - 0.3;
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut deepest = 0.0f64;
    let mut hold = worlds::hold(&world, &reference, kp, kd);
    for k in 0..6000 {
        worlds::pd(&world, &mut hold, &mut tau);
        let report = *stepper.step(&mut world, &tau);
        deepest = deepest.max(report.max_penetration);
        let r = world.robot.as_ref().unwrap();
        assert!(r.q.iter().chain(&r.v).all(|x| x.is_finite()), "step {k}");
    }
    let r = world.robot.as_ref().unwrap();
    assert!(deepest < 5e-3, "deepest penetration {deepest} m");
    assert!((r.q[2] - z0).abs() < 0.05, "stands near its height: {} vs {z0}", r.q[2]);
    // The trunk's sway decays by e every ~0.45 s: 4e-3 rad/s at 3 s, 2e-5 at 5 s.
    assert!(r.v.iter().all(|x| x.abs() < 1e-4), "settled: {:?}", r.v);
    assert_eq!(stepper.report().contacts, 4);
}

#[test]
fn a_step_with_a_robot_and_a_free_body_does_not_allocate() {
    let (mut world, reference, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.05).unwrap();
    let shape = FreeBodyShape {
        name: "crate".into(),
        shape: Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05))),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    };
    let body = FreeBody::cuboid("crate", 2.0, &Vec3::repeat(0.05)).unwrap();
    world.add_body(body, &[shape], FreeBodyState::at_rest(SE3::from_translation(Vec3::new(0.8, 0.0, 0.2))));
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    let robot_nv = world.nv() - 6;
    for _ in 0..5 {
        stepper.step(&mut world, &tau[..robot_nv]);
    }
    // Landing, new contacts, settling: none of it allocates.
    let mut hold = worlds::hold(&world, &reference, kp, kd);
    for k in 0..500 {
        worlds::pd(&world, &mut hold, &mut tau);
        let n = allocations_during(|| {
            stepper.step(&mut world, &tau[..robot_nv]);
        });
        assert_eq!(n, 0, "step {k}");
    }
    assert_eq!(stepper.report().contacts, 8, "four feet and the crate's four corners");
}

#[test]
fn the_arm_under_gravity_compensation_holds_its_pose() {
    let model = Model::from_urdf_file(&common::repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for (joint, value) in [("joint2", 0.5), ("joint4", -1.2), ("joint6", 0.7)] {
        q[model.idx_q[model.joint_id(joint).unwrap()]] = value;
    }
    let start = q.clone();
    let mut world = World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default()).unwrap();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    for _ in 0..2000 {
        let r = world.robot.as_mut().unwrap();
        tau.copy_from_slice(signorini::dynamics::gravity_torque(&r.model, &mut r.data, &r.q).as_slice());
        stepper.step(&mut world, &tau);
    }
    let r = world.robot.as_ref().unwrap();
    let moved = r.q.iter().zip(&start).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(moved < 1e-9, "moved {moved} rad in 2 s");
}

/// An external wrench on the arm's last body (world axes, torque about its joint's
/// origin) balanced by the joint torques Jᵀ·F of the joint's Jacobian (its origin's
/// velocity and the angular velocity, in world axes) on top of gravity compensation: the
/// arm holds its pose; without the balancing torques it moves.
#[test]
fn an_external_wrench_on_a_link_acts_through_its_jacobian() {
    use signorini::dynamics::{ReferenceFrame, compute_joint_jacobians, joint_jacobian};
    use signorini::spatial::Force;
    let model = Model::from_urdf_file(&common::repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for (joint, value) in [("joint2", 0.5), ("joint4", -1.2), ("joint6", 0.7)] {
        q[model.idx_q[model.joint_id(joint).unwrap()]] = value;
    }
    let last = model.joint_id("joint7").unwrap();
    let wrench = Force { linear: Vec3::new(3.0, -2.0, 5.0), angular: Vec3::new(0.2, 0.1, -0.3) };
    for balanced in [true, false] {
        let start = q.clone();
        let mut world =
            World::new(Some(Robot::new(model.clone(), q.clone())), &Default::default(), &Default::default()).unwrap();
        world.robot.as_mut().unwrap().wrenches[last] = wrench;
        let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
        let mut tau = vec![0.0; world.nv()];
        let mut jacobian = nalgebra::Matrix6xX::zeros(model.nv);
        for _ in 0..500 {
            let r = world.robot.as_mut().unwrap();
            tau.copy_from_slice(signorini::dynamics::gravity_torque(&r.model, &mut r.data, &r.q).as_slice());
            if balanced {
                compute_joint_jacobians(&r.model, &mut r.data, &r.q);
                joint_jacobian(&r.model, &r.data, last, ReferenceFrame::LocalWorldAligned, &mut jacobian);
                let f = nalgebra::Vector6::new(3.0, -2.0, 5.0, 0.2, 0.1, -0.3);
                for (t, jf) in tau.iter_mut().zip((jacobian.transpose() * f).iter()) {
                    *t -= jf;
                }
            }
            stepper.step(&mut world, &tau);
        }
        let r = world.robot.as_ref().unwrap();
        let moved = r.q.iter().zip(&start).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        if balanced {
            assert!(moved < 1e-9, "moved {moved} rad in 0.5 s");
        } else {
            assert!(moved > 1e-3, "the wrench alone moved the arm only {moved} rad");
        }
    }
}

/// The arm under gravity compensation and a joint PD, one joint pushed towards a limit by
/// a constant torque instead of its PD: it stops at the limit, never passes it by more than the solver's tolerance
/// allows (10 ε_abs·Δt), and at rest the limit carries exactly
/// what gravity and the push leave on that dof (static equilibrium, λ/Δt = g_k(q) − τ_k
/// for the lower limit's row e_k), to the solver's tolerance.
#[test]
fn an_arm_joint_pushed_into_its_limits_stops_there_and_the_limit_carries_the_load() {
    for (push, side) in [(-8.0f64, "lower"), (8.0, "upper")] {
        let model = Model::from_urdf_file(&common::repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
        let j = model.joint_id("joint4").unwrap();
        let (iq, iv) = (model.idx_q[j], model.idx_v[j]);
        let (lower, upper) = (model.lower_position_limit[iq], model.upper_position_limit[iq]);
        let bound = if push < 0.0 { lower } else { upper };
        let mut q = model.neutral_configuration().as_slice().to_vec();
        q[iq] = bound - push.signum() * 0.3;
        let reference = q.clone();
        let mut world = World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default()).unwrap();
        let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
        let mut tau = vec![0.0; world.nv()];
        let mut reached = None;
        for k in 0..3000 {
            let r = world.robot.as_mut().unwrap();
            tau.copy_from_slice(signorini::dynamics::gravity_torque(&r.model, &mut r.data, &r.q).as_slice());
            for k in 0..tau.len() {
                tau[k] += if k == iv { push } else { 50.0 * (reference[k] - r.q[k]) - 10.0 * r.v[k] };
            }
            let report = *stepper.step(&mut world, &tau);
            assert!(report.converged, "{side}, step {k}: {report:?}");
            let x = world.robot.as_ref().unwrap().q[iq];
            let tolerance = 10.0 * 1e-6 * DT;
            assert!(
                x >= lower - tolerance && x <= upper + tolerance,
                "{side}, step {k}: q = {x} outside [{lower}, {upper}]"
            );
            if reached.is_none() && (x - bound).abs() < tolerance {
                reached = Some(k);
            }
        }
        assert!(reached.is_some(), "{side}: never reached the limit");
        // Other joints may have been swung into theirs on the way: every active limit
        // balances its own dof.
        let limits = stepper.joint_blocks();
        assert!(limits.iter().any(|l| l.dof == iv && l.is_limit()), "{side}: {limits:?}");
        let r = world.robot.as_mut().unwrap();
        assert!(r.v.iter().all(|v| v.abs() < 1e-5), "{side}: still moving {:?}", r.v);
        let g = signorini::dynamics::gravity_torque(&r.model, &mut r.data, &r.q).clone_owned();
        let n = stepper.contacts().len();
        for (i, l) in limits.iter().enumerate() {
            let load = stepper.impulses()[3 * (n + i) + 2] / DT;
            let expected = l.sign() * (g[l.dof] - tau[l.dof]);
            // To the solver's tolerance: ε_abs = 1e-6 N·m·s on the impulse.
            assert!(
                (load - expected).abs() < 1e-6 / DT,
                "{side}, dof {}: the limit carries {load}, expected {expected}",
                l.dof
            );
        }
    }
}

#[test]
fn solo12_stands_under_a_joint_pd() {
    let (mut world, reference) = worlds::solo12_standing(&Sources::repository()).unwrap();
    let mass = world.robot.as_ref().unwrap().model.total_mass();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default().settings(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut settled = 0.0;
    let mut hold = worlds::hold(&world, &reference, 5.0, 0.1);
    for k in 0..3000 {
        worlds::pd(&world, &mut hold, &mut tau);
        let report = *stepper.step(&mut world, &tau);
        assert!(report.converged, "step {k}: {report:?}");
        if k == 999 {
            settled = world.robot.as_ref().unwrap().q[2];
        }
    }
    let r = world.robot.as_ref().unwrap();
    assert!((r.q[2] - settled).abs() < 1e-3, "base height from 1 s to 3 s: {settled} → {}", r.q[2]);
    let support = normal_force(&stepper);
    assert!((support - mass * 9.81).abs() < 1e-2 * mass * 9.81, "feet carry {support} N of {} N", mass * 9.81);
    println!("solo12: {} contacts, base at {} m", stepper.report().contacts, r.q[2]);
}

/// The polish (`contact.polish`, on by default) changes how a step is solved, not what it
/// finds: solo12 dropped on its feet and standing follows the same trajectory with it and
/// without it, and once settled nearly every step is polished (no solver iteration).
/// A step starts from the placements of the previous step's end-of-step check
/// (`contact.regenerate`) when its q is theirs: bit for bit the step that places the joints
/// again, through talos falling over from standing, unactuated (example-robot-data; steps
/// solved again included).
#[test]
fn starting_from_the_end_of_step_placements_changes_nothing() {
    let falling = || -> World {
        let (model, q) = robots::talos(&Sources::repository()).unwrap();
        let mut world = World::new(Some(Robot::new(model, q)), &Default::default(), &Default::default()).unwrap();
        world.place_robot_on(0.0);
        world
    };
    let (mut reused, mut placed) = (falling(), falling());
    let mut a = Stepper::new(&reused, DT, &ContactConfig::default().settings(), 64);
    let mut b = Stepper::new(&placed, DT, &ContactConfig::default().settings(), 64);
    let (tau, mut again) = (vec![0.0; reused.nv()], 0);
    let bits = |w: &World| -> Vec<u64> {
        let r = w.robot.as_ref().unwrap();
        r.q.iter().chain(&r.v).map(|x| x.to_bits()).collect()
    };
    for k in 0..1500 {
        again += usize::from(a.step(&mut reused, &tau).regenerated > 0);
        b.forget_end_placements();
        b.step(&mut placed, &tau);
        assert_eq!(bits(&reused), bits(&placed), "step {k}");
    }
    println!("{again} of 1500 steps solved again");
    assert!(again > 0, "the fall solves steps again");
}

#[test]
fn polished_steps_match_the_solver() {
    let (mut polished, reference) = worlds::solo12_standing(&Sources::repository()).unwrap();
    let mut solved = worlds::solo12_standing(&Sources::repository()).unwrap().0;
    let off = ContactConfig { polish: false, ..ContactConfig::default() };
    let mut with = Stepper::new(&polished, DT, &ContactConfig::default().settings(), 64);
    let mut without = Stepper::new(&solved, DT, &off.settings(), 64);
    let (mut tau, mut count, mut worst) = (vec![0.0; polished.nv()], 0, 0.0f64);
    let mut hold_polished = worlds::hold(&polished, &reference, 5.0, 0.1);
    let mut hold_solved = worlds::hold(&solved, &reference, 5.0, 0.1);
    for k in 0..2000 {
        worlds::pd(&polished, &mut hold_polished, &mut tau);
        let a = *with.step(&mut polished, &tau);
        worlds::pd(&solved, &mut hold_solved, &mut tau);
        let b = *without.step(&mut solved, &tau);
        assert!(a.converged && b.converged && !b.polished, "step {k}");
        count += usize::from(a.polished && k >= 1000);
        let (qa, qb) = (&polished.robot.as_ref().unwrap().q, &solved.robot.as_ref().unwrap().q);
        assert_eq!(qa.len(), qb.len(), "step {k}");
        let dq = qa.iter().zip(qb).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        worst = worst.max(dq);
    }
    // Both meet the same 1e-6 tolerance, not the same rounding: the landing's impacts
    // amplify the difference to 7.0e-7 (rad or m) at most, then it stays (1.7e-5 when the
    // feet touched at their hulls' facets of 2 or 3 points).
    println!("polished and solved configurations differ by {worst:.1e} at most");
    assert!(worst < 5e-6, "configurations differ by {worst}");
    assert!(count >= 990, "{count} of the last 1000 steps polished");
    let (fa, fb) = (normal_force(&with), normal_force(&without));
    assert!((fa - fb).abs() < 1e-3 * fb, "support {fa} N polished, {fb} N solved");
}

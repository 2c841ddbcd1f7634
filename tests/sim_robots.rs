//! The simulator with robots: the bundled quadruped standing under a joint PD and dropped
//! from 0.3 m, and the zero-allocation proof of a step with a robot and a free body.

mod common;
mod counting;
#[path = "../benches/scenes/sim.rs"]
mod sim_scenes;

use std::sync::Arc;

use signorini::collision::{CollisionShape, FreeBodyShape};
use signorini::config::{CollisionConfig, ContactConfig, EnvironmentConfig};
use signorini::model::{FreeBody, FreeBodyState, Model, ModelOptions};
use signorini::sim::{Robot, Stepper, World};
use signorini::spatial::{SE3, Vec3};

use counting::allocations_during;

const DT: f64 = 1e-3;

/// Σ of the normal contact forces of the last step (N).
fn normal_force(stepper: &Stepper) -> f64 {
    (0..stepper.contacts().len()).map(|i| stepper.impulses()[3 * i + 2]).sum::<f64>() / DT
}

#[test]
fn the_quadruped_stands_under_a_joint_pd_for_ten_seconds() {
    let (mut world, reference, (kp, kd)) = sim_scenes::quadruped(0.0);
    let mass = world.robot.as_ref().unwrap().model.total_mass();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut settled = 0.0;
    for k in 0..10_000 {
        sim_scenes::pd(&world, &reference, kp, kd, &mut tau);
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
    let (mut world, reference, (kp, kd)) = sim_scenes::quadruped(0.3);
    let z0 = world.robot.as_ref().unwrap().q[2] - 0.3;
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut deepest = 0.0f64;
    for k in 0..6000 {
        sim_scenes::pd(&world, &reference, kp, kd, &mut tau);
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
    let (mut world, reference, (kp, kd)) = sim_scenes::quadruped(0.05);
    let shape = FreeBodyShape {
        name: "crate".into(),
        shape: Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05))),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    };
    let body = FreeBody::cuboid("crate", 2.0, &Vec3::repeat(0.05)).unwrap();
    world.add_body(body, &[shape], FreeBodyState::at_rest(SE3::from_translation(Vec3::new(0.8, 0.0, 0.2))));
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default(), 64);
    let mut tau = vec![0.0; world.nv()];
    let robot_nv = world.nv() - 6;
    for _ in 0..5 {
        stepper.step(&mut world, &tau[..robot_nv]);
    }
    // Landing, new contacts, settling: none of it allocates.
    for k in 0..500 {
        sim_scenes::pd(&world, &reference, kp, kd, &mut tau);
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
    let mut world =
        World::new(Some(Robot::new(model, q)), &EnvironmentConfig::default(), &CollisionConfig::default()).unwrap();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default(), 64);
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

#[test]
fn solo12_stands_under_a_joint_pd() {
    let (mut world, reference) = sim_scenes::solo12_standing(&common::erd_share());
    let mass = world.robot.as_ref().unwrap().model.total_mass();
    let mut stepper = Stepper::new(&world, DT, &ContactConfig::default(), 64);
    let mut tau = vec![0.0; world.nv()];
    let mut settled = 0.0;
    for k in 0..3000 {
        sim_scenes::pd(&world, &reference, 5.0, 0.1, &mut tau);
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

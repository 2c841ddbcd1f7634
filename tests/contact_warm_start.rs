//! Warm starting by persistent contact id: the quadruped standing still on its four feet
//! (holding torques from the statics) stepped for 100 steps through detection, assembly,
//! the ADMM and integration: after the first step, every solve takes 0 or 1 iterations,
//! and the robot does not move.

mod common;

use nalgebra::{DMatrix, DVector};
use signorini::collision::{CollisionWorld, ContactBuffer};
use signorini::contact::{
    AdmmSettings, AdmmSolver, Assembly, Bodies, Build, ContactProblem, ProblemSettings, SolveResult, Solver, WarmStart,
    WarmStartCache, cone,
};
use signorini::dynamics;
use signorini::model::Data;
use signorini::scenes::{Sources, problems};

#[test]
fn a_resting_quadruped_needs_at_most_one_iteration_after_the_first_step() {
    let dt = 1e-3;
    let (model, mut q) = problems::quadruped_standing(&Sources::repository()).unwrap();
    let nv = model.nv;
    // Feet exactly on the ground (the fixture's posture).
    let mut v = vec![0.0; nv];
    let mut data = Data::new(&model);
    let mut world = CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
    let mut contacts = ContactBuffer::with_capacity(64);
    let mut problem = ContactProblem::with_capacity(64);
    let mut assembly = Assembly::with_capacity(64, nv, nv);
    let settings = ProblemSettings::default();
    let mut v_free = vec![0.0; nv];

    // Holding torques: the minimum-norm foot forces that carry the trunk (the base rows of
    // Jᵀλ = g(q)), and the joint torques that balance gravity against them.
    dynamics::free_velocity(&model, &mut data, &q, &v, &vec![0.0; nv], &[], &[], dt, &mut v_free);
    world.update_robot(&data);
    world.detect(&mut contacts);
    assert_eq!(contacts.len(), 4);
    let bodies = Bodies::new(Some((&model, &data)), &[], &[]);
    assembly
        .assemble(&bodies, contacts.contacts(), &[], &v, &v_free, dt, &settings, &mut problem, Build::Delassus)
        .unwrap();
    let j = DMatrix::from_row_slice(12, nv, assembly.jacobian());
    let gravity = dynamics::gravity_torque(&model, &mut data, &q).clone();
    let a = j.columns(0, 6).transpose(); // 6 × 12
    let forces = a.transpose() * (&a * a.transpose()).try_inverse().unwrap() * gravity.rows(0, 6);
    for i in 0..4 {
        assert!(cone::distance_to_cone(0.5, &cone::block(forces.as_slice(), i)) == 0.0, "feet forces inside the cones");
    }
    let tau: DVector<f64> = &gravity - j.transpose() * &forces;
    assert!(tau.rows(0, 6).amax() < 1e-9, "the base is unactuated");

    let mut solver = AdmmSolver::with_capacity(64, AdmmSettings::default());
    let mut cache = WarmStartCache::with_capacity(64);
    let mut warm = WarmStart::with_capacity(64);
    let mut result = SolveResult::with_capacity(64, 0);
    let z0 = q[2];
    let mut iterations = Vec::new();
    let mut q_next = q.clone();
    for step in 0..100 {
        dynamics::free_velocity(&model, &mut data, &q, &v, tau.as_slice(), &[], &[], dt, &mut v_free);
        world.update_robot(&data);
        world.detect(&mut contacts);
        assert_eq!(contacts.len(), 4, "step {step}");
        let bodies = Bodies::new(Some((&model, &data)), &[], &[]);
        assembly
            .assemble(&bodies, contacts.contacts(), &[], &v, &v_free, dt, &settings, &mut problem, Build::Delassus)
            .unwrap();
        cache.guess(problem.ids(), &mut warm);
        solver.solve(&problem, Some(&warm), &mut result).unwrap();
        assert!(result.converged, "step {step}");
        cache.store(problem.ids(), &result);
        iterations.push(result.stats.iterations);
        v.copy_from_slice(&v_free);
        assembly.apply_impulses(&bodies, &result.lambda, &mut v);
        let displacement: Vec<f64> = v.iter().map(|x| x * dt).collect();
        dynamics::integrate(&model, &q, &displacement, &mut q_next);
        q.copy_from_slice(&q_next);
    }
    println!("iterations per step: {iterations:?}");
    assert!(iterations[0] >= 1, "the first (cold) solve iterates");
    assert!(iterations[1..].iter().all(|&k| k <= 1), "{iterations:?}");
    assert!(iterations[1..].contains(&0), "a warm start that still solves the step is kept: {iterations:?}");
    assert!((q[2] - z0).abs() < 1e-6, "the trunk stays: moved {}", q[2] - z0);
    assert!(v.iter().all(|x| x.abs() < 1e-5), "at rest: {v:?}");
}

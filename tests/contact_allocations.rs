//! Zero heap allocations per step of the contact pipeline once sized: assembling the
//! problem, the warm-start lookup, ADMM and PGS solves (NCP and CCP), the metrics and the
//! velocity update; on the standing quadruped (12 × 12, the row-oriented Cholesky) and on
//! the 15-cube wall (303 × 303, faer's blocked Cholesky). Every other solver (LCP, Chrono's
//! ADMM and FADMM, SAP, V-FPI) in the simulator's step once its workspace has seen the
//! problem's size.

mod common;
mod counting;

use signorini::collision::{CollisionWorld, ContactBuffer};
use signorini::contact::{
    AdmmSettings, AdmmSolver, Assembly, Bodies, Build, ContactModel, ContactProblem, Metrics, PgsSettings, PgsSolver,
    ProblemSettings, SolveResult, Solver, StoppingRule, WarmStart, WarmStartCache,
};
use signorini::dynamics;
use signorini::model::Data;
use signorini::scenes::{Sources, problems};

use counting::allocations_during;

fn solvers(capacity: usize) -> Vec<Box<dyn Solver>> {
    let stop = StoppingRule { absolute: 1e-9, max_iterations: 300, ..Default::default() };
    let mut out: Vec<Box<dyn Solver>> = Vec::new();
    for model in [ContactModel::Ncp, ContactModel::Ccp] {
        out.push(Box::new(AdmmSolver::with_capacity(capacity, AdmmSettings { model, stop, ..Default::default() })));
        out.push(Box::new(PgsSolver::with_capacity(capacity, PgsSettings { model, stop, ..Default::default() })));
    }
    out
}

#[test]
fn the_quadruped_standing_steps_without_allocating() {
    let dt = 1e-3;
    let (model, q) = problems::quadruped_standing(&Sources::repository()).unwrap();
    let nv = model.nv;
    let (v, tau) = (vec![0.0; nv], vec![0.0; nv]);
    let mut data = Data::new(&model);
    let mut world = CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
    let mut contacts = ContactBuffer::with_capacity(64);
    let mut problem = ContactProblem::with_factor_capacity(64, model.nv);
    let mut assembly = Assembly::with_capacity(64, nv, nv);
    let mut cache = WarmStartCache::with_capacity(64);
    let mut warm = WarmStart::with_capacity(64);
    let mut result = SolveResult::with_capacity(64, 0);
    let mut sigma = vec![0.0; 3 * 64];
    let mut v_free = vec![0.0; nv];
    let mut v_next = vec![0.0; nv];
    for mut solver in solvers(64) {
        for step in 0..5 {
            let n = allocations_during(|| {
                dynamics::free_velocity(&model, &mut data, &q, &v, &tau, &[], &[], dt, &mut v_free);
                world.update_robot(&data);
                world.detect(&mut contacts);
                let bodies = Bodies::new(Some((&model, &data)), &[], &[]);
                assembly
                    .assemble(
                        &bodies,
                        contacts.contacts(),
                        &[],
                        &v,
                        &v_free,
                        dt,
                        &ProblemSettings::default(),
                        &mut problem,
                        Build::Delassus,
                    )
                    .unwrap();
                cache.guess(problem.ids(), &mut warm);
                solver.solve(&problem, Some(&warm), &mut result).unwrap();
                cache.store(problem.ids(), &result);
                Metrics::evaluate(&problem, &result.lambda, dt, ContactModel::Ncp, &mut sigma);
                v_next.copy_from_slice(&v_free);
                assembly.apply_impulses(&bodies, &result.lambda, &mut v_next);
            });
            assert_eq!(n, 0, "{} {:?} step {step}", solver.name(), solver.model());
            assert_eq!(problem.contacts(), 4);
        }
    }
}

#[test]
fn the_cube_stacks_solve_without_allocating() {
    // 48 rows (faer's blocked factorization, first use) and 303 rows.
    for scene in [problems::fixture_scene(&Sources::repository(), "cube_stack_4").unwrap(), problems::cube_wall()] {
        let p = &scene.problem;
        let mut cache = WarmStartCache::with_capacity(p.contacts());
        let mut warm = WarmStart::with_capacity(p.contacts());
        let mut result = SolveResult::with_capacity(p.contacts(), 0);
        let mut sigma = vec![0.0; 3 * p.contacts()];
        for mut solver in solvers(p.contacts()) {
            cache.clear();
            for round in 0..3 {
                let n = allocations_during(|| {
                    cache.guess(p.ids(), &mut warm);
                    solver.solve(p, Some(&warm), &mut result).unwrap();
                    cache.store(p.ids(), &result);
                    Metrics::evaluate(p, &result.lambda, 1e-3, ContactModel::Ncp, &mut sigma);
                });
                assert_eq!(n, 0, "{}: {} {:?} round {round}", scene.name, solver.name(), solver.model());
            }
        }
    }
}

/// Every solver of `contact.solver` (both models where it has two) steps the quadruped
/// standing, the polish off, without allocating once the first steps have sized its
/// workspace (the problem assembled with its factor W, as the simulator does). The list of
/// variants is `signorini bench`'s (feature `tools`).
#[cfg(feature = "tools")]
#[test]
fn every_solver_steps_the_quadruped_without_allocating() {
    use signorini::bench::Variant;
    use signorini::config::ContactConfig;
    use signorini::scenes::worlds;
    use signorini::sim::Stepper;
    for variant in Variant::all() {
        let (mut world, posture, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
        let mut hold = worlds::hold(&world, &posture, kp, kd);
        let contact =
            ContactConfig { solver: variant.solver, model: variant.model, polish: false, ..Default::default() };
        let mut stepper = Stepper::new(&world, 1e-3, &contact.settings(), 64);
        let mut tau = vec![0.0; world.robot.as_ref().unwrap().model.nv];
        for step in 0..8 {
            let n = allocations_during(|| {
                worlds::pd(&world, &mut hold, &mut tau);
                stepper.step(&mut world, &tau);
            });
            assert!(step < 2 || n == 0, "{}: {n} allocations at step {step}", variant.label());
        }
        assert_eq!(stepper.report().contacts, 4, "{}", variant.label());
    }
}

/// faer's large products (the blocked Cholesky's, beyond 15 contacts) allocate
/// private-gemm's workspace on a thread's first product above 16³ multiply-adds. A solver
/// sized on one thread (which warmed that thread up) and moved to a loop thread, as the
/// node does, allocated there on its first large factorization (the running node's loop
/// did, factoring two quadrupeds' legs pushed together): it does unless the loop thread
/// ran `dense::warm_up_thread` (the loops' jobs do, before counting).
#[test]
fn a_solver_moved_to_a_cold_thread_allocates_unless_the_thread_warmed_up() {
    use signorini::contact::dense::{Cholesky, warm_up_thread};
    let n = 303;
    let g: Vec<f64> =
        (0..n * n).map(|k| if k / n == k % n { 2.0 } else { 1.0 / (2.0 + (k / n + k % n) as f64) }).collect();
    let first_factor = |warm: bool| {
        let (g, d, mut chol) = (g.clone(), vec![0.5; n], Cholesky::with_capacity(n));
        std::thread::spawn(move || {
            if warm {
                warm_up_thread();
            }
            allocations_during(|| chol.factor(&g, &d, n).unwrap())
        })
        .join()
        .unwrap()
    };
    assert!(first_factor(false) > 0, "a cold thread's first blocked factorization allocated nothing");
    assert_eq!(first_factor(true), 0, "after the warm-up");
}

//! The acceptance scenarios of the seed 000–002 digest (§4) that concern the contact
//! problem and its solvers, with the digest's numbers: AT-02 (ADMM invariants), AT-03
//! (point mass at rest), AT-04 (sliding, NCP), AT-05 (the CCP artefact), AT-08
//! (hyperstatic box), AT-09 (10³ kg on 10⁻³ kg), AT-10 (the 15-cube wall to 1e-9), AT-12
//! (compliance), AT-15 (the NCP criterion). AT-01 is in src/contact/cone.rs.
#![allow(clippy::needless_range_loop)]

use signorini::contact::{
    AdmmSettings, AdmmSolver, ContactModel, ContactProblem, Metrics, PgsSettings, PgsSolver, SolveResult, Solver,
    StoppingRule, WarmStartCache, cone,
};
use signorini::scenes::{G0, problems, uniform};

const DT: f64 = 1e-3;

fn admm(model: ContactModel, tol: f64, max_iterations: usize) -> AdmmSolver {
    let stop = StoppingRule { absolute: tol, max_iterations, ..Default::default() };
    AdmmSolver::with_capacity(128, AdmmSettings { model, stop, ..Default::default() })
}

fn pgs(model: ContactModel, tol: f64, max_iterations: usize) -> PgsSolver {
    let stop = StoppingRule { absolute: tol, max_iterations, ..Default::default() };
    PgsSolver::with_capacity(128, PgsSettings { model, stop, ..Default::default() })
}

fn solve(solver: &mut dyn Solver, problem: &ContactProblem) -> SolveResult {
    let mut r = SolveResult::with_capacity(problem.contacts(), 0);
    solver.solve(problem, None, &mut r).unwrap();
    r
}

/// A single contact of a point mass m on a plane: G = I/m, g = free velocity.
fn point_mass(m: f64, g: [f64; 3], mu: f64, r: [f64; 3]) -> ContactProblem {
    let rows = vec![vec![1.0 / m, 0.0, 0.0], vec![0.0, 1.0 / m, 0.0], vec![0.0, 0.0, 1.0 / m]];
    ContactProblem::from_dense(&rows, &g, &[mu], &r).unwrap()
}

fn metrics(p: &ContactProblem, lambda: &[f64], dt: f64, model: ContactModel) -> Metrics {
    let mut sigma = vec![0.0; 3 * p.contacts()];
    Metrics::evaluate(p, lambda, dt, model, &mut sigma)
}

fn sigma(p: &ContactProblem, lambda: &[f64]) -> Vec<f64> {
    let mut s = vec![0.0; 3 * p.contacts()];
    p.contact_velocity(lambda, &mut s);
    s
}

#[test]
fn at02_admm_iterates_stay_in_the_cones_and_orthogonal_after_every_iteration() {
    for (case, rank) in [(0u64, 12usize), (1, 12), (2, 6), (3, 3), (4, 9)] {
        // G = B·Bᵀ with B 12 × rank: SPD at full rank, singular below; R = 0.
        let mut next = uniform(case * 7 + 1);
        let n = 4;
        let m = 3 * n;
        let b: Vec<f64> = (0..m * rank).map(|_| next()).collect();
        let rows: Vec<Vec<f64>> = (0..m)
            .map(|i| (0..m).map(|j| (0..rank).map(|k| b[i * rank + k] * b[j * rank + k]).sum()).collect())
            .collect();
        let g: Vec<f64> = (0..m).map(|_| next()).collect();
        let mu: Vec<f64> = (0..n).map(|_| 0.2 + 0.8 * next().abs()).collect();
        let p = ContactProblem::from_dense(&rows, &g, &mu, &[]).unwrap();
        // The iterates after k iterations are those of a solve capped at k (deterministic).
        for k in 1..=60 {
            let r = solve(&mut admm(ContactModel::Ncp, 0.0, k), &p);
            assert!(r.stats.factorizations >= 1, "G + (η+ρ)I factors even when G is singular");
            let scale = 1.0 + r.lambda.iter().chain(&r.dual).fold(0.0f64, |a, x| a.max(x.abs()));
            for i in 0..n {
                let (y, z) = (cone::block(&r.lambda, i), cone::block(&r.dual, i));
                assert!(cone::distance_to_cone(mu[i], &y) <= 1e-12 * scale, "case {case} it {k}: y ∉ K");
                assert!(cone::distance_to_dual_cone(mu[i], &z) <= 1e-12 * scale, "case {case} it {k}: z ∉ K*");
                assert!(
                    cone::dot(&y, &z).abs() <= 1e-12 * scale * scale,
                    "case {case} it {k}: y·z = {}",
                    cone::dot(&y, &z)
                );
            }
        }
    }
}

#[test]
fn at03_a_point_mass_at_rest_is_held_by_its_weight() {
    let p = point_mass(1.0, [0.0, 0.0, -G0 * DT], 0.5, [0.0; 3]);
    for solver in [&mut admm(ContactModel::Ncp, 1e-10, 100) as &mut dyn Solver, &mut pgs(ContactModel::Ncp, 1e-10, 100)]
    {
        let r = solve(solver, &p);
        assert!(r.converged, "{}", solver.name());
        let want = [0.0, 0.0, 9.81e-3];
        for a in 0..3 {
            assert!((r.lambda[a] - want[a]).abs() < 1e-10, "{}: λ = {:?}", solver.name(), r.lambda);
        }
        // v⁺ = σ = 0, and every criterion vanishes.
        assert!(sigma(&p, &r.lambda).iter().all(|s| s.abs() < 1e-10));
        assert!(metrics(&p, &r.lambda, DT, ContactModel::Ncp).eps_abs < 1e-6);
    }
}

#[test]
fn at04_a_sliding_point_mass_keeps_its_heading_and_stops_at_the_analytic_time() {
    let (mu, u) = (0.5, 1.0);
    for phi_deg in [0.0f64, 30.0, 137.0] {
        let phi = phi_deg.to_radians();
        let dir = [phi.cos(), phi.sin()];
        // One step.
        let p = point_mass(1.0, [u * dir[0], u * dir[1], -G0 * DT], mu, [0.0; 3]);
        let r = solve(&mut admm(ContactModel::Ncp, 1e-12, 500), &p);
        assert!(r.converged);
        assert!((r.lambda[2] - 9.81e-3).abs() < 1e-10, "λ_N = {}", r.lambda[2]);
        for a in 0..2 {
            assert!((r.lambda[a] + 4.905e-3 * dir[a]).abs() < 1e-10, "λ_T = {:?}", &r.lambda[..2]);
        }
        let c = sigma(&p, &r.lambda);
        assert!(c[2].abs() < 1e-10, "c_N = {}", c[2]);
        assert!((c[0].hypot(c[1]) - 0.995095).abs() < 1e-10);
        let heading = c[1].atan2(c[0]);
        assert!((heading - phi.sin().atan2(phi.cos())).abs() < 1e-9, "slip direction kept: {heading} vs {phi}");
        // The trajectory, warm-started from step to step: ‖v_k‖ = u − kμg₀Δt, then rest at
        // t* = u/(μg₀) = 0.2039 s; the energy follows ½(u − μg₀t)².
        let mut solver = admm(ContactModel::Ncp, 1e-12, 500);
        let mut cache = WarmStartCache::with_capacity(1);
        let mut warm = signorini::contact::WarmStart::with_capacity(1);
        let mut r = SolveResult::with_capacity(1, 0);
        let mut v = [u * dir[0], u * dir[1]];
        let mut stopped_at = None;
        for k in 1..=300 {
            let p = point_mass(1.0, [v[0], v[1], -G0 * DT], mu, [0.0; 3]);
            cache.guess(p.ids(), &mut warm);
            solver.solve(&p, Some(&warm), &mut r).unwrap();
            assert!(r.converged, "step {k}");
            cache.store(p.ids(), &r);
            let c = sigma(&p, &r.lambda);
            v = [c[0], c[1]];
            let speed = v[0].hypot(v[1]);
            let t = k as f64 * DT;
            // Kinetic energy ½m‖v‖² against the analytic ½m(u − μg₀t)² (0 once stopped).
            let analytic = (u - mu * G0 * t).max(0.0);
            assert!((0.5 * speed * speed - 0.5 * analytic * analytic).abs() < 1e-9, "step {k}: {speed} vs {analytic}");
            if speed < 1e-12 && stopped_at.is_none() {
                stopped_at = Some(t);
            }
            if speed > 1e-6 {
                assert!((v[1].atan2(v[0]) - phi.sin().atan2(phi.cos())).abs() < 1e-9, "heading at step {k}");
            }
        }
        let t_star = u / (mu * G0);
        let stop = stopped_at.expect("the mass stops");
        assert!((stop - t_star).abs() <= DT, "stops at {stop} s, analytic {t_star:.4} s");
    }
}

#[test]
fn at05_the_ccp_lifts_a_sliding_mass_off_the_plane_and_the_ncp_criterion_flags_it() {
    let (mu, u) = (0.5, 1.0);
    let p = point_mass(1.0, [u, 0.0, -G0 * DT], mu, [0.0; 3]);
    let r = solve(&mut admm(ContactModel::Ccp, 1e-12, 1000), &p);
    assert!(r.converged);
    // λ = P_K(−m g).
    let expected = cone::project_cone(mu, &[-u, 0.0, G0 * DT]);
    for a in 0..3 {
        assert!((r.lambda[a] - expected[a]).abs() < 1e-9);
    }
    let lambda_n = (mu * u + G0 * DT) / (1.0 + mu * mu);
    assert!((r.lambda[2] - lambda_n).abs() < 1e-9 && (lambda_n - 0.407848).abs() < 1e-6);
    let c = sigma(&p, &r.lambda);
    let ct = c[0].hypot(c[1]);
    assert!((ct - 0.796076).abs() < 1e-6, "‖c_T‖ = {ct}");
    assert!(
        (c[2] - 0.398038).abs() < 1e-6 && (c[2] - mu * ct).abs() < 1e-9,
        "c_N = μ‖c_T‖ = {}: spurious lift-off",
        c[2]
    );
    // Against the NCP criterion: dual feasible, complementarity μλ_N‖c_T‖ ≈ 0.162, all of
    // it in the Signorini part.
    let m = metrics(&p, &r.lambda, 1.0, ContactModel::Ncp);
    assert!(m.eps_d < 1e-9);
    assert!((m.eps_c - mu * lambda_n * ct).abs() < 1e-9 && (m.eps_c - 0.162).abs() < 5e-4, "ε_c = {}", m.eps_c);
    assert!((m.signorini - m.eps_c).abs() < 1e-9 && m.mdp < 1e-9);
    // Against its own criterion it is a solution.
    assert!(metrics(&p, &r.lambda, 1.0, ContactModel::Ccp).eps_abs < 1e-9);
}

#[test]
fn at08_a_rigid_box_on_four_coplanar_contacts_splits_its_weight_evenly() {
    let scene = problems::box_on_ground(1.0, 0.5);
    let p = &scene.problem;
    assert_eq!(p.contacts(), 4);
    let r = solve(&mut admm(ContactModel::Ncp, 1e-10, 2000), p);
    assert!(r.converged, "{:?}", r.stats.residuals);
    let weight = G0 * DT;
    let normals: Vec<f64> = (0..4).map(|i| r.lambda[3 * i + 2]).collect();
    assert!((normals.iter().sum::<f64>() - weight).abs() < 1e-9, "{normals:?}");
    for n in &normals {
        assert!((n - weight / 4.0).abs() < 1e-7, "symmetric split: {normals:?}");
    }
    assert!((0..4).all(|i| r.lambda[3 * i].abs() < 1e-9 && r.lambda[3 * i + 1].abs() < 1e-9), "no friction at rest");
    // PGS also holds the box, but nothing makes its split symmetric.
    let q = solve(&mut pgs(ContactModel::Ncp, 1e-10, 2000), p);
    let sum: f64 = (0..4).map(|i| q.lambda[3 * i + 2]).sum();
    assert!((sum - weight).abs() < 1e-8);
    println!("PGS split: {:?}", (0..4).map(|i| q.lambda[3 * i + 2] / weight).collect::<Vec<_>>());
}

/// Normal impulse through each interface of a two-cube stack: (ground, top).
fn interface_loads(scene: &problems::Problem, lambda: &[f64]) -> (f64, f64) {
    let mut ground = 0.0;
    let mut top = 0.0;
    for (k, c) in scene.contacts.iter().enumerate() {
        match c.body2 {
            signorini::collision::Owner::Static => ground += lambda[3 * k + 2],
            _ => top += lambda[3 * k + 2],
        }
    }
    (ground, top)
}

#[test]
fn at09_a_ton_on_a_gram_admm_converges_and_pgs_does_not() {
    let scene = problems::two_cubes(1e-3, 1e3, 0.5);
    let p = &scene.problem;
    assert_eq!(p.contacts(), 8);
    let r = solve(&mut admm(ContactModel::Ncp, 1e-6, 1000), p);
    assert!(r.converged, "ADMM: {:?} after {}", r.stats.residuals, r.stats.iterations);
    // At 1e-6 (velocity·impulse) the heavy cube's velocity is known to ~1e-7 m/s, its
    // load to ~1e3 × 1e-7; tighter, the loads are the static ones to 1e-9 relative.
    let (ground, top) = interface_loads(&scene, &r.lambda);
    assert!((top / (1e3 * G0 * DT) - 1.0).abs() < 1e-3, "top interface {top}");
    assert!((ground / ((1e3 + 1e-3) * G0 * DT) - 1.0).abs() < 1e-3, "ground {ground}");
    let tight = solve(&mut admm(ContactModel::Ncp, 1e-12, 5000), p);
    assert!(tight.converged, "ADMM to 1e-12: {:?}", tight.stats.residuals);
    let (ground, top) = interface_loads(&scene, &tight.lambda);
    assert!((top / (1e3 * G0 * DT) - 1.0).abs() < 1e-9, "top interface {top}");
    assert!((ground / ((1e3 + 1e-3) * G0 * DT) - 1.0).abs() < 1e-9, "ground {ground}");
    println!("ADMM: {} iterations at 1e-6, {} at 1e-12", r.stats.iterations, tight.stats.iterations);
    // PGS, the same cap: does not reach the tolerance (the negative control).
    let q = solve(&mut pgs(ContactModel::Ncp, 1e-6, 1000), p);
    assert!(!q.converged, "PGS should fail at a mass ratio of 1e6");
    // Sweep the ratio: ADMM converges throughout, PGS degrades.
    println!("ratio   ADMM it  ε_abs      PGS sweeps  ε_abs");
    for e in 0..=6 {
        let ratio = 10f64.powi(e);
        let s = problems::two_cubes(1.0, ratio, 0.5);
        let a = solve(&mut admm(ContactModel::Ncp, 1e-6, 1000), &s.problem);
        let b = solve(&mut pgs(ContactModel::Ncp, 1e-6, 1000), &s.problem);
        let (ma, mb) = (
            metrics(&s.problem, &a.lambda, 1.0, ContactModel::Ncp),
            metrics(&s.problem, &b.lambda, 1.0, ContactModel::Ncp),
        );
        println!(
            "1e{e}     {:>6}  {:.1e}    {:>6}      {:.1e}",
            a.stats.iterations, ma.eps_abs, b.stats.iterations, mb.eps_abs
        );
        assert!(a.converged, "ADMM at ratio 1e{e}");
        if e == 0 {
            assert!(b.converged, "PGS at ratio 1");
        }
    }
}

#[test]
fn at10_the_fifteen_cube_wall_converges_to_1e9_without_tuning() {
    let scene = problems::cube_wall();
    let p = &scene.problem;
    assert!(p.contacts() > 60, "{} contacts", p.contacts());
    let mut solver = admm(ContactModel::Ncp, 1e-9, 5000);
    let r = solve(&mut solver, p);
    println!(
        "{}: {} contacts, {} iterations, {} factorizations, residuals {:?}",
        scene.name,
        p.contacts(),
        r.stats.iterations,
        r.stats.factorizations,
        r.stats.residuals
    );
    assert!(r.converged, "residuals {:?} after {} iterations", r.stats.residuals, r.stats.iterations);
    let m = metrics(p, &r.lambda, 1.0, ContactModel::Ncp);
    assert!(m.eps_p < 1e-9 && m.eps_d < 1e-6, "{m:?}");
    // PGS stagnates far from it in the same number of sweeps.
    let q = solve(&mut pgs(ContactModel::Ncp, 1e-9, 5000), p);
    assert!(!q.converged);
    println!("PGS: {:?} after {} sweeps", q.stats.residuals, q.stats.iterations);
}

#[test]
fn at12_penetration_is_linear_in_the_normal_compliance_and_tangential_compliance_creeps() {
    // A point mass resting under gravity with compliance R_N: stepped to its steady state,
    // φ = −Δt·R_N·λ_N.
    let settle = |r_n: f64| {
        let (mut phi, mut v) = (0.0f64, 0.0f64);
        let mut solver = admm(ContactModel::Ncp, 1e-12, 1000);
        let mut lambda_n = 0.0;
        for _ in 0..3000 {
            let p = point_mass(1.0, [0.0, 0.0, v - G0 * DT + phi / DT], 0.5, [0.0, 0.0, r_n]);
            let r = solve(&mut solver, &p);
            assert!(r.converged);
            lambda_n = r.lambda[2];
            v = v - G0 * DT + lambda_n;
            phi += DT * v;
        }
        (phi, lambda_n)
    };
    let (phi1, l1) = settle(0.5);
    let (phi2, l2) = settle(1.0);
    assert!((l1 - G0 * DT).abs() < 1e-9 && (l2 - G0 * DT).abs() < 1e-9);
    assert!((phi1 + DT * 0.5 * l1).abs() < 1e-9, "φ = {phi1}");
    assert!((phi2 / phi1 - 2.0).abs() < 1e-6, "doubling R_N doubles the penetration: {phi1} {phi2}");
    // A lateral push below the friction limit: exact stiction with R_T = 0, a creep
    // c_T = −R_T·λ_T with R_T > 0.
    let push = 0.3 * 0.5 * G0 * DT;
    let stiff = point_mass(1.0, [push, 0.0, -G0 * DT], 0.5, [0.0; 3]);
    let r = solve(&mut admm(ContactModel::Ncp, 1e-12, 1000), &stiff);
    assert!(sigma(&stiff, &r.lambda)[0].abs() < 1e-11);
    let soft = point_mass(1.0, [push, 0.0, -G0 * DT], 0.5, [0.2, 0.2, 0.0]);
    let r = solve(&mut admm(ContactModel::Ncp, 1e-12, 1000), &soft);
    let c = sigma(&soft, &r.lambda);
    let creep = c[0] - 0.2 * r.lambda[0];
    assert!(creep.abs() > 1e-5, "the mass creeps: v_T = {creep}");
    assert!(c[0].abs() < 1e-11, "σ_T = c_T + R_T λ_T = 0");
}

#[test]
fn at15_the_ncp_criterion_vanishes_on_solutions_and_flags_relaxations() {
    // On AT-03 and AT-04 solutions, in force units: all criteria ≈ 0.
    let rest = point_mass(1.0, [0.0, 0.0, -G0 * DT], 0.5, [0.0; 3]);
    let slide = point_mass(1.0, [0.6, 0.8, -G0 * DT], 0.5, [0.0; 3]);
    for p in [&rest, &slide] {
        let r = solve(&mut admm(ContactModel::Ncp, 1e-13, 1000), p);
        let m = metrics(p, &r.lambda, DT, ContactModel::Ncp);
        assert!(m.eps_abs < 1e-6 && m.signorini < 1e-6 && m.mdp < 1e-6, "{m:?}");
    }
    // A wrong answer is caught: no friction while sliding violates the MDP part.
    let wrong = [0.0, 0.0, G0 * DT];
    let m = metrics(&slide, &wrong, DT, ContactModel::Ncp);
    // μ·(λ_N/Δt)·(‖c_T‖/Δt) = 0.5 · 9.81 N · 1000 m/s².
    assert!((m.mdp - 0.5 * G0 / DT).abs() < 1e-9, "μλ_N‖c_T‖/Δt² with λ_T = 0: {m:?}");
    assert!(m.signorini < 1e-9);
    // Force units: ε_p scales with 1/Δt, ε_c with 1/Δt².
    let outside = [1.0, 0.0, 1.0];
    let m1 = metrics(&rest, &outside, 1.0, ContactModel::Ncp);
    let m2 = metrics(&rest, &outside, 0.5, ContactModel::Ncp);
    assert!((m2.eps_p / m1.eps_p - 2.0).abs() < 1e-12 && (m2.eps_c / m1.eps_c - 4.0).abs() < 1e-12);
}

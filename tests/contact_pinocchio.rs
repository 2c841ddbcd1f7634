//! Cross-check against Pinocchio 4 (scripts/gen_contact_fixtures.py): for the quadruped
//! and solo12 standing, solo12 sliding and a 4-cube stack,
//!
//! 1. the problem signorini assembles from the same scene (robot state, free bodies,
//!    contact points and frames) equals Pinocchio's G and g to 1e-14 relative to their largest
//!    entries (README quotes the largest difference seen, 1.2e-15 of G);
//! 2. signorini's ADMM on Pinocchio's (G, g, μ) agrees with Pinocchio's ADMM to 5e-12 (README:
//!    6.4e-13 seen) where
//!    the solution is unique (G full rank), and otherwise carries the same load through
//!    every interface and satisfies the NCP criterion as tightly.

mod common;

use serde_json::Value;
use signorini::contact::{
    AdmmSettings, AdmmSolver, Assembly, Bodies, Build, ContactModel, ContactProblem, Metrics, ProblemSettings,
    SolveResult, Solver, StoppingRule,
};
use signorini::dynamics;
use signorini::model::{Data, FreeBody, FreeBodyState, joint::quaternion_to_rotation};
use signorini::scenes::{Sources, problems};
use signorini::spatial::{Force, Inertia, Mat3, Motion, SE3, Vec3};

fn floats(v: &Value) -> Vec<f64> {
    serde_json::from_value(v.clone()).unwrap()
}

fn vec3(v: &Value) -> Vec3 {
    let x = floats(v);
    Vec3::new(x[0], x[1], x[2])
}

/// Our problem for the fixture's scene.
fn assemble(f: &Value) -> ContactProblem {
    let dt = f["dt"].as_f64().unwrap();
    let robot = if f["robot"].is_null() {
        None
    } else {
        let r = &f["robot"];
        Some((common::fixture_model(r), floats(&r["q"]), floats(&r["v"]), floats(&r["tau"])))
    };
    let mut free = Vec::new();
    let mut states = Vec::new();
    for b in f["free_bodies"].as_array().unwrap() {
        let inertia =
            Inertia::new(b["mass"].as_f64().unwrap(), Vec3::zeros(), Mat3::from_diagonal(&vec3(&b["inertia_diag"])));
        free.push(FreeBody::new("cube", inertia).unwrap());
        let q = floats(&b["quaternion"]);
        let v = floats(&b["velocity"]);
        states.push(FreeBodyState {
            pose: SE3::new(quaternion_to_rotation(q[0], q[1], q[2], q[3]), vec3(&b["position"])),
            velocity: Motion::new(Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5])),
        });
    }
    let contacts = common::fixture_contacts(&f["contacts"], robot.as_ref().map(|r| &r.0));
    // Velocities: the robot's then the free bodies'.
    let mut data = robot.as_ref().map(|r| Data::new(&r.0));
    let mut v = Vec::new();
    let mut v_free = Vec::new();
    if let (Some((model, q, rv, tau)), Some(data)) = (&robot, data.as_mut()) {
        let mut vf = vec![0.0; model.nv];
        dynamics::free_velocity(model, data, q, rv, tau, &[], &[], dt, &mut vf);
        v.extend_from_slice(rv);
        v_free.extend(vf);
    }
    let gravity = Vec3::new(0.0, 0.0, -9.81);
    for (b, s) in free.iter().zip(&states) {
        v.extend(s.velocity.to_vector().iter());
        v_free.extend(b.free_velocity(s, &gravity, &Force::ZERO, dt).to_vector().iter());
    }
    let bodies = Bodies::new(robot.as_ref().zip(data.as_ref()).map(|(r, d)| (&r.0, d)), &free, &states);
    let mut problem = ContactProblem::with_capacity(contacts.len());
    let mut assembly = Assembly::with_capacity(contacts.len(), bodies.nv(), bodies.robot_nv());
    assembly
        .assemble(&bodies, &contacts, &[], &v, &v_free, dt, &ProblemSettings::default(), &mut problem, Build::Delassus)
        .unwrap();
    problem
}

#[test]
fn the_assembled_problems_equal_pinocchios() {
    for name in problems::FIXTURES {
        let f = problems::fixture(&Sources::repository(), name).unwrap();
        let ours = assemble(&f);
        let theirs = problems::fixture_scene(&Sources::repository(), name).unwrap().problem;
        assert_eq!(ours.contacts(), theirs.contacts(), "{name}");
        assert_eq!(ours.delassus().len(), theirs.delassus().len(), "{name}");
        assert_eq!(ours.g().len(), theirs.g().len(), "{name}");
        let scale = theirs.delassus().iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let dg = ours.delassus().iter().zip(theirs.delassus()).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        let gscale = theirs.g().iter().fold(1e-3f64, |a, x| a.max(x.abs()));
        let dv = ours.g().iter().zip(theirs.g()).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        println!("{name}: |ΔG| {:.1e} of {scale:.2}, |Δg| {:.1e} of {gscale:.2e}", dg, dv);
        assert!(dg <= 1e-14 * scale, "{name}: G differs by {dg}");
        assert!(dv <= 1e-14 * gscale, "{name}: g differs by {dv}");
        assert_eq!(ours.sets(), theirs.sets());
    }
}

#[test]
fn admm_solutions_agree_with_pinocchios() {
    for name in problems::FIXTURES {
        let f = problems::fixture(&Sources::repository(), name).unwrap();
        let scene = problems::fixture_scene(&Sources::repository(), name).unwrap();
        let p = &scene.problem;
        let stop = StoppingRule { absolute: 1e-12, max_iterations: 20_000, ..Default::default() };
        let mut solver = AdmmSolver::with_capacity(p.contacts(), AdmmSettings { stop, ..Default::default() });
        let mut r = SolveResult::with_capacity(p.contacts(), 0);
        solver.solve(p, None, &mut r).unwrap();
        assert!(r.converged, "{name}: {:?}", r.stats.residuals);
        let theirs = floats(&f["pinocchio_admm"]["lambda"]);
        assert_eq!(r.lambda.len(), theirs.len(), "{name}");
        let diff = r.lambda.iter().zip(&theirs).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        let mut sigma = vec![0.0; 3 * p.contacts()];
        let ours_m = Metrics::evaluate(p, &r.lambda, 1.0, ContactModel::Ncp, &mut sigma);
        let their_m = Metrics::evaluate(p, &theirs, 1.0, ContactModel::Ncp, &mut sigma);
        println!(
            "{name}: {} iterations; max |λ − λ_pin| = {diff:.1e}; ε_abs ours {:.1e}, Pinocchio's {:.1e}",
            r.stats.iterations, ours_m.eps_abs, their_m.eps_abs
        );
        if f["solution_unique"].as_bool().unwrap() {
            assert!(diff <= 5e-12, "{name}: λ differs by {diff}");
        } else {
            // The load through each body pair is unique; the split among a pair's
            // coplanar contacts is not.
            let pairs: Vec<(String, String)> = f["contacts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["body1"].to_string(), c["body2"].to_string()))
                .collect();
            let mut keys = pairs.clone();
            keys.dedup();
            for key in keys {
                let load = |l: &[f64]| (0..pairs.len()).filter(|&k| pairs[k] == key).map(|k| l[3 * k + 2]).sum::<f64>();
                let (a, b) = (load(&r.lambda), load(&theirs));
                assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{name} {key:?}: {a} vs {b}");
            }
        }
        assert!(ours_m.eps_abs <= 1e-9, "{name}: {ours_m:?}");
    }
}

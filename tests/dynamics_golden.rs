//! The dynamics equal Pinocchio's to 5e-11 (relative, with an absolute floor at 1) on the
//! golden values of scripts/gen_dynamics_fixtures.py: example-robot-data robots (ur5,
//! panda, solo12, talos, tiago, a continuous double pendulum) and this repository's.

mod common;

use std::path::PathBuf;

use nalgebra::{Matrix3xX, Matrix6xX};
use serde::Deserialize;
use signorini::dynamics::{self, ReferenceFrame};
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};
use signorini::spatial::{Force, Vec6};

use common::{erd_share, rel_error, repo};

const TOL: f64 = 5e-11;

#[derive(Deserialize)]
struct Fixture {
    robot: String,
    source: String,
    urdf: String,
    floating_base: bool,
    nq: usize,
    nv: usize,
    joint_names: Vec<String>,
    frame_names: Vec<String>,
    frame_parents: Vec<usize>,
    states: Vec<State>,
}

#[derive(Deserialize)]
struct Placement {
    rotation: Vec<Vec<f64>>,
    translation: Vec<f64>,
}

#[derive(Deserialize)]
struct JacobianCase {
    #[serde(default)]
    joint: usize,
    #[serde(default)]
    frame: usize,
    reference: String,
    #[serde(rename = "J")]
    j: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct PointJacobian {
    joint: usize,
    point: Vec<f64>,
    #[serde(rename = "J")]
    j: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct State {
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    tau: Vec<f64>,
    fext: Vec<Vec<f64>>,
    x: Vec<f64>,
    dt: f64,
    #[serde(rename = "oMi")]
    o_m_i: Vec<Placement>,
    #[serde(rename = "oMf")]
    o_m_f: Vec<Placement>,
    v_local: Vec<Vec<f64>>,
    rnea: Vec<f64>,
    rnea_fext: Vec<f64>,
    gravity: Vec<f64>,
    nle: Vec<f64>,
    aba: Vec<f64>,
    aba_fext: Vec<f64>,
    #[serde(rename = "M")]
    m: Vec<Vec<f64>>,
    minv_x: Vec<f64>,
    ltdl_d: Vec<f64>,
    joint_jacobians: Vec<JacobianCase>,
    frame_jacobians: Vec<JacobianCase>,
    point_jacobian: Option<PointJacobian>,
    integrate: Vec<f64>,
    q2: Vec<f64>,
    difference: Vec<f64>,
}

fn load(name: &str) -> (Fixture, Model) {
    let text = std::fs::read_to_string(repo(&format!("tests/fixtures/dynamics/{name}.json")))
        .unwrap_or_else(|e| panic!("fixture {name}: {e} (regenerate with scripts/gen_dynamics_fixtures.py)"));
    let f: Fixture = serde_json::from_str(&text).unwrap();
    let (path, packages): (PathBuf, Vec<PathBuf>) = match f.source.as_str() {
        "erd" => (erd_share().join(&f.urdf), vec![erd_share()]),
        _ => (repo(&f.urdf), vec![]),
    };
    let options = ModelOptions {
        floating_base: f.floating_base,
        mimic: MimicPolicy::Independent,
        package_dirs: packages,
        ..Default::default()
    };
    let model = Model::from_urdf_file(&path, &options).unwrap_or_else(|e| panic!("{e}"));
    (f, model)
}

fn flat(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

fn row_major6(m: &Matrix6xX<f64>) -> Vec<f64> {
    (0..6).flat_map(|r| (0..m.ncols()).map(move |c| m[(r, c)])).collect()
}

fn check(robot: &str, what: &str, k: usize, got: &[f64], want: &[f64]) -> f64 {
    let e = rel_error(got, want);
    assert!(e <= TOL, "{robot} state {k}: {what} differs from Pinocchio by {e:.3e} (relative)");
    e
}

fn reference(name: &str) -> ReferenceFrame {
    match name {
        "WORLD" => ReferenceFrame::World,
        "LOCAL" => ReferenceFrame::Local,
        "LOCAL_WORLD_ALIGNED" => ReferenceFrame::LocalWorldAligned,
        other => panic!("unknown reference {other}"),
    }
}

/// The simulator's step starts, when its q is the previous step's end, from the
/// placements its end-of-step check computed (`crba_placed`, `free_velocity_placed`): bit
/// for bit what placing the joints on CRBA's way down gives (`crba`), and the same v_f, M,
/// factors and Jacobian data however stale the rest of `data` is (another configuration's).
fn placed_is_the_same(model: &Model, q: &[f64], v: &[f64], tau: &[f64], dt: f64) {
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let (mut fresh, mut placed) = (Data::new(model), Data::new(model));
    let mut other: Vec<f64> = q.iter().map(|x| x + 0.3).collect();
    dynamics::normalize(model, &mut other);
    let mut scratch = vec![0.0; model.nv];
    dynamics::free_velocity(model, &mut placed, &other, v, tau, &[], &[], dt, &mut scratch);

    dynamics::crba(model, &mut fresh, q);
    dynamics::forward_kinematics(model, &mut placed, q);
    dynamics::crba_placed(model, &mut placed);
    assert_eq!(bits(placed.mass_matrix.as_slice()), bits(fresh.mass_matrix.as_slice()), "M");
    assert_eq!(bits(placed.j.as_slice()), bits(fresh.j.as_slice()), "Jacobian data");

    let (mut v_fresh, mut v_placed) = (vec![0.0; model.nv], vec![0.0; model.nv]);
    let mut fresh = Data::new(model);
    dynamics::free_velocity(model, &mut fresh, q, v, tau, &[], &[], dt, &mut v_fresh);
    dynamics::free_velocity(model, &mut placed, &other, v, tau, &[], &[], dt, &mut scratch);
    dynamics::forward_kinematics(model, &mut placed, q);
    dynamics::free_velocity_placed(model, &mut placed, v, tau, &[], &[], dt, &mut v_placed);
    assert_eq!(bits(&v_placed), bits(&v_fresh), "v_f");
    assert_eq!(bits(placed.ltdl_d.as_slice()), bits(fresh.ltdl_d.as_slice()), "D");
}

fn run(name: &str) {
    let (f, model) = load(name);
    let r = f.robot.as_str();
    assert_eq!((model.nq, model.nv), (f.nq, f.nv), "{r}: dimensions");
    assert_eq!(model.joint_names, f.joint_names, "{r}: joint order");
    let frames: Vec<_> = model.frames.iter().map(|fr| fr.name.clone()).collect();
    assert_eq!(frames, f.frame_names, "{r}: frames");
    let parents: Vec<_> = model.frames.iter().map(|fr| fr.parent_joint).collect();
    assert_eq!(parents, f.frame_parents, "{r}: frame parent joints");

    let mut data = Data::new(&model);
    let mut worst = 0.0f64;
    for (k, s) in f.states.iter().enumerate() {
        let mut c = |what: &str, got: &[f64], want: &[f64]| worst = worst.max(check(r, what, k, got, want));

        dynamics::forward_kinematics_velocity(&model, &mut data, &s.q, &s.v);
        dynamics::update_frame_placements(&model, &mut data);
        for (i, p) in s.o_m_i.iter().enumerate().skip(1) {
            let m = &data.o_m_i[i];
            let got: Vec<f64> = (0..3)
                .flat_map(|a| (0..3).map(move |b| m.rotation[(a, b)]))
                .chain(m.translation.iter().copied())
                .collect();
            c(&format!("oMi[{i}]"), &got, &[flat(&p.rotation), p.translation.clone()].concat());
            c(&format!("v[{i}]"), data.v[i].to_vector().as_slice(), &s.v_local[i]);
        }
        for (i, p) in s.o_m_f.iter().enumerate() {
            let m = &data.o_m_f[i];
            let got: Vec<f64> = (0..3)
                .flat_map(|a| (0..3).map(move |b| m.rotation[(a, b)]))
                .chain(m.translation.iter().copied())
                .collect();
            c(
                &format!("oMf[{i}] ({})", model.frames[i].name),
                &got,
                &[flat(&p.rotation), p.translation.clone()].concat(),
            );
        }

        c("rnea", dynamics::rnea(&model, &mut data, &s.q, &s.v, &s.a).as_slice(), &s.rnea);
        let fext: Vec<Force> = s.fext.iter().map(|f| Force::from_vector(&Vec6::from_column_slice(f))).collect();
        let tau = dynamics::rnea_with_external_forces(&model, &mut data, &s.q, &s.v, &s.a, &fext);
        c("rnea with fext", tau.as_slice(), &s.rnea_fext);
        c("gravity", dynamics::gravity_torque(&model, &mut data, &s.q).as_slice(), &s.gravity);
        c("nonlinear effects", dynamics::nonlinear_effects(&model, &mut data, &s.q, &s.v).as_slice(), &s.nle);
        c("aba", dynamics::aba(&model, &mut data, &s.q, &s.v, &s.tau).as_slice(), &s.aba);
        let ddq = dynamics::aba_with_external_forces(&model, &mut data, &s.q, &s.v, &s.tau, &fext);
        c("aba with fext", ddq.as_slice(), &s.aba_fext);

        let m = dynamics::crba_symmetric(&model, &mut data, &s.q).clone();
        let got: Vec<f64> = m.transpose().iter().copied().collect();
        c("M (crba)", &got, &flat(&s.m));
        // And to rounding (4.7e-16 at worst, talos), the definition M = Σ_i J_iᵀ·I_i·J_i (each body's world Jacobian
        // and world inertia about the origin), independent of the recursion's order of
        // operations: crba leaves the placements and Jacobian data at q.
        let mut definition = nalgebra::DMatrix::<f64>::zeros(model.nv, model.nv);
        let mut ji = Matrix6xX::zeros(model.nv);
        for i in 1..model.njoints() {
            dynamics::joint_jacobian(&model, &data, i, ReferenceFrame::World, &mut ji);
            definition += ji.transpose() * model.inertias[i].transformed(&data.o_m_i[i]).matrix() * &ji;
        }
        let e = rel_error(m.as_slice(), definition.as_slice());
        assert!(e <= 1e-13, "{r} state {k}: M differs from Σ JᵀIJ by {e:.3e} (relative)");
        let local = dynamics::crba_local(&model, &mut data, &s.q);
        let lower = |m: &nalgebra::DMatrix<f64>| -> Vec<f64> {
            (0..model.nv).flat_map(|c| (c..model.nv).map(move |r| (r, c))).map(|(r, c)| m[(r, c)]).collect()
        };
        let e = rel_error(&lower(local), &lower(&definition));
        assert!(e <= 1e-13, "{r} state {k}: M in the joint frames differs from Σ JᵀIJ by {e:.3e} (relative)");
        placed_is_the_same(&model, &s.q, &s.v, &s.tau, s.dt);
        dynamics::ltdl_decompose(&model, &mut data);
        c("D of LTDL", data.ltdl_d.as_slice(), &s.ltdl_d);
        let mut x = s.x.clone();
        dynamics::ltdl_solve(&model, &data, &mut x);
        c("M⁻¹x (ltdl)", &x, &s.minv_x);

        dynamics::compute_joint_jacobians(&model, &mut data, &s.q);
        let mut j = Matrix6xX::zeros(model.nv);
        for case in &s.joint_jacobians {
            dynamics::joint_jacobian(&model, &data, case.joint, reference(&case.reference), &mut j);
            c(&format!("joint {} jacobian {}", case.joint, case.reference), &row_major6(&j), &flat(&case.j));
        }
        for case in &s.frame_jacobians {
            dynamics::frame_jacobian(&model, &data, case.frame, reference(&case.reference), &mut j);
            c(&format!("frame {} jacobian {}", case.frame, case.reference), &row_major6(&j), &flat(&case.j));
        }
        if let Some(p) = &s.point_jacobian {
            let mut jp = Matrix3xX::zeros(model.nv);
            let point = signorini::spatial::Vec3::from_column_slice(&p.point);
            dynamics::point_jacobian(&model, &data, p.joint, &point, &mut jp);
            let got: Vec<f64> = jp.transpose().iter().copied().collect();
            c("point jacobian", &got, &flat(&p.j));
            // ṗ without forming J, against Pinocchio's J·v.
            let want: Vec<f64> = p.j.iter().map(|row| row.iter().zip(&s.v).map(|(a, b)| a * b).sum()).collect();
            let mut twists = vec![signorini::spatial::Motion::default(); model.njoints()];
            dynamics::world_velocities(&model, &data, &s.v, &mut twists);
            c("point velocity", twists[p.joint].velocity_at(&point).as_slice(), &want);
        }

        let dv: Vec<f64> = s.v.iter().map(|x| x * s.dt).collect();
        let mut q_next = vec![0.0; model.nq];
        dynamics::integrate(&model, &s.q, &dv, &mut q_next);
        c("integrate", &q_next, &s.integrate);
        let mut d = vec![0.0; model.nv];
        dynamics::difference(&model, &s.q, &s.q2, &mut d);
        c("difference", &d, &s.difference);
    }
    println!("{r}: {} states, worst relative error {worst:.2e}", f.states.len());
}

#[test]
fn ur5() {
    run("ur5");
}

#[test]
fn panda_with_prismatic_fingers() {
    run("panda");
}

#[test]
fn solo12_floating_base() {
    run("solo12");
}

#[test]
fn talos_floating_base() {
    run("talos");
}

#[test]
fn tiago_with_continuous_and_prismatic_joints() {
    run("tiago_no_hand");
}

#[test]
fn double_pendulum_with_continuous_joints() {
    run("double_pendulum_continuous");
}

#[test]
fn bundled_quadruped() {
    run("quadruped");
}

#[test]
fn bundled_arm() {
    run("arm7");
}

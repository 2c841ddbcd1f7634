//! Zero heap allocations per call of every dynamics algorithm once the Data exists
//! (counting allocator), on a fixed-base and two floating-base robots.

mod common;
mod counting;

use nalgebra::{DMatrix, Matrix3xX, Matrix6xX};
use signorini::dynamics::{self, ReferenceFrame};
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};
use signorini::spatial::{Force, Vec3};

use common::{erd_share, repo};
use counting::allocations_during;

fn state(model: &Model, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    // A small LCG: deterministic pseudo-random numbers in [-1, 1).
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let q0 = model.neutral_configuration();
    let dq: Vec<f64> = (0..model.nv).map(|_| next()).collect();
    let mut q = vec![0.0; model.nq];
    dynamics::integrate(model, q0.as_slice(), &dq, &mut q);
    let v = (0..model.nv).map(|_| next()).collect();
    let a = (0..model.nv).map(|_| next()).collect();
    (q, v, a)
}

fn check(model: &Model) {
    let mut data = Data::new(model);
    let (q, v, a) = state(model, 7);
    let fext = vec![Force::new(Vec3::new(1.0, -2.0, 3.0), Vec3::new(0.1, 0.2, -0.3)); model.njoints()];
    let mut j6 = Matrix6xX::zeros(model.nv);
    let mut j6f = Matrix6xX::zeros(model.nv);
    let mut j3 = Matrix3xX::zeros(model.nv);
    let mut x = vec![0.5; model.nv];
    let mut cols = DMatrix::from_element(model.nv, 12, 0.25);
    let mut q_out = vec![0.0; model.nq];
    let mut d_out = vec![0.0; model.nv];
    let last = model.njoints() - 1;
    let frame = model.nframes() - 1;
    let p = Vec3::new(0.1, 0.2, 0.3);

    type Call<'a> = Box<dyn FnMut(&mut Data) + 'a>;
    let calls: Vec<(&str, Call)> = vec![
        ("forward_kinematics", Box::new(|d| dynamics::forward_kinematics(model, d, &q))),
        ("forward_kinematics_velocity", Box::new(|d| dynamics::forward_kinematics_velocity(model, d, &q, &v))),
        (
            "forward_kinematics_acceleration",
            Box::new(|d| dynamics::forward_kinematics_acceleration(model, d, &q, &v, &a)),
        ),
        ("update_frame_placements", Box::new(|d| dynamics::update_frame_placements(model, d))),
        (
            "rnea",
            Box::new(|d| {
                dynamics::rnea(model, d, &q, &v, &a);
            }),
        ),
        (
            "rnea_with_external_forces",
            Box::new(|d| {
                dynamics::rnea_with_external_forces(model, d, &q, &v, &a, &fext);
            }),
        ),
        (
            "gravity_torque",
            Box::new(|d| {
                dynamics::gravity_torque(model, d, &q);
            }),
        ),
        (
            "nonlinear_effects",
            Box::new(|d| {
                dynamics::nonlinear_effects(model, d, &q, &v);
            }),
        ),
        (
            "crba",
            Box::new(|d| {
                dynamics::crba(model, d, &q);
            }),
        ),
        (
            "crba_local",
            Box::new(|d| {
                dynamics::crba_local(model, d, &q);
            }),
        ),
        (
            "aba",
            Box::new(|d| {
                dynamics::aba(model, d, &q, &v, &a);
            }),
        ),
        (
            "aba_with_external_forces",
            Box::new(|d| {
                dynamics::aba_with_external_forces(model, d, &q, &v, &a, &fext);
            }),
        ),
        (
            "compute_joint_jacobians",
            Box::new(|d| {
                dynamics::compute_joint_jacobians(model, d, &q);
            }),
        ),
        ("joint_jacobian", Box::new(|d| dynamics::joint_jacobian(model, d, last, ReferenceFrame::Local, &mut j6))),
        (
            "frame_jacobian",
            Box::new(|d| dynamics::frame_jacobian(model, d, frame, ReferenceFrame::LocalWorldAligned, &mut j6f)),
        ),
        ("point_jacobian", Box::new(|d| dynamics::point_jacobian(model, d, last, &p, &mut j3))),
        (
            "ltdl_decompose",
            Box::new(|d| {
                dynamics::crba(model, d, &q);
                dynamics::ltdl_decompose(model, d)
            }),
        ),
        ("ltdl_solve", Box::new(|d| dynamics::ltdl_solve(model, d, &mut x))),
        ("ltdl_solve_columns", Box::new(|d| dynamics::ltdl_solve_columns(model, d, &mut cols))),
        ("integrate", Box::new(|_| dynamics::integrate(model, &q, &v, &mut q_out))),
        ("difference", Box::new(|_| dynamics::difference(model, &q, &q, &mut d_out))),
    ];
    for (name, mut call) in calls {
        call(&mut data); // a first call may touch anything lazily initialized
        let n = allocations_during(|| call(&mut data));
        assert_eq!(n, 0, "{}: {name} allocated {n} times", model.name);
    }
}

#[test]
fn no_algorithm_allocates_after_data_creation() {
    let floating = ModelOptions { floating_base: true, ..Default::default() };
    check(&Model::from_urdf_file(&repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap());
    check(&Model::from_urdf_file(&repo("urdf/quadruped.urdf"), &floating).unwrap());
    let talos = erd_share().join("example-robot-data/robots/talos_data/robots/talos_reduced.urdf");
    let options = ModelOptions {
        floating_base: true,
        mimic: MimicPolicy::Independent,
        package_dirs: vec![erd_share()],
        ..Default::default()
    };
    check(&Model::from_urdf_file(&talos, &options).unwrap());
}

#[test]
fn the_counter_counts() {
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
}

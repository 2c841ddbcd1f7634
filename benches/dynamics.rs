//! Criterion benches of the rigid-body algorithms on example-robot-data robots (ur5,
//! panda, solo12, talos). For the ratio against Pinocchio measured in the same run, see
//! scripts/bench_dynamics.py; this gives criterion's statistics of signorini alone.
//!
//!   cargo bench --features bench --bench dynamics        (make bench)

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};
use signorini::scenes::find_example_robot_data;

const ROBOTS: [(&str, &str, bool); 4] = [
    ("ur5", "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf", false),
    ("panda", "example-robot-data/robots/panda_description/urdf/panda.urdf", false),
    ("solo12", "example-robot-data/robots/solo_description/robots/solo12.urdf", true),
    ("talos", "example-robot-data/robots/talos_data/robots/talos_reduced.urdf", true),
];

fn robot(rel: &str, floating: bool) -> (Model, Vec<f64>, Vec<f64>, Vec<f64>) {
    let share = find_example_robot_data(None, env!("CARGO_MANIFEST_DIR").as_ref())
        .expect("example-robot-data (`make env`, or EXAMPLE_ROBOT_DATA_SHARE)");
    let options = ModelOptions {
        floating_base: floating,
        mimic: MimicPolicy::Independent,
        package_dirs: vec![share.clone()],
        skip_meshes: true,
        allow_invalid_inertia: false,
        ..Default::default()
    };
    let model = Model::from_urdf_file(&share.join(rel), &options).expect("robot loads");
    let dq: Vec<f64> = (0..model.nv).map(|k| 0.4 * (1.3 * k as f64 + 0.2).sin()).collect();
    let mut q = vec![0.0; model.nq];
    dynamics::integrate(&model, model.neutral_configuration().as_slice(), &dq, &mut q);
    let v: Vec<f64> = (0..model.nv).map(|k| (0.7 * k as f64).cos()).collect();
    let a: Vec<f64> = (0..model.nv).map(|k| (0.3 * k as f64).sin()).collect();
    (model, q, v, a)
}

fn algorithms(c: &mut Criterion) {
    for (name, rel, floating) in ROBOTS {
        let (model, q, v, a) = robot(rel, floating);
        let mut data = Data::new(&model);
        let mut g = c.benchmark_group(name);
        g.bench_function(BenchmarkId::new("fk", model.nv), |b| {
            b.iter(|| dynamics::forward_kinematics(&model, &mut data, black_box(&q)))
        });
        g.bench_function(BenchmarkId::new("rnea", model.nv), |b| {
            b.iter(|| black_box(dynamics::rnea(&model, &mut data, black_box(&q), &v, &a)[0]))
        });
        g.bench_function(BenchmarkId::new("crba", model.nv), |b| {
            b.iter(|| black_box(dynamics::crba(&model, &mut data, black_box(&q))[(0, 0)]))
        });
        g.bench_function(BenchmarkId::new("aba", model.nv), |b| {
            b.iter(|| black_box(dynamics::aba(&model, &mut data, black_box(&q), &v, &a)[0]))
        });
        g.bench_function(BenchmarkId::new("jacobians", model.nv), |b| {
            b.iter(|| black_box(dynamics::compute_joint_jacobians(&model, &mut data, black_box(&q))[(0, 0)]))
        });
        dynamics::crba(&model, &mut data, &q);
        g.bench_function(BenchmarkId::new("ltdl", model.nv), |b| {
            b.iter(|| dynamics::ltdl_decompose(&model, black_box(&mut data)))
        });
        let mut x = a.clone();
        g.bench_function(BenchmarkId::new("ltdl_solve", model.nv), |b| {
            b.iter(|| dynamics::ltdl_solve(&model, &data, black_box(&mut x)))
        });
        g.finish();
    }
}

criterion_group!(benches, algorithms);
criterion_main!(benches);

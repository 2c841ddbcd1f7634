//! Runs one dynamics algorithm in a loop, for profilers (perf, callgrind).
//!
//!   cargo run --release --example profile_one -- URDF FLOATING(0|1) ALGORITHM ITERATIONS PACKAGE_DIR

use std::hint::black_box;
use std::path::PathBuf;

use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        return Err("usage: profile_one URDF FLOATING ALGORITHM ITERATIONS PACKAGE_DIR".into());
    }
    let options = ModelOptions {
        floating_base: args[2] == "1",
        mimic: MimicPolicy::Independent,
        package_dirs: vec![PathBuf::from(&args[5])],
        skip_meshes: true,
        allow_invalid_inertia: true,
    };
    let model = Model::from_urdf_file(&PathBuf::from(&args[1]), &options)?;
    let mut data = Data::new(&model);
    let iterations: usize = args[4].parse()?;
    let q0 = model.neutral_configuration();
    let dq: Vec<f64> = (0..model.nv).map(|k| 0.1 * (k as f64 + 1.0).sin()).collect();
    let mut q = vec![0.0; model.nq];
    dynamics::integrate(&model, q0.as_slice(), &dq, &mut q);
    let v: Vec<f64> = (0..model.nv).map(|k| (k as f64).cos()).collect();
    dynamics::crba(&model, &mut data, &q);
    for _ in 0..iterations {
        match args[3].as_str() {
            "fk" => dynamics::forward_kinematics(&model, &mut data, black_box(&q)),
            "rnea" => drop(black_box(dynamics::rnea(&model, &mut data, &q, &v, &v).len())),
            "crba" => drop(black_box(dynamics::crba(&model, &mut data, black_box(&q)).len())),
            "aba" => drop(black_box(dynamics::aba(&model, &mut data, &q, &v, &v).len())),
            "jacobians" => drop(black_box(dynamics::compute_joint_jacobians(&model, &mut data, black_box(&q)).len())),
            "ltdl" => dynamics::ltdl_decompose(&model, black_box(&mut data)),
            other => return Err(format!("unknown algorithm {other}").into()),
        }
    }
    Ok(())
}

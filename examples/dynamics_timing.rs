//! Times signorini's dynamics algorithms on the states written by
//! scripts/bench_dynamics.py, with the same method as its C++ Pinocchio harness: batches
//! of calls cycling through the states, the median per-call time over rounds. Output: one
//! line "algorithm microseconds" per algorithm.
//!
//!   cargo run --release --example dynamics_timing -- URDF FLOATING(0|1) STATES_FILE ROUNDS PACKAGE_DIR [ALGORITHM]
//!
//! With ROUNDS = 0 and a trailing CALLS, it only calls ALGORITHM CALLS times (for
//! callgrind; scripts/count_instructions.py).

use std::hint::black_box;
use std::path::PathBuf;

mod common;

use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};

/// Median per-call time, cycling through `n_states` inputs.
fn median_us(mut f: impl FnMut(usize), n_states: usize, rounds: usize) -> f64 {
    common::median_us(|i| f(i % n_states), rounds)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if !(6..=8).contains(&args.len()) {
        return Err("usage: dynamics_timing URDF FLOATING STATES ROUNDS PACKAGE_DIR [ALGORITHM [CALLS]]".into());
    }
    let only = args.get(6).cloned();
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let options = ModelOptions {
        floating_base: args[2] == "1",
        mimic: MimicPolicy::Independent,
        package_dirs: vec![PathBuf::from(&args[5])],
        skip_meshes: true,
        allow_invalid_inertia: true,
        ..Default::default()
    };
    let model = Model::from_urdf_file(&PathBuf::from(&args[1]), &options)?;
    let mut data = Data::new(&model);
    let rounds: usize = args[4].parse()?;

    let text = std::fs::read_to_string(&args[3])?;
    let mut numbers = text.split_whitespace().map(str::parse::<f64>);
    let mut next = || numbers.next().ok_or("truncated states file")?.map_err(|e| e.to_string());
    let (nq, nv, n) = (next()? as usize, next()? as usize, next()? as usize);
    if nq != model.nq || nv != model.nv {
        return Err(format!("states are for nq {nq} nv {nv}, model has {} {}", model.nq, model.nv).into());
    }
    let mut read = |len: usize| (0..len).map(|_| next()).collect::<Result<Vec<f64>, String>>();
    let mut states = Vec::with_capacity(n);
    for _ in 0..n {
        states.push((read(nq)?, read(nv)?, read(nv)?, read(nv)?));
    }

    if rounds == 0 {
        let calls: usize = args.get(7).ok_or("ROUNDS 0 needs ALGORITHM and CALLS")?.parse()?;
        dynamics::crba(&model, &mut data, &states[0].0);
        for c in 0..calls {
            let (q, v, a, tau) = &states[c % n];
            match only.as_deref().unwrap_or_default() {
                "fk" => dynamics::forward_kinematics(&model, &mut data, black_box(q)),
                "rnea" => {
                    black_box(dynamics::rnea(&model, &mut data, q, v, a).len());
                }
                "crba" => {
                    black_box(dynamics::crba(&model, &mut data, q).len());
                }
                "crba_local" => {
                    black_box(dynamics::crba_local(&model, &mut data, q).len());
                }
                "aba" => {
                    black_box(dynamics::aba(&model, &mut data, q, v, tau).len());
                }
                "jacobians" => {
                    black_box(dynamics::compute_joint_jacobians(&model, &mut data, q).len());
                }
                "ltdl" => dynamics::ltdl_decompose(&model, black_box(&mut data)),
                other => return Err(format!("unknown algorithm `{other}`").into()),
            }
        }
        return Ok(());
    }
    if wanted("fk") {
        let t = median_us(|k| dynamics::forward_kinematics(&model, &mut data, black_box(&states[k].0)), n, rounds);
        println!("fk {t:.5}");
    }
    if wanted("rnea") {
        let t = median_us(
            |k| {
                let (q, v, a, _) = &states[k];
                black_box(dynamics::rnea(&model, &mut data, q, v, a));
            },
            n,
            rounds,
        );
        println!("rnea {t:.5}");
    }
    // M(q) both ways, as the Pinocchio harness times its CRBA in both conventions: in the
    // world frame (`crba`, which also leaves the placements and the Jacobian data) and in
    // the joint frames (`crba_local`, M alone); "crba" is the faster.
    if wanted("crba") {
        let world = median_us(
            |k| {
                black_box(dynamics::crba(&model, &mut data, &states[k].0));
            },
            n,
            rounds,
        );
        let local = median_us(
            |k| {
                black_box(dynamics::crba_local(&model, &mut data, &states[k].0));
            },
            n,
            rounds,
        );
        println!("crba {:.5}\ncrba_world {world:.5}\ncrba_local {local:.5}", world.min(local));
    }
    if wanted("aba") {
        let t = median_us(
            |k| {
                let (q, v, _, tau) = &states[k];
                black_box(dynamics::aba(&model, &mut data, q, v, tau));
            },
            n,
            rounds,
        );
        println!("aba {t:.5}");
    }
    if wanted("jacobians") {
        let t = median_us(
            |k| {
                black_box(dynamics::compute_joint_jacobians(&model, &mut data, &states[k].0));
            },
            n,
            rounds,
        );
        println!("jacobians {t:.5}");
    }
    if wanted("ltdl") {
        dynamics::crba(&model, &mut data, &states[0].0);
        let t = median_us(|_| dynamics::ltdl_decompose(&model, black_box(&mut data)), n, rounds);
        println!("ltdl {t:.5}");
    }
    Ok(())
}

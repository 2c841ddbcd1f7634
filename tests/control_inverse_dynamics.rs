//! AT-14 of the seed 000–002 digest: the forward/inverse round trip with compliant
//! contacts. The simulator steps the bundled quadruped (standing on compliant feet, under
//! its PD) with τ and gives v⁺ and λ; inverse dynamics from the same (q, v) and contacts
//! with v_ref = v⁺ must return that τ (zero on the floating base's rows) and that λ.

mod common;
mod counting;
#[path = "../benches/scenes/sim.rs"]
mod sim_scenes;

use signorini::config::ContactConfig;
use signorini::control::{InverseDynamics, InverseDynamicsSettings};
use signorini::model::Data;
use signorini::sim::Stepper;

const DT: f64 = 1e-3;

#[test]
fn at14_inverse_dynamics_returns_the_torques_and_impulses_of_a_compliant_forward_step() {
    let (mut world, reference, (kp, kd)) = sim_scenes::quadruped(0.0);
    let config: ContactConfig =
        serde_yaml_ng::from_str("tolerance: 1e-13\ncompliance_normal: 1e-5\ncompliance_tangential: 2e-5").unwrap();
    let mut stepper = Stepper::new(&world, DT, &config, 64);
    let mut tau = vec![0.0; world.nv()];
    let model = world.robot.as_ref().unwrap().model.clone();
    let mut data = Data::new(&model);
    let mut id = InverseDynamics::new(&model, 64, config.problem_settings(), InverseDynamicsSettings::default());
    let mut checked = 0;
    // While it settles (moving, then at rest), every 50th step.
    for k in 0..1500 {
        sim_scenes::pd(&world, &reference, kp, kd, &mut tau);
        let (q, v) = {
            let r = world.robot.as_ref().unwrap();
            (r.q.clone(), r.v.clone())
        };
        let report = *stepper.step(&mut world, &tau);
        assert!(report.converged, "step {k}: {report:?}");
        if k % 50 != 0 {
            continue;
        }
        assert!(stepper.joint_blocks().is_empty(), "no joint limit or friction in this round trip");
        let v_next = world.robot.as_ref().unwrap().v.clone();
        let contacts = stepper.contacts().contacts();
        let n = contacts.len();
        assert_eq!(n, 4, "step {k}");
        let tau_id = id.compute(&model, &mut data, &q, &v, &v_next, contacts, DT).unwrap().to_vec();
        assert!(id.result().converged, "step {k}: {:?}", id.result());
        let forward = &stepper.impulses()[..3 * n];
        let inverse = id.impulses();
        for (a, (x, y)) in forward.iter().zip(inverse).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, λ[{a}]: forward {x}, inverse {y}");
        }
        for (j, (x, y)) in tau.iter().zip(&tau_id).enumerate() {
            assert!(
                (x - y).abs() < 1e-6,
                "step {k}, τ[{j}]: applied {x}, inverse dynamics {y}, v {} v+ {}",
                v[j],
                v_next[j]
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 30);
}

#[test]
fn a_control_tick_of_inverse_dynamics_allocates_nothing() {
    let (mut world, reference, (kp, kd)) = sim_scenes::quadruped(0.0);
    let config: ContactConfig = serde_yaml_ng::from_str("compliance_normal: 1e-5").unwrap();
    let mut stepper = Stepper::new(&world, DT, &config, 64);
    let mut tau = vec![0.0; world.nv()];
    let model = world.robot.as_ref().unwrap().model.clone();
    let mut data = Data::new(&model);
    let mut id = InverseDynamics::new(&model, 64, config.problem_settings(), InverseDynamicsSettings::default());
    let (mut q, mut v) = (vec![0.0; model.nq], vec![0.0; model.nv]);
    for k in 0..300 {
        sim_scenes::pd(&world, &reference, kp, kd, &mut tau);
        let r = world.robot.as_ref().unwrap();
        q.copy_from_slice(&r.q);
        v.copy_from_slice(&r.v);
        stepper.step(&mut world, &tau);
        let v_next = &world.robot.as_ref().unwrap().v;
        let contacts = stepper.contacts().contacts();
        let allocations = counting::allocations_during(|| {
            id.compute(&model, &mut data, &q, &v, v_next, contacts, DT).unwrap();
        });
        assert_eq!(allocations, 0, "tick {k}");
    }
}

#[test]
fn bad_states_and_references_are_refused_by_name() {
    let (world, _, _) = sim_scenes::quadruped(0.0);
    let model = world.robot.as_ref().unwrap().model.clone();
    let mut data = Data::new(&model);
    let mut id = InverseDynamics::new(&model, 8, Default::default(), InverseDynamicsSettings::default());
    let q = world.robot.as_ref().unwrap().q.clone();
    let v = vec![0.0; model.nv];
    let mut nan = q.clone();
    nan[3] = f64::NAN;
    let cases: [(&[f64], &[f64], f64, String); 4] = [
        (&q, &v[1..], DT, format!("`v_ref`: expected {} values, found {}", model.nv, model.nv - 1)),
        (&nan, &v, DT, "`q`[3]: not a finite number".to_string()),
        (&q, &v, 0.0, "`dt`[0]: not a positive finite step".to_string()),
        (&q, &v, f64::NAN, "`dt`[0]: not a positive finite step".to_string()),
    ];
    for (q, v_ref, dt, message) in cases {
        let e = id.compute(&model, &mut data, q, &v, v_ref, &[], dt).unwrap_err();
        assert_eq!(e.to_string(), message);
    }
    // And it still works afterwards.
    let tau = id.compute(&model, &mut data, &q, &v, &v, &[], DT).unwrap();
    assert!(tau.iter().all(|t| t.is_finite()));
}

//! AT-14 of the seed 000–002 digest: the forward/inverse round trip with compliant
//! contacts, and its rigid counterpart through the floating base's least squares. The simulator steps the bundled quadruped (standing on compliant feet, under
//! its PD) with τ and gives v⁺ and λ; inverse dynamics from the same (q, v) and contacts
//! with v_ref = v⁺ must return that τ (zero on the floating base's rows) and that λ.

mod common;
mod counting;
#[path = "../benches/scenes/sim.rs"]
mod sim_scenes;

use signorini::config::ContactConfig;
use signorini::control::{InverseDynamics, InverseDynamicsSettings};
use signorini::model::{Data, Model};
use signorini::sim::{JointPd, StepReport, Stepper, World};

const DT: f64 = 1e-3;

/// The bundled quadruped standing in the simulator under its PD, with contact settings
/// `yaml`, and an inverse dynamics of the same contact problem settings.
struct Rig {
    world: World,
    hold: JointPd,
    config: ContactConfig,
    stepper: Stepper,
    model: Model,
    data: Data,
    id: InverseDynamics,
}

impl Rig {
    fn new(yaml: &str) -> Self {
        let (world, reference, (kp, kd)) = sim_scenes::quadruped(0.0);
        let hold = sim_scenes::hold(&world, &reference, kp, kd);
        let config: ContactConfig = serde_yaml_ng::from_str(yaml).unwrap();
        let stepper = Stepper::new(&world, DT, &config, 64);
        let model = world.robot.as_ref().unwrap().model.clone();
        let data = Data::new(&model);
        let id = InverseDynamics::new(&model, 64, config.problem_settings(), InverseDynamicsSettings::default());
        Self { world, hold, config, stepper, model, data, id }
    }

    /// One PD step: the state before it, the torques, the report.
    fn step(&mut self, tau: &mut [f64]) -> (Vec<f64>, Vec<f64>, StepReport) {
        sim_scenes::pd(&self.world, &mut self.hold, tau);
        let r = self.world.robot.as_ref().unwrap();
        let (q, v) = (r.q.clone(), r.v.clone());
        let report = *self.stepper.step(&mut self.world, tau);
        (q, v, report)
    }
}

#[test]
fn at14_inverse_dynamics_returns_the_torques_and_impulses_of_a_compliant_forward_step() {
    let mut rig = Rig::new("tolerance: 1e-13\ncompliance_normal: 1e-5\ncompliance_tangential: 2e-5");
    let mut tau = vec![0.0; rig.world.nv()];
    let mut checked = 0;
    // While it settles (moving, then at rest), every 50th step.
    for k in 0..1500 {
        let (q, v, report) = rig.step(&mut tau);
        assert!(report.converged, "step {k}: {report:?}");
        let Rig { world, stepper, model, data, id, .. } = &mut rig;
        if k % 50 != 0 {
            continue;
        }
        assert!(stepper.joint_blocks().is_empty(), "no joint limit or friction in this round trip");
        let v_next = world.robot.as_ref().unwrap().v.clone();
        let contacts = stepper.contacts().contacts();
        let n = contacts.len();
        assert_eq!(n, 4, "step {k}");
        let tau_id = id.compute(model, data, &q, &v, &v_next, contacts, DT).unwrap().to_vec();
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

/// Compliant feet (Algorithm 2 alone) and rigid ones (then the floating base's least
/// squares, every tick after touch-down).
#[test]
fn a_control_tick_of_inverse_dynamics_allocates_nothing() {
    for yaml in ["compliance_normal: 1e-5", "tolerance: 1e-6"] {
        let mut rig = Rig::new(yaml);
        let mut tau = vec![0.0; rig.world.nv()];
        for k in 0..300 {
            let (q, v, _) = rig.step(&mut tau);
            let Rig { world, stepper, model, data, id, .. } = &mut rig;
            let v_next = &world.robot.as_ref().unwrap().v;
            let contacts = stepper.contacts().contacts();
            let allocations = counting::allocations_during(|| {
                id.compute(model, data, &q, &v, v_next, contacts, DT).unwrap();
            });
            assert_eq!(allocations, 0, "{yaml}: tick {k}");
        }
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

/// The floating base with rigid feet (seed 000 §VII's open case): while the quadruped
/// settles on its PD, inverse dynamics for the reference v⁺ the simulator reached finds
/// impulses that produce the base wrench (residual below 1e-7 N of a 100 N weight) and joint torques; the
/// simulator driven by those torques from the same state reaches v⁺ again with exactly the
/// predicted impulses (unique: four sticking feet, G of full rank).
#[test]
fn floating_base_inverse_dynamics_predicts_the_simulated_rigid_contact_forces() {
    let mut rig = Rig::new("tolerance: 1e-13");
    let (mut replay, _, _) = sim_scenes::quadruped(0.0);
    let mut replayer = Stepper::new(&replay, DT, &rig.config, 64);
    let mut tau = vec![0.0; rig.world.nv()];
    let mut checked = 0;
    for k in 0..1500 {
        let (q, v, report) = rig.step(&mut tau);
        assert!(report.converged, "step {k}");
        let Rig { world, stepper, model, data, id, .. } = &mut rig;
        let contacts = stepper.contacts().contacts();
        // From the first touch-down on, every 50th step with the four feet down.
        if k % 50 != 0 || contacts.len() != 4 || k < 200 {
            continue;
        }
        let v_next = world.robot.as_ref().unwrap().v.clone();
        let tau_id = id.compute(model, data, &q, &v, &v_next, contacts, DT).unwrap().to_vec();
        let residual = id.base_residual().expect("a floating base");
        assert!(residual.iter().all(|e| e.abs() < 1e-7), "step {k}: base residual {residual:?}");
        let predicted = id.impulses().to_vec();
        let normal: f64 = (0..4).map(|i| predicted[3 * i + 2]).sum::<f64>() / DT;
        assert!(normal > 0.0, "step {k}");

        let r = replay.robot.as_mut().unwrap();
        r.q.copy_from_slice(&q);
        r.v.copy_from_slice(&v);
        let mut joints = tau_id.clone();
        joints[..6].fill(0.0);
        let report = *replayer.step(&mut replay, &joints);
        assert!(report.converged && report.contacts == 4, "step {k}: {report:?}");
        let simulated = &replayer.impulses()[..12];
        for (a, (x, y)) in simulated.iter().zip(&predicted).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, λ[{a}]: simulated {x}, predicted {y}");
        }
        let v_replay = &replay.robot.as_ref().unwrap().v;
        for (j, (x, y)) in v_replay.iter().zip(&v_next).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, v⁺[{j}]: replayed {x}, reference {y}");
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} steps checked");
}

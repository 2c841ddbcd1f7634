//! AT-14 of the seed 000–002 digest: the forward/inverse round trip with compliant
//! contacts, and its rigid counterpart through the floating base's least squares. The simulator steps the bundled quadruped (standing on compliant feet, under
//! its PD) with τ and gives v⁺ and λ; inverse dynamics from the same (q, v) and contacts
//! with v_ref = v⁺ must return that τ (zero on the floating base's rows) and that λ.

mod common;
mod counting;

use signorini::config::ContactConfig;
use signorini::contact::ProblemSettings;
use signorini::control::{InverseDynamics, InverseDynamicsSettings};
use signorini::model::{Data, Model};
use signorini::scenes::{Sources, worlds};
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
        let (world, reference, (kp, kd)) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
        let hold = worlds::hold(&world, &reference, kp, kd);
        let config: ContactConfig = serde_yaml_ng::from_str(yaml).unwrap();
        let stepper = Stepper::new(&world, DT, &config.settings(), 64);
        let model = world.robot.as_ref().unwrap().model.as_ref().clone();
        let data = Data::new(&model);
        let id = InverseDynamics::new(&model, 64, config.problem_settings(), InverseDynamicsSettings::default());
        Self { world, hold, config, stepper, model, data, id }
    }

    /// One PD step: the state before it, the torques, the report.
    fn step(&mut self, tau: &mut [f64]) -> (Vec<f64>, Vec<f64>, StepReport) {
        worlds::pd(&self.world, &mut self.hold, tau);
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
        assert_eq!(forward.len(), inverse.len(), "step {k}: impulses");
        for (a, (x, y)) in forward.iter().zip(inverse).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, λ[{a}]: forward {x}, inverse {y}");
        }
        assert_eq!(tau.len(), tau_id.len(), "step {k}: torques");
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

/// The compliant case against Pinocchio's `contactInverseDynamics` on the same state
/// (scripts/gen_control_fixtures.py): solo12 on four compliant feet, pressing, sliding
/// (every foot on its cone's edge) and a random reference. Pinocchio's compliance is ours
/// over Δt² and its forces our impulses over Δt (see the script); its τ has the base rows
/// the script absorbs the way ours does.
#[test]
fn compliant_inverse_dynamics_matches_pinocchios_contact_inverse_dynamics() {
    let path = common::repo("tests/fixtures/control/solo12_compliant.json");
    let f: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let floats = |v: &serde_json::Value| -> Vec<f64> { serde_json::from_value(v.clone()).unwrap() };
    let model = common::fixture_model(&f["robot"]);
    let contacts = common::fixture_contacts(&f["contacts"], Some(&model));
    let dt = f["dt"].as_f64().unwrap();
    let problem = ProblemSettings {
        compliance_normal: f["compliance_normal"].as_f64().unwrap(),
        compliance_tangential: f["compliance_tangential"].as_f64().unwrap(),
        ..Default::default()
    };
    let settings = InverseDynamicsSettings { rho: f["rho"].as_f64().unwrap(), ..Default::default() };
    let (q, v) = (floats(&f["robot"]["q"]), floats(&f["robot"]["v"]));
    let mut data = Data::new(&model);
    assert_eq!(f["states"].as_array().unwrap().len(), 3, "pressing, sliding, random");
    for state in f["states"].as_array().unwrap() {
        let name = state["name"].as_str().unwrap();
        // From zero, as Pinocchio started.
        let mut id = InverseDynamics::new(&model, 8, problem, settings);
        let tau = id.compute(&model, &mut data, &q, &v, &floats(&state["v_ref"]), &contacts, dt).unwrap().to_vec();
        assert!(id.result().converged, "{name}: {:?}", id.result());
        let force: Vec<f64> = id.impulses().iter().map(|l| l / dt).collect();
        let (want_force, want_tau) = (floats(&state["lambda"]), floats(&state["tau"]));
        let (e_force, e_tau) = (common::rel_error(&force, &want_force), common::rel_error(&tau, &want_tau));
        println!("{name}: λ {e_force:.1e}, τ {e_tau:.1e} (relative), {} iterations", id.result().stats.iterations);
        // Measured: 6.9e-16 pressing and random; 9.3e-11 sliding, where both stop at their
        // tolerance after 40 iterations.
        let bound = if name == "sliding" { 5e-10 } else { 5e-15 };
        assert!(e_force < bound, "{name}: λ {force:?} vs Pinocchio's {want_force:?}");
        assert!(e_tau < bound, "{name}: τ {tau:?} vs Pinocchio's {want_tau:?}");
    }
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
    let (world, _, _) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
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
    let (mut replay, _, _) = worlds::quadruped(&Sources::repository(), 0.0).unwrap();
    let mut replayer = Stepper::new(&replay, DT, &rig.config.settings(), 64);
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
        assert_eq!(simulated.len(), predicted.len(), "step {k}: impulses");
        for (a, (x, y)) in simulated.iter().zip(&predicted).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, λ[{a}]: simulated {x}, predicted {y}");
        }
        let v_replay = &replay.robot.as_ref().unwrap().v;
        assert_eq!(v_replay.len(), v_next.len(), "step {k}: velocities");
        for (j, (x, y)) in v_replay.iter().zip(&v_next).enumerate() {
            assert!((x - y).abs() < 1e-9, "step {k}, v⁺[{j}]: replayed {x}, reference {y}");
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} steps checked");
}

/// Seed 000 §V-D: the arm slides its tool (a 3 cm sphere) along a rigid wall (R = 0,
/// μ 0.3) at 5 cm/s for 0.2 s, pressing on it with the force it was seeded with. Every tick, inverse dynamics for the reference
/// (the tool's velocity along the wall, least-norm joint velocities) gives bounded
/// torques and an impulse on the friction cone's edge opposite the slip; the simulator
/// driven by those torques from the same state slides the tool exactly as referenced
/// with the same impulse (the forward dynamics' normal force), tick after tick.
#[test]
fn the_arm_slides_its_tool_along_a_wall_with_the_forward_dynamics_normal_force() {
    use signorini::collision::CollisionWorld;
    use signorini::config::{CollisionConfig, EnvironmentConfig};
    use signorini::model::ModelOptions;
    use signorini::sim::Robot;

    let model =
        signorini::model::Model::from_urdf_file(&common::repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for (joint, value) in [("joint2", 0.5), ("joint4", -1.2), ("joint6", 0.7)] {
        q[model.idx_q[model.joint_id(joint).unwrap()]] = value;
    }
    let mut data = Data::new(&model);
    signorini::dynamics::forward_kinematics(&model, &mut data, &q);
    let tool = model.frame_id("tool", None).unwrap();
    let placement = signorini::dynamics::update_frame_placement(&model, &mut data, tool);
    // A wall across the tool's axis (its z), its face 3 cm ahead of the sphere's centre:
    // the sphere touches it, the rest of the arm is behind. No ground.
    let (x_tool, z_tool) = (placement.rotation.column(0).into_owned(), placement.rotation.column(2).into_owned());
    let wall = placement.translation + z_tool * (0.03 + 0.05);
    let (roll, pitch, yaw) = nalgebra::Rotation3::from_matrix_unchecked(placement.rotation).euler_angles();
    let yaml = format!(
        "ground: null\nboxes: [{{name: wall, size: [0.3, 0.3, 0.1], position: [{}, {}, {}], rpy: [{roll}, {pitch}, {yaw}], \
         friction: 0.3}}]",
        wall.x, wall.y, wall.z
    );
    let env: EnvironmentConfig = serde_yaml_ng::from_str(&yaml).unwrap();
    let collision = CollisionConfig::default();
    let mut world = World::new(Some(Robot::new(model.clone(), q)), &env.description(), &collision.settings()).unwrap();
    let mut detector = CollisionWorld::new(&model, &env.description(), &collision.settings()).unwrap();
    let config: ContactConfig = serde_yaml_ng::from_str("tolerance: 1e-13").unwrap();
    let mut stepper = Stepper::new(&world, DT, &config.settings(), 16);
    let mut id = InverseDynamics::new(&model, 16, config.problem_settings(), InverseDynamicsSettings::default());
    let mut contacts = signorini::collision::ContactBuffer::with_capacity(16);
    let mut point = nalgebra::Matrix3xX::zeros(model.nv);
    let joint = model.frames[tool].parent_joint;
    // Press with 5 N: the rigid contact's normal impulse is the one Algorithm 2 starts from.
    signorini::dynamics::compute_joint_jacobians(&model, &mut data, &world.robot.as_ref().unwrap().q);
    detector.update_robot(&data);
    detector.detect(&mut contacts);
    let ids: Vec<_> = contacts.contacts().iter().map(|c| c.id).collect();
    id.seed(&ids, &[0.0, 0.0, 5.0 * DT]);
    let mut normal = Vec::new();
    for k in 0..200 {
        let (q, v) = {
            let r = world.robot.as_ref().unwrap();
            (r.q.clone(), r.v.clone())
        };
        signorini::dynamics::compute_joint_jacobians(&model, &mut data, &q);
        detector.update_robot(&data);
        detector.detect(&mut contacts);
        assert_eq!(contacts.len(), 1, "tick {k}: the tool on the wall");
        // The tool's centre moves along the wall (the first tool axis) at 5 cm/s and keeps
        // touching it.
        let centre = signorini::dynamics::update_frame_placement(&model, &mut data, tool).translation;
        signorini::dynamics::point_jacobian(&model, &data, joint, &centre, &mut point);
        let gap = contacts.contacts()[0].distance;
        let target = x_tool * 0.05 + z_tool * (gap / DT);
        let jjt = &point * point.transpose();
        let v_ref: Vec<f64> = (point.transpose() * jjt.cholesky().unwrap().solve(&target)).iter().copied().collect();
        let tau = id.compute(&model, &mut data, &q, &v, &v_ref, contacts.contacts(), DT).unwrap().to_vec();
        let predicted = id.impulses()[..3].to_vec();
        assert!(id.result().converged, "tick {k}: {:?}", id.result());
        for (j, t) in tau.iter().enumerate() {
            assert!(t.is_finite() && t.abs() < model.effort_limit[j], "tick {k}: τ[{j}] = {t}");
        }
        // On the cone's edge, opposite the slip.
        let slip = contacts.contacts()[0].frame.transpose() * x_tool;
        let l_t = nalgebra::Vector2::new(predicted[0], predicted[1]);
        assert!(predicted[2] > 0.0, "tick {k}: {predicted:?}");
        assert!((l_t.norm() - 0.3 * predicted[2]).abs() < 1e-9 * predicted[2], "tick {k}: {predicted:?}");
        assert!(l_t.dot(&slip.xy()) < 0.0, "tick {k}: friction along the slip");
        normal.push(predicted[2] / DT);

        let report = *stepper.step(&mut world, &tau);
        assert!(report.converged && report.contacts == 1, "tick {k}: {report:?}");
        let simulated = &stepper.impulses()[..3];
        for a in 0..3 {
            assert!(
                (simulated[a] - predicted[a]).abs() < 1e-9,
                "tick {k}, λ[{a}]: simulated {simulated:?}, predicted {predicted:?}"
            );
        }
        let v_next = &world.robot.as_ref().unwrap().v;
        assert_eq!(v_next.len(), v_ref.len(), "tick {k}: velocities");
        for (j, (x, y)) in v_next.iter().zip(&v_ref).enumerate() {
            assert!((x - y).abs() < 1e-9, "tick {k}, v[{j}]: simulated {x}, reference {y}");
        }
    }
    // The seed projected on the cone's edge, 5/(1 + μ²) N, then kept tick after tick. Eq. 47
    // leaves a rigid sliding contact's normal impulse free, so nothing pulls it back: the
    // rounding of the reference's normal velocity (~1e-17 m/s) moves it by about that
    // over ρ = 1e-8, ~1e-9 N·s = 1e-6 N a tick, a random walk (measured: 6e-6 N over 200).
    let first = 5.0 / (1.0 + 0.3f64 * 0.3);
    let (tick, worst) =
        normal.iter().map(|n| (n - first).abs()).enumerate().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    assert!(worst < 1e-5 * first, "tick {tick}: {} N vs {first} N", normal[tick]);
}

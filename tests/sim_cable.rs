//! A long chain on the ground with V-FPI (issue 28's cable, scripts/cable.py): a step must
//! never go NaN or tunnel because a contact solve went wrong. On the 150-bead cable V-FPI's
//! Chebyshev iteration diverges on most steps; it used to overflow to NaN and report that
//! converged, and the stepper then applied no impulse at all: the cable fell freely,
//! reported ε_abs 0 (the NaN rows dropped by `f64::max`), sank, was thrown by the
//! recovery of its penetration and fell in again (examples/sim_dynamic.rs on the same
//! cable: 1 mm deep at step 39, a hinge 0.16 m under the ground at step 146, not finite at
//! step 152). Now such a solve is unconverged, falls back to a candidate that creates no
//! kinetic energy ([`Stepper`]'s guard), and the cable stays on the ground.

use signorini::collision::{Environment, Ground};
use signorini::config::{ContactConfig, SolverKind};
use signorini::model::{Model, ModelOptions};
use signorini::sim::{Robot, Stepper, World};

/// scripts/cable.py's constants: bead radius and spacing (m), masses (kg), joint damping
/// (N·m·s/rad) and limit (rad), the sled's speed (m/s) and PD gains, μ, the initial wave
/// (rad, m).
const RADIUS: f64 = 0.01;
const SPACING: f64 = 0.02;
const BEAD_MASS: f64 = 0.010;
const KNUCKLE_MASS: f64 = 0.001;
const SLED_MASS: f64 = 1.0;
const DAMPING: f64 = 1e-4;
const LIMIT: f64 = 2.0;
const SPEED: f64 = 0.3;
const DRAG_KP: f64 = 1e4;
const DRAG_KD: f64 = 200.0;
const MU: f64 = 0.6;
const WAVE: f64 = 0.3;
const WAVELENGTH: f64 = 0.5;
const DT: f64 = 1e-3;

fn inertial(mass: f64, inertia: f64, x: f64) -> String {
    format!(
        "<inertial><origin xyz=\"{x} 0 0\"/><mass value=\"{mass}\"/><inertia ixx=\"{inertia}\" iyy=\"{inertia}\" \
         izz=\"{inertia}\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>"
    )
}

fn revolute(name: &str, parent: &str, child: &str, axis: &str, x: f64) -> String {
    format!(
        "<joint name=\"{name}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"{child}\"/>\
         <origin xyz=\"{x} 0 0\"/><axis xyz=\"{axis}\"/><limit lower=\"{}\" upper=\"{LIMIT}\" effort=\"1\" \
         velocity=\"100\"/><dynamics damping=\"{DAMPING}\"/></joint>",
        -LIMIT
    )
}

/// scripts/cable.py's `urdf(n)`: a prismatic sled at the beads' height, then per bead a
/// pitch and a yaw hinge, the sphere SPACING/2 behind its hinge.
fn urdf(n: usize) -> String {
    let bead_inertia = 0.4 * BEAD_MASS * RADIUS.powi(2);
    let knuckle_inertia = 0.4 * KNUCKLE_MASS * (0.2 * RADIUS).powi(2);
    let mut s = format!(
        "<robot name=\"cable{n}\"><link name=\"anchor\"/><link name=\"sled\">{}</link><joint name=\"drag\" \
         type=\"prismatic\"><parent link=\"anchor\"/><child link=\"sled\"/><origin xyz=\"0 0 {RADIUS}\"/>\
         <axis xyz=\"1 0 0\"/><limit lower=\"-10\" upper=\"10\" effort=\"1000\" velocity=\"100\"/></joint>",
        inertial(SLED_MASS, 1e-3, 0.0)
    );
    let mut parent = "sled".to_owned();
    for i in 0..n {
        let x = if i == 0 { 0.0 } else { -SPACING };
        s += &format!("<link name=\"knuckle_{i}\">{}</link>", inertial(KNUCKLE_MASS, knuckle_inertia, 0.0));
        s += &revolute(&format!("pitch_{i}"), &parent, &format!("knuckle_{i}"), "0 1 0", x);
        s += &format!(
            "<link name=\"bead_{i}\">{}<collision><origin xyz=\"{} 0 0\"/><geometry><sphere radius=\"{RADIUS}\"/>\
             </geometry></collision></link>",
            inertial(BEAD_MASS, bead_inertia, -SPACING / 2.0),
            -SPACING / 2.0
        );
        s += &revolute(&format!("yaw_{i}"), &format!("knuckle_{i}"), &format!("bead_{i}"), "0 0 1", 0.0);
        parent = format!("bead_{i}");
    }
    s + "</robot>"
}

/// The cable of `n` beads on the ground (μ MU) in scripts/cable.py's initial wave: the
/// yaw hinges at the change of the heading θ(s) = WAVE·sin(2πs/WAVELENGTH) bead to bead.
fn cable(n: usize) -> World {
    let model = Model::from_urdf_xml(&urdf(n), "cable", &ModelOptions::default()).unwrap();
    let mut q = model.neutral_configuration().as_slice().to_vec();
    let heading = |i: usize| WAVE * (2.0 * std::f64::consts::PI * i as f64 * SPACING / WAVELENGTH).sin();
    for i in 0..n {
        let id = model.joint_id(&format!("yaw_{i}")).unwrap();
        q[model.idx_q[id]] = heading(i) - if i > 0 { heading(i - 1) } else { 0.0 };
    }
    let environment = Environment { ground: Some(Ground { friction: MU, ..Default::default() }), ..Default::default() };
    World::new(Some(Robot::new(model, q)), &environment, &Default::default()).unwrap()
}

/// 160 steps of the 150-bead cable dragged at SPEED by its sled's PD (to x_ref = SPEED·t,
/// as scripts/cable.py's drive) with `contact.solver: vfpi`, the other contact settings
/// the defaults: every step finite, every step's impulses finite, the deepest
/// penetration at most 1 mm (measured 0.19 mm; 0.21 mm over 300 steps) and no hinge more
/// than 1 mm lower than the beads' resting height. Before the fix, this run had NaN
/// impulses from step 33 (applied as none), was 1 mm deep at step 107 and 5.5 mm at 160.
#[test]
fn the_cable_with_vfpi_stays_finite_and_on_the_ground() {
    let (n, steps) = (150, 160);
    let mut world = cable(n);
    let contact = ContactConfig { solver: SolverKind::Vfpi, ..Default::default() };
    let mut stepper = Stepper::new(&world, DT, &contact.settings(), 2 * world.nv() + 256);
    let mut tau = vec![0.0; world.nv()];
    let (mut deepest, mut lowest, mut unconverged, mut fallbacks) = (0.0f64, f64::INFINITY, 0, 0);
    for k in 0..steps {
        let r = world.robot.as_ref().unwrap();
        tau[0] = DRAG_KP * (SPEED * (k + 1) as f64 * DT - r.q[0]) - DRAG_KD * r.v[0];
        let report = *stepper.step(&mut world, &tau);
        assert!(world.is_finite(), "step {k}: the state is not finite");
        assert!(stepper.impulses().iter().all(|x| x.is_finite()), "step {k}: impulses not finite");
        assert!(report.metrics.eps_abs.is_finite(), "step {k}: {:?}", report.metrics);
        unconverged += usize::from(!report.converged);
        fallbacks += usize::from(report.fallback != signorini::contact::Fallback::None);
        deepest = deepest.max(report.max_penetration);
        let r = world.robot.as_ref().unwrap();
        lowest = r.data.o_m_i.iter().skip(1).map(|m| m.translation.z).fold(lowest, f64::min);
    }
    println!(
        "{n} beads, {steps} steps: {unconverged} unconverged, {fallbacks} fallbacks, deepest {deepest:.3e} m, \
         lowest hinge {lowest:.4} m"
    );
    assert!(deepest < 1e-3, "penetration {deepest} m");
    assert!(lowest > RADIUS - 1e-3, "a hinge at {lowest} m: the cable went into the ground");
}

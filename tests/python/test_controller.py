"""The controller of config/quadruped.yaml through `import signorini`, checked by Pinocchio
(the independent reference): the quadruped standing still at its initial posture (the
configuration of the quadruped_standing fixture of scripts/gen_contact_fixtures.py, feet
on the ground), one tick towards its posture reference. With v = 0 and the reference at
q the tick realizes v⁺ = 0, so its torques and predicted forces must satisfy the statics

    g(q) = τ + Σ_c J_c(q)ᵀ f_c

(τ's floating-base rows: the wrench the base still lacks, ~0 when the feet carry it) with
g from pin.computeGeneralizedGravity and J_c Pinocchio's world Jacobian of the point of
each returned contact on its foot, and the forces must carry the robot's weight."""

import json

import numpy as np
import pinocchio as pin
import pytest

import signorini as sg
from conftest import ROOT

CONFIG = ROOT / "config/quadruped.yaml"
LEGS = ("lf", "lh", "rf", "rh")
# Measured: the statics hold to 1.4e-10 N·m (|g| 174.6), the feet carry the 174.618 N
# weight to 9e-12 N, the base lacks no wrench (0); the bounds are within 10x of those.
STATICS_TOL = 1e-9  # N·m and N


@pytest.fixture(scope="module")
def standing():
    f = json.loads((ROOT / "tests/fixtures/contact/quadruped_standing.json").read_text())
    q = np.array(f["robot"]["q"])
    ref = pin.buildModelFromUrdf(str(ROOT / "urdf/quadruped.urdf"), pin.JointModelFreeFlyer())
    return sg.Controller.from_config(CONFIG), ref, q


def foot_joint(ref, data, point):
    """The joint carrying the foot nearest to `point` (a contact on that foot's sphere)."""
    feet = [ref.getFrameId(f"{leg}_foot") for leg in LEGS]
    nearest = min(feet, key=lambda f: np.linalg.norm(data.oMf[f].translation - point))
    return ref.frames[nearest].parentJoint


def point_jacobian(ref, data, joint, p):
    """World-frame linear velocity Jacobian (3 × nv) of the world point p on `joint`."""
    J = pin.getJointJacobian(ref, data, joint, pin.ReferenceFrame.WORLD)
    return J[:3] - pin.skew(p) @ J[3:]


def test_the_controller_reads_its_configuration(standing):
    controller, ref, _ = standing
    assert controller.dt == pytest.approx(1e-3)  # rate_hz: 1000
    assert (controller.model.nq, controller.model.nv) == (ref.nq, ref.nv)
    assert controller.contact_points().shape == (0, 3)


def test_standing_torques_and_forces_satisfy_pinocchios_statics(standing):
    controller, ref, q = standing
    nv = ref.nv
    tau, forces = controller.tick(q, np.zeros(nv))
    points = controller.contact_points()
    assert tau.shape == (nv,) and forces.shape == points.shape == (4, 3), (tau.shape, forces.shape)
    data = ref.createData()
    pin.computeJointJacobians(ref, data, q)
    pin.updateFramePlacements(ref, data)
    gravity = pin.computeGeneralizedGravity(ref, data, q).copy()
    contact = sum(point_jacobian(ref, data, foot_joint(ref, data, p), p).T @ f for p, f in zip(points, forces))
    residual = np.abs(gravity - tau - contact).max()
    weight = pin.computeTotalMass(ref) * 9.81
    lacking = np.abs(tau[:6]).max()
    carried = forces.sum(axis=0)
    print(f"statics residual {residual:.2e} N·m (of |g| {np.abs(gravity).max():.1f}); base wrench lacking"
          f" {lacking:.2e}; Σf {carried} against the weight {weight:.6f} N; feet at z {points[:, 2]}")
    assert residual < STATICS_TOL
    assert lacking < STATICS_TOL
    assert abs(carried[2] - weight) < STATICS_TOL and np.abs(carried[:2]).max() < STATICS_TOL
    # Every foot carries load, pushed up from the ground, inside its friction cone (μ 0.8
    # of the URDF's contact: the default).
    assert (forces[:, 2] > 0.1 * weight / 4).all()
    assert (np.hypot(forces[:, 0], forces[:, 1]) <= 0.8 * forces[:, 2]).all()
    assert np.abs(points[:, 2]).max() < 1e-9


def test_explicit_references_equal_the_defaults(standing):
    """q_des = the posture (here q itself), v_des = a_des = 0 give the same tick (two
    fresh controllers: a tick warm-starts the next)."""
    _, ref, q = standing
    zero = np.zeros(ref.nv)
    tau, forces = sg.Controller.from_config(CONFIG).tick(q, zero)
    explicit = sg.Controller.from_config(CONFIG)
    tau2, forces2 = explicit.tick(q, zero, q_des=q.copy(), v_des=zero, a_des=zero)
    np.testing.assert_array_equal(tau, tau2)
    np.testing.assert_array_equal(forces, forces2)


def test_a_refused_tick_raises_signorini_error():
    """A tick whose predicted forces would exceed the bound (the robot 1 m under the
    ground: its feet deep in it, the reference lifting it out at once) raises
    signorini.Error with the controller's one-line message, not a crash."""
    controller = sg.Controller.from_config(CONFIG)
    f = json.loads((ROOT / "tests/fixtures/contact/quadruped_standing.json").read_text())
    q = np.array(f["robot"]["q"])
    q[2] -= 0.05
    nv = controller.model.nv
    v = np.zeros(nv)
    v[2] = -50.0  # falling into the ground at 50 m/s
    with pytest.raises(sg.Error) as e:
        controller.tick(q, v)
    print(e.value)
    assert "\n" not in str(e.value)

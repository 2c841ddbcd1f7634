"""The dynamics of `import signorini` against Pinocchio's Python bindings (the independent
reference) on robots of example-robot-data and of this repository: RNEA, CRBA, ABA,
gravity, frame placements and Jacobians in the three reference frames, integrate and
difference, to 1e-9 at random states."""

import numpy as np
import pinocchio as pin
import pytest

import signorini as sg
from conftest import erd_share, robots

# The bounds of what is measured (README, "Measured"): relative to max(1, |reference|) for the
# dynamics (worst 1.6e-13, arm7), absolute for placements, Jacobians (worst 7.8e-16, talos),
# integrate and difference (worst 2.4e-15, solo12). The floor is 1e-9.
DYNAMICS_TOL = 1e-12
FRAMES_TOL = 5e-15
STATES = 3
ROBOTS = ["ur5", "panda", "solo12", "talos", "quadruped", "arm7"]


def load(name):
    path, floating = robots()[name]
    share = erd_share()
    model = sg.Model.from_urdf(path, floating_base=floating, package_dirs=[share], skip_meshes=True, mimic="independent")
    root = pin.JointModelFreeFlyer() if floating else None
    ref = pin.buildModelFromUrdf(str(path), root) if root is not None else pin.buildModelFromUrdf(str(path))
    return model, ref


def random_state(ref, rng):
    q = pin.randomConfiguration(ref, -np.ones(ref.nq), np.ones(ref.nq)) if ref.nq else np.zeros(0)
    q = np.clip(q, -3.0, 3.0)
    if ref.joints[1].shortname() == "JointModelFreeFlyer":
        q[3:7] = rng.normal(size=4)
        q[3:7] /= np.linalg.norm(q[3:7])
    v, a, tau = (rng.normal(size=ref.nv) for _ in range(3))
    return q, v, a, tau


@pytest.fixture(params=ROBOTS, scope="module")
def pair(request):
    return (request.param, *load(request.param))


def test_sizes_and_names_match_pinocchio(pair):
    name, model, ref = pair
    assert (model.nq, model.nv, model.njoints) == (ref.nq, ref.nv, ref.njoints), name
    assert model.joint_names == list(ref.names)
    assert model.total_mass == pytest.approx(pin.computeTotalMass(ref), rel=1e-12)


def test_rnea_crba_aba_gravity_match_pinocchio(pair):
    name, model, ref = pair
    data, rd = model.data(), ref.createData()
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(STATES):
        q, v, a, tau = random_state(ref, rng)
        tau_ref = pin.rnea(ref, rd, q, v, a).copy()
        m_ref = pin.crba(ref, rd, q).copy()
        m_ref = np.triu(m_ref) + np.triu(m_ref, 1).T
        ddq_ref = pin.aba(ref, rd, q, v, tau).copy()
        g_ref = pin.computeGeneralizedGravity(ref, rd, q).copy()
        for ours, theirs in [
            (sg.rnea(model, data, q, v, a), tau_ref),
            (sg.crba(model, data, q), m_ref),
            (sg.aba(model, data, q, v, tau), ddq_ref),
            (sg.gravity(model, data, q), g_ref),
        ]:
            scale = max(1.0, np.abs(theirs).max())
            worst = max(worst, np.abs(ours - theirs).max() / scale)
    print(f"{name}: worst relative difference to Pinocchio {worst:.2e}")
    assert worst < DYNAMICS_TOL


def test_frames_and_jacobians_match_pinocchio(pair):
    name, model, ref = pair
    data, rd = model.data(), ref.createData()
    rng = np.random.default_rng(11)
    refs = {
        "world": pin.ReferenceFrame.WORLD,
        "local": pin.ReferenceFrame.LOCAL,
        "local_world_aligned": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
    }
    frames = [f.name for f in ref.frames][1:]
    picked = [frames[i] for i in rng.choice(len(frames), size=min(6, len(frames)), replace=False)]
    worst = 0.0
    for _ in range(STATES):
        q, *_ = random_state(ref, rng)
        sg.forward_kinematics(model, data, q)
        pin.forwardKinematics(ref, rd, q)
        pin.updateFramePlacements(ref, rd)
        for f in picked:
            fid = ref.getFrameId(f)
            worst = max(worst, np.abs(sg.frame_placement(model, data, f) - rd.oMf[fid].homogeneous).max())
            for key, rf in refs.items():
                theirs = pin.computeFrameJacobian(ref, rd, q, fid, rf)
                worst = max(worst, np.abs(sg.jacobian(model, data, q, f, key) - theirs).max())
    print(f"{name}: worst frame/Jacobian difference to Pinocchio {worst:.2e}")
    assert worst < FRAMES_TOL


def test_integrate_and_difference_match_pinocchio(pair):
    name, model, ref = pair
    rng = np.random.default_rng(3)
    q0, v, *_ = random_state(ref, rng)
    q1, *_ = random_state(ref, rng)
    assert np.abs(sg.integrate(model, q0, v) - pin.integrate(ref, q0, v)).max() < FRAMES_TOL
    assert np.abs(sg.difference(model, q0, q1) - pin.difference(ref, q0, q1)).max() < FRAMES_TOL


def test_out_arguments_are_written_in_place():
    model, ref = load("solo12")
    data = model.data()
    q, v, a, _ = random_state(ref, np.random.default_rng(1))
    tau = np.empty(model.nv)
    mass = np.empty((model.nv, model.nv))
    assert sg.rnea(model, data, q, v, a, out=tau) is tau
    assert sg.crba(model, data, q, out=mass) is mass
    assert np.array_equal(tau, sg.rnea(model, data, q, v, a))
    assert np.array_equal(mass, sg.crba(model, data, q))

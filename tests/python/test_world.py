"""`signorini.World` against independent references: the Rust simulator's own run (the
`signorini sim` command's JSON summary, bit for bit), analytic free fall and statics, and the
state round trip; its error paths (bad configuration keys, closed worlds, non-finite steps,
bad arguments)."""

import json
import math
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import signorini as sg
from conftest import ROOT

QUADRUPED = ROOT / "config/quadruped.yaml"
# The joint PD of config/quadruped.yaml (`sim.hold_kp`, `sim.hold_kd`).
HOLD_KP, HOLD_KD = 200.0, 5.0


def signorini_binary() -> pathlib.Path:
    """The `signorini` command built from this repository (`cargo build --release`, or
    `make`), or $SIGNORINI_BIN: where cargo builds it, $CARGO_TARGET_DIR before the
    repository's target/ (a binary left there by an older build would not match)."""
    candidates = [os.environ.get("SIGNORINI_BIN", "")]
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(os.path.join(os.environ["CARGO_TARGET_DIR"], "release/signorini"))
    candidates.append(str(ROOT / "target/release/signorini"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return pathlib.Path(c)
    pytest.fail("no signorini binary: run `cargo build --release` (or set SIGNORINI_BIN)")


def joint_slots(world):
    """Indices in q and v of the world's controls (revolute joints: one each)."""
    model = world.model
    iq, iv = [], []
    for name in world.control_names:
        j = model.joint_names.index(name)
        # The quadruped's joints are revolute (nq = nv = 1) after the free flyer (7, 6).
        iq.append(7 + j - 2)
        iv.append(6 + j - 2)
    return np.array(iq), np.array(iv)


def hold_pd(world, q0):
    """τ = kp (q0 − q) − kd v on the controlled joints: the simulator's `sim.hold_kp/kd`."""
    iq, iv = joint_slots(world)
    q, v = world.q, world.v
    return HOLD_KP * (q0[iq] - q[iq]) - HOLD_KD * v[iv]


def test_quadruped_matches_the_rust_simulator_bit_for_bit(tmp_path):
    """1 s of config/quadruped.yaml under its hold PD, in Python and by `signorini sim`
    (the Rust loop): the same final base position, contacts, iterations and criteria."""
    summary_file = tmp_path / "sim.json"
    cmd = [str(signorini_binary()), "sim", "--config", str(QUADRUPED), "--duration", "1", "--json", str(summary_file)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    summary = json.loads(summary_file.read_text())
    world = sg.World.from_config(QUADRUPED)
    q0 = world.q.copy()
    contacts, iterations, eps, depth = [], [], [], []
    for _ in range(summary["steps"]):
        info = world.step(hold_pd(world, q0))
        contacts.append(info.contacts)
        iterations.append(info.iterations)
        eps.append(info.criteria.eps_abs)
        depth.append(info.max_penetration)
    assert world.q[:3].tolist() == summary["final_base_position"]
    assert world.time == summary["sim_time_s"]
    assert np.mean(contacts) == summary["contacts_mean"] and max(contacts) == summary["contacts_max"]
    assert max(iterations) == summary["iterations_max"]
    assert max(eps) == summary["max_eps_abs"] and max(depth) == summary["max_penetration_m"]


def record(world, controls):
    """The state after each step under `controls` (T, nu)."""
    out = []
    for tau in controls:
        world.step(tau)
        out.append(world.get_state())
    return np.array(out)


def test_state_round_trip_and_reset_replay_bit_for_bit():
    """get_state → k steps → set_state → the same k steps: identical states; reset → the
    run since construction, identical; from a state taken mid-run, two replays and a new
    world's run agree."""
    world = sg.World.from_config(QUADRUPED)
    rng = np.random.default_rng(3)
    controls = rng.uniform(-5.0, 5.0, size=(150, world.nu))
    s0 = world.get_state()
    first = record(world, controls)
    world.set_state(s0)
    assert np.array_equal(record(world, controls), first)
    world.reset()
    assert np.array_equal(world.get_state(), s0)
    assert np.array_equal(record(world, controls), first)
    mid = world.get_state()
    assert mid[0] == pytest.approx(0.15) and np.isfinite(mid).all()
    world.set_state(mid)
    a = record(world, controls)
    world.set_state(mid)
    assert np.array_equal(record(world, controls), a)
    # A new world set to that state repeats it too (nothing of the run is left behind).
    fresh = sg.World.from_config(QUADRUPED)
    fresh.set_state(mid)
    assert np.array_equal(record(fresh, controls), a)
    # The body and robot parts of the state move (the test would see a stale copy).
    assert not np.array_equal(a[-1, 1:], mid[1:])


def arm_world(bodies, **kwargs):
    """The fixed-base arm of urdf/arm7.urdf (its links far from the bodies) with `bodies`."""
    model = sg.Model.from_urdf(ROOT / "urdf/arm7.urdf")
    return sg.World(model, bodies=bodies, **kwargs)


def test_a_dropped_ball_first_touches_the_ground_after_the_free_fall_time():
    """A ball released at rest with its bottom h above the ground: the first step with a
    normal impulse ends within one step of √(2h/g)."""
    radius, h = 0.05, 0.8
    ball = {"name": "ball", "shape": {"type": "sphere", "radius": radius}, "mass": 1.5, "position": [3.0, 0.0, radius + h]}
    world = arm_world([ball])
    g = -world.model.gravity[2]
    expected = math.sqrt(2.0 * h / g)
    touched = None
    while world.time < 2.0 * expected and touched is None:
        world.step()
        c = world.contacts()
        if any(b == "ball" and imp[2] > 0.0 for b, imp in zip(c.bodies, c.impulses)):
            touched = world.time
    assert touched is not None
    assert abs(touched - expected) <= world.dt, (touched, expected)


def test_a_box_at_rest_on_the_ground_weighs_m_g():
    """The contact forces on a box resting on the ground sum to (0, 0, m g); its contacts
    are below its bottom face's corners."""
    mass, size = 3.0, [0.3, 0.2, 0.1]
    crate = {"name": "crate", "shape": {"type": "box", "size": size}, "mass": mass, "position": [2.0, 1.0, size[2] / 2]}
    # The solver's tolerance bounds the impulses' error (1e-6 N·s by default: mN in force).
    world = arm_world([crate], contact={"tolerance": 1e-12})
    for _ in range(200):
        world.step()
    c = world.contacts()
    mine = [i for i, b in enumerate(c.bodies) if b == "crate"]
    assert len(mine) == 4
    total = c.forces[mine].sum(axis=0)
    g = -world.model.gravity[2]
    np.testing.assert_allclose(total, [0.0, 0.0, mass * g], rtol=0, atol=1e-8 * mass * g)
    np.testing.assert_allclose(np.abs(c.points[mine, :2] - [2.0, 1.0]), np.tile([0.15, 0.1], (4, 1)), atol=1e-6)
    np.testing.assert_allclose(c.normals[mine], np.tile([0.0, 0.0, 1.0], (4, 1)), atol=1e-12)
    # Frames are (Tx, Ty, N) columns, N the normal; forces = frame · impulse / dt.
    np.testing.assert_allclose(c.frames[mine][:, :, 2], c.normals[mine], atol=1e-12)
    forces = np.einsum("nij,nj->ni", c.frames, c.impulses) / world.dt
    np.testing.assert_allclose(forces, c.forces, atol=1e-12)
    np.testing.assert_allclose(world.body_velocities, 0.0, atol=1e-9)


def test_the_problem_of_a_world_step_solves_again_to_the_same_load():
    """ContactProblem.from_world gives the problem the crate's last step solved: solved again
    by the ADMM and by PGS, its normal impulses carry the weight over the step (m g Δt; the
    split between the four corners is not unique), and the step's own impulses meet it."""
    mass, size = 3.0, [0.3, 0.2, 0.1]
    crate = {"name": "crate", "shape": {"type": "box", "size": size}, "mass": mass, "position": [2.0, 1.0, size[2] / 2]}
    world = arm_world([crate], contact={"tolerance": 1e-12})
    for _ in range(200):
        world.step()
    problem = sg.ContactProblem.from_world(world)
    contacts = world.contacts()
    assert problem.num_contacts >= len(contacts) == 4
    weight = mass * -world.model.gravity[2] * world.dt
    step_normals = contacts.impulses[:, 2].sum()
    assert abs(step_normals - weight) < 1e-9 * weight
    for solver in ("admm", "pgs"):
        sol = sg.solve(problem, solver=solver, tol=1e-10, max_iterations=5000)
        assert sol.converged, solver
        normals = sol.impulses.reshape(-1, 3)[: len(contacts), 2].sum()
        assert abs(normals - weight) < 1e-6 * weight, (solver, normals, weight)
        assert sol.criteria.eps_abs < 1e-8


def foot_radius(urdf: pathlib.Path, link: str) -> float:
    """The radius of the collision sphere of `link` in the URDF (read with the XML parser)."""
    for node in ET.parse(urdf).getroot().iter("link"):
        if node.get("name") == link:
            return float(node.find("collision/geometry/sphere").get("radius"))
    raise KeyError(link)


def test_the_quadruped_stands_for_a_second_under_gravity_compensation_and_pd():
    """τ = g(q)'s joint rows + kp (q0 − q) − kd v: after 1 s the base is within 5 mm of the
    height at which the feet spheres touch the ground in the initial posture, and level."""
    world = sg.World.from_config(QUADRUPED)
    model, data = world.model, world.model.data()
    q0 = world.q.copy()
    sg.forward_kinematics(model, data, q0)
    feet = ["lf_foot", "lh_foot", "rf_foot", "rh_foot"]
    lowest = min(sg.frame_placement(model, data, f)[2, 3] for f in feet)
    touch = q0[2] - (lowest - foot_radius(ROOT / "urdf/quadruped.urdf", "lf_foot"))
    iq, iv = joint_slots(world)
    heights = []
    while world.time < 1.0 - 1e-9:
        tau = sg.gravity(model, data, world.q)[iv] + hold_pd(world, q0)
        world.step(tau)
        heights.append(world.q[2])
    assert abs(heights[-1] - touch) < 5e-3, (heights[-1], touch)
    assert max(heights[500:]) - min(heights[500:]) < 1e-3
    # Level: the quaternion's x and y stay near 0 (tilt below 0.01 rad).
    assert np.abs(world.q[3:5]).max() < 5e-3


def test_bad_keys_raise_naming_the_key():
    model = sg.Model.from_urdf(ROOT / "urdf/arm7.urdf")
    ok = {"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1.0, "position": [2, 0, 1]}
    cases = [
        ({"environment": {"ground": {"frictoin": 0.5}}}, "key `environment.ground.frictoin`: unknown field"),
        ({"environment": {"boxes": [{"name": "b", "size": [1, 1], "position": [0, 0, 0]}]}}, "environment.boxes[0].size"),
        ({"bodies": [dict(ok, mas=2.0)]}, "key `sim.bodies[0].mas`: unknown field"),
        ({"bodies": [{k: v for k, v in ok.items() if k != "mass"}]}, "key `sim.bodies[0].mass`: required, but missing"),
        ({"bodies": [dict(ok, mass=-1.0)]}, "key `sim.bodies[0].mass`: invalid value"),
        ({"contact": {"solver": "magic"}}, "key `contact.solver`: unknown variant `magic`"),
        ({"dt": -1e-3}, "key `sim.dt`"),
    ]
    for kwargs, message in cases:
        with pytest.raises(sg.Error) as e:
            sg.World(model, **kwargs)
        assert message in str(e.value), (kwargs, str(e.value))
        assert "line" not in str(e.value)
    with pytest.raises(ValueError, match=r"sim.bodies\[0\].position\[2\]: NaN \(must be finite\)"):
        sg.World(model, bodies=[dict(ok, position=[2, 0, float("nan")])])
    with pytest.raises(sg.Error, match="cannot read"):
        sg.World.from_config(ROOT / "config/no-such-file.yaml")


def test_the_sections_accept_numpy_values_and_apply_the_defaults():
    """numpy arrays and scalars are values like lists and floats; absent keys take the YAML
    file's defaults (contact solver admm, ground friction 1, dt 1e-3)."""
    model = sg.Model.from_urdf(ROOT / "urdf/arm7.urdf")
    ball = {"name": "ball", "shape": {"type": "sphere", "radius": np.float64(0.1)}, "mass": np.int64(2),
            "position": np.array([2.0, 0.0, 0.1])}
    world = sg.World(model, environment={"ground": {"height": 0.0}}, bodies=[ball], contact={"tolerance": 1e-8})
    assert world.dt == 1e-3 and world.body_names == ["ball"] and world.nu == model.nv
    np.testing.assert_array_equal(world.body_poses, [[2.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0]])


def test_body_setters_round_trip_in_the_world_frame():
    crate = {"name": "crate", "shape": {"type": "box", "size": [0.2, 0.2, 0.2]}, "mass": 1.0, "position": [2, 0, 1]}
    world = arm_world([crate])
    c, s = math.cos(0.35), math.sin(0.35)
    world.body_poses = np.array([[2.0, 0.5, 1.0, 0.0, 0.0, s, c]])
    twist = np.array([[0.1, -0.2, 0.3, 1.0, 2.0, -3.0]])
    world.body_velocities = twist
    np.testing.assert_allclose(world.body_velocities, twist, atol=1e-15)
    np.testing.assert_allclose(world.body_poses, [[2.0, 0.5, 1.0, 0.0, 0.0, s, c]], atol=1e-15)
    # The state holds the twist in the body frame: rotated by −0.7 rad about z.
    state = world.get_state()
    at = 1 + world.model.nq + world.model.nv
    rz = np.array([[math.cos(0.7), -math.sin(0.7), 0], [math.sin(0.7), math.cos(0.7), 0], [0, 0, 1]])
    np.testing.assert_allclose(state[at + 7 : at + 10], rz.T @ twist[0, :3], atol=1e-15)
    with pytest.raises(ValueError, match="quaternion is zero"):
        world.body_poses = np.array([[2.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0]])


def test_a_closed_world_raises():
    world = sg.World.from_config(QUADRUPED)
    world.close()
    for call in [lambda: world.step(), lambda: world.q, lambda: world.get_state(), lambda: world.contacts(),
                 lambda: world.reset(), lambda: world.nu, lambda: world.model, lambda: world.body_poses]:
        with pytest.raises(ValueError, match="world: closed"):
            call()
    world.close()  # closing twice is harmless


def test_bad_arguments_raise_naming_them():
    world = sg.World.from_config(QUADRUPED)
    with pytest.raises(ValueError, match=r"tau: shape \(3,\), expected \(12,\) = world.nu"):
        world.step(np.zeros(3))
    with pytest.raises(TypeError, match="tau: dtype int64"):
        world.step(np.zeros(12, dtype=np.int64))
    with pytest.raises(ValueError, match="tau: element 4 is NaN"):
        world.step(np.where(np.arange(12) == 4, np.nan, 0.0))
    with pytest.raises(ValueError, match="nstep: 0"):
        world.step(nstep=0)
    with pytest.raises(ValueError, match=r"state: shape \(5,\)"):
        world.set_state(np.zeros(5))
    with pytest.raises(ValueError, match="not C-contiguous"):
        world.q = np.zeros(38)[::2]
    assert world.time == 0.0


# Two links on continuous joints without effort limits: the Coriolis terms of a huge
# torque's velocity overflow within a few steps.
TWO_LINKS = """<robot name="two">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
  <joint name="j2" type="continuous"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
</robot>"""


def test_a_non_finite_step_raises_and_restores_the_state_before_it(tmp_path):
    urdf = tmp_path / "two.urdf"
    urdf.write_text(TWO_LINKS)
    world = sg.World(sg.Model.from_urdf(urdf), environment={"ground": None})
    assert world.nu == 2
    world.step(np.array([1.0, -1.0]), nstep=3)
    with pytest.raises(sg.Error, match=r"non-finite at t = [0-9.]+ s \(step \d+ of 50\); the state before that step"):
        world.step(np.array([1e300, -1e300]), nstep=50)
    state = world.get_state()
    assert np.isfinite(state).all() and state[0] >= 3e-3
    assert np.isfinite(world.q).all() and np.isfinite(world.v).all()
    world.reset()
    assert world.time == 0.0


def test_step_releases_the_gil():
    """A Python thread that counts and yields the GIL (sleep(0)) advances while `step`
    runs: with a switch interval longer than the test, the main thread gives the GIL up
    only when it waits, so with the GIL held through `step` the count could not move."""
    import sys
    import threading
    import time

    world = sg.World.from_config(QUADRUPED)
    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    thread = threading.Thread(target=spin)
    try:
        thread.start()
        before = count[0]
        world.step(nstep=3000)
        during = count[0] - before
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert during > 0
    assert world.time == pytest.approx(3.0)

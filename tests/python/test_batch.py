"""signorini.Batch and signorini.rollout: N worlds of one configuration on several threads.

References: determinism and independence are checked bit for bit against the same worlds
stepped alone or on another thread count; the physics of the per-world parameters against
closed forms — a box sliding to rest on flat ground travels v0²/(2 μ g), a box dropped
from h first touches the ground after √(2h/g), a box at rest weighs m g (m from the URDF
through Model.from_urdf) — per world.
"""

import math

import numpy as np
import pytest

import signorini

G = 9.81  # the configurations' gravity, m/s²
DT = 1e-3  # sim.dt of the configurations (rate_hz 1000)
HALF = 0.05  # half side of urdf/cube.urdf's box, m


@pytest.fixture(scope="module")
def quadruped(root):
    return str(root / "config" / "quadruped.yaml")


@pytest.fixture(scope="module")
def cube(root):
    return str(root / "config" / "cube.yaml")


def random_controls(batch, steps, seed=7, scale=5.0):
    """Seeded joint torques (N, T, nu), N·m."""
    rng = np.random.default_rng(seed)
    return scale * rng.standard_normal((batch.num_worlds, steps, batch.nu))


def cube_states(batch, z, vx=0.0):
    """The cube's state vectors (N, nstate): at rest at height z (centre), identity
    orientation, x velocity vx."""
    s = np.zeros((batch.num_worlds, batch.nstate))
    s[:, 1 + 2] = z
    s[:, 1 + 6] = 1.0  # qw
    s[:, 1 + batch.nq] = vx
    return s


def test_results_are_bit_identical_whatever_the_thread_count(quadruped):
    n, steps = 5, 200
    finals, forces = [], []
    for threads in (1, 2, 3):
        b = signorini.Batch(quadruped, n, num_threads=threads)
        u = random_controls(b, steps)
        for t in range(steps):
            b.step(np.ascontiguousarray(u[:, t]))
        finals.append(b.get_state())
        forces.append(b.contact_forces.copy())
    assert np.all(np.isfinite(finals[0]))
    assert not np.array_equal(finals[0][0], finals[0][1])  # the worlds did differ
    for other, f in zip(finals[1:], forces[1:]):
        assert np.array_equal(finals[0], other)
        assert np.array_equal(forces[0], f)


def test_a_batch_equals_its_worlds_rolled_out_alone(quadruped):
    n, steps = 4, 150
    b = signorini.Batch(quadruped, n, num_threads=2)
    s0 = np.repeat(b.get_state()[:1], n, axis=0)
    s0[:, 3] += np.linspace(0.0, 0.03, n)  # base heights differ
    u = random_controls(b, steps, seed=3)
    together = signorini.rollout(b, s0, u)
    single = signorini.Batch(quadruped, 1)
    for i in range(n):
        alone = signorini.rollout(single, s0[i : i + 1], np.ascontiguousarray(u[i : i + 1]))
        assert np.array_equal(together[i], alone[0]), f"world {i}"


def test_rollout_equals_stepping_one_step_at_a_time(quadruped):
    n, steps = 3, 100
    a, b = signorini.Batch(quadruped, n), signorini.Batch(quadruped, n)
    s0 = a.get_state()
    u = random_controls(a, steps, seed=11)
    out = signorini.rollout(a, s0, u)
    assert out.shape == (n, steps, a.nstate)
    b.set_state(s0)
    for t in range(steps):
        b.step(np.ascontiguousarray(u[:, t]))
        assert np.array_equal(out[:, t], b.get_state()), f"step {t}"
    assert np.array_equal(a.get_state(), b.get_state())  # the batch left at the final states
    assert np.allclose(out[:, -1, 0], steps * DT)


def test_rollout_from_a_configuration_path_and_into_out(quadruped):
    b = signorini.Batch(quadruped, 2)
    s0, u = b.get_state(), random_controls(b, 20)
    out = np.full((2, 20, b.nstate), np.nan)
    returned = signorini.rollout(quadruped, s0, u, state=out)
    assert returned is out
    assert np.array_equal(out, signorini.rollout(b, s0, u))


def test_views_are_live_and_a_write_changes_that_world_only(quadruped):
    n = 4
    a, b = signorini.Batch(quadruped, n), signorini.Batch(quadruped, n)
    q, v, time = a.q, a.v, a.time
    assert q.shape == (n, a.nq) and v.shape == (n, a.nv) and time.shape == (n,)
    assert a.contact_forces.shape == (n, a.max_contacts, 3) and a.contact_counts.dtype == np.int64
    s = b.get_state()
    s[2, 1 + 2] += 0.05  # world 2's base 5 cm higher
    s[2, 1 + a.nq + 6] = 0.3  # and its first joint moving
    q[2, 2] += 0.05
    v[2, 6] = 0.3
    b.set_state(s)
    a.step(nstep=30)
    b.step(nstep=30)
    assert np.array_equal(a.get_state(), b.get_state())
    assert np.array_equal(q, a.get_state()[:, 1 : 1 + a.nq])  # the view shows the new state
    assert np.allclose(time, 30 * DT)
    same = [i for i in range(n) if np.array_equal(q[i], q[0])]
    assert same == [0, 1, 3]
    assert np.all(a.contact_counts > 0) and np.all(a.contact_forces[:, :, 2].sum(axis=1) > 0)
    with pytest.raises(ValueError):
        time[0] = 1.0  # read-only


def test_friction_per_world_sets_the_sliding_distance(cube):
    mus = np.array([0.2, 0.5, 1.0])
    v0 = 1.0
    b = signorini.Batch(cube, len(mus))
    b.set_friction(mus)
    b.set_state(cube_states(b, HALF, vx=v0))
    x0 = b.q[:, 0].copy()
    b.step(nstep=int(0.8 / DT))
    d = b.q[:, 0] - x0
    expected = v0**2 / (2 * mus * G)
    # Semi-implicit Euler decelerates by exactly μ g Δt per step: the distance is the
    # closed form's to within one step's travel v0 Δt.
    assert np.all(np.abs(d - expected) <= v0 * DT + 1e-3 * expected), (d, expected)
    assert np.allclose(b.v[:, :3], 0.0, atol=1e-5)  # at rest to the solver's tolerance


def test_gravity_per_world_sets_the_drop_time(cube):
    gs = np.array([4.9, 9.81, 19.6])
    h = 0.2
    b = signorini.Batch(cube, len(gs))
    b.set_gravity(np.stack([np.zeros(3), np.zeros(3), -gs], axis=1))
    b.set_state(cube_states(b, HALF + h))
    touched = np.full(len(gs), np.nan)
    for k in range(1, 400):
        b.step()
        pushed = b.contact_forces[:, :, 2].sum(axis=1) > 1e-9
        touched[np.isnan(touched) & pushed] = k * DT
    expected = np.sqrt(2 * h / gs)
    assert np.all(np.abs(touched - expected) <= 2 * DT), (touched, expected)


def test_mass_scale_per_world_scales_the_weight(cube, root):
    mass = signorini.Model.from_urdf(root / "urdf" / "cube.urdf", floating_base=True).total_mass
    scales = np.array([0.5, 1.0, 3.0])
    b = signorini.Batch(cube, len(scales))
    b.set_mass_scale(scales)
    b.set_state(cube_states(b, HALF))
    b.step(nstep=200)
    weight = b.contact_forces[:, :, 2].sum(axis=1)
    # To 1e-3: the contact's position stabilization still acts on the last 0.1 mm of
    # settling (a 0.5 or 3 scale is 500 or 2000 times that).
    assert np.allclose(weight, scales * mass * G, rtol=1e-3), (weight, scales * mass * G)


def test_reset_of_one_world_leaves_the_others(quadruped):
    n = 3
    b = signorini.Batch(quadruped, n)
    initial = b.get_state()
    u = random_controls(b, 50, seed=5)
    for t in range(50):
        b.step(np.ascontiguousarray(u[:, t]))
    before = b.get_state()
    b.reset([1])
    after = b.get_state()
    assert np.array_equal(after[1], initial[1])
    assert np.array_equal(after[[0, 2]], before[[0, 2]])
    assert b.contact_counts[1] == 0 and np.all(b.contact_forces[1] == 0)
    # A reset world replays its first steps exactly (warm start forgotten).
    fresh = signorini.Batch(quadruped, n)
    for t in range(20):
        b.step(np.ascontiguousarray(u[:, t]))
        fresh.step(np.ascontiguousarray(u[:, t]))
    assert np.array_equal(b.get_state()[1], fresh.get_state()[1])


def test_set_initial_state_is_where_reset_returns(quadruped):
    b = signorini.Batch(quadruped, 2)
    s = b.get_state()
    s[:, 3] += np.array([0.01, 0.02])
    s[:, 0] = 0.5  # ignored: a reset is at time 0
    b.set_initial_state(s)
    b.step(nstep=10)
    b.reset()
    got = b.get_state()
    assert np.all(got[:, 0] == 0.0)
    assert np.allclose(got[:, 1:], s[:, 1:], atol=1e-15)


def test_a_diverging_world_is_reset_and_flagged(quadruped):
    b = signorini.Batch(quadruped, 3)
    initial = b.get_state()
    b.v[1, :] = 1e300  # overflows to inf within a step
    b.step()
    assert list(b.diverged) == [False, True, False]
    assert np.all(np.isfinite(b.q)) and np.all(np.isfinite(b.v)) and np.all(np.isfinite(b.contact_forces))
    assert np.array_equal(b.get_state()[1], initial[1])
    assert b.stats()["divergences"] == 1
    b.reset([1])
    assert not b.diverged[1]


def test_stats_count_steps_and_the_ncp_criterion(quadruped):
    b = signorini.Batch(quadruped, 2)
    b.step(nstep=100)
    s = b.stats()
    assert s["steps"] == 200 and s["contacts"] > 0 and s["unconverged"] == 0
    assert 0.0 <= s["max_criterion"] < math.inf
    assert 0 <= s["above_1e-6"] <= s["steps"]
    assert (s["above_1e-6"] > 0) == (s["max_criterion"] > 1e-6)
    b.reset_stats()
    assert b.stats()["steps"] == 0


def test_one_model_is_shared_until_a_world_changes_it(quadruped):
    # The standing quadruped under the hold PD: worlds with the configuration's physics
    # stay identical, the heavier world sinks lower on its PD.
    b = signorini.Batch(quadruped, 3)
    b.set_mass_scale(np.array([1.0, 1.5, 1.0]))
    b.step(nstep=300)
    z = b.q[:, 2]
    assert z[0] == z[2] and z[1] < z[0]


def bad(call, kind, *words):
    with pytest.raises(kind) as e:
        call()
    for w in words:
        assert w in str(e.value), str(e.value)


def test_bad_inputs_name_the_argument(quadruped, cube):
    b = signorini.Batch(quadruped, 2)
    nu, ns = b.nu, b.nstate
    bad(lambda: signorini.Batch(quadruped, 0), ValueError, "num_worlds")
    bad(lambda: signorini.Batch(quadruped, 2, num_threads=0), ValueError, "num_threads")
    bad(lambda: signorini.Batch(42, 2), TypeError, "world")
    bad(lambda: signorini.Batch("/nonexistent.yaml", 2), signorini.Error, "nonexistent")
    bad(lambda: b.step(np.zeros((2, nu + 1))), ValueError, "tau", "(2, 12)")
    bad(lambda: b.step(np.zeros((2, nu), dtype=np.float32)), TypeError, "tau", "float64")
    bad(lambda: b.step(np.full((2, nu), np.nan)), ValueError, "tau", "NaN")
    bad(lambda: b.step(np.zeros((nu, 2)).T), ValueError, "tau", "contiguous")
    bad(lambda: b.step(nstep=0), ValueError, "nstep")
    bad(lambda: b.reset([2]), IndexError, "worlds")
    bad(lambda: b.set_friction(np.array([0.5, -1.0])), ValueError, "mu", "world 1")
    bad(lambda: b.set_mass_scale(np.array([1.0, 0.0])), ValueError, "scale", "world 1")
    bad(lambda: b.set_gravity(np.zeros(2)), ValueError, "gravity")
    zero_quaternion = b.get_state()
    zero_quaternion[1, 4:8] = 0.0
    bad(lambda: b.set_state(np.zeros((2, ns)) + zero_quaternion), ValueError, "state", "world 1")
    bad(lambda: signorini.rollout(b, b.get_state(), np.zeros((2, 5, nu + 1))), ValueError, "control")
    bad(lambda: signorini.rollout(b, np.zeros((3, ns)), np.zeros((3, 5, nu))), ValueError, "initial_state")
    bad(lambda: signorini.rollout(b, b.get_state(), [[0.0]]), TypeError, "control")
    bad(lambda: signorini.rollout(b, b.get_state(), np.zeros((2, 5, nu)), state=np.zeros((2, 4, ns))),
        ValueError, "state")
    bad(lambda: signorini.rollout(3.5, b.get_state(), np.zeros((2, 5, nu))), TypeError, "world")
    q = b.q
    q[0, 3] = np.nan
    bad(lambda: b.step(), ValueError, "q[0]", "NaN")
    q[0, 3:7] = 0.0
    bad(lambda: b.step(), ValueError, "q[0]", "zero")
    q[0, 6] = 1.0
    b.close()
    bad(lambda: b.step(), ValueError, "closed")
    bad(lambda: b.get_state(), ValueError, "closed")
    assert q.shape == (2, b.nq)  # the views outlive close()


def test_a_worker_panic_becomes_internal_error(quadruped):
    b = signorini.Batch(quadruped, 4, num_threads=2)
    b._fault(3)
    bad(lambda: b.step(), signorini.InternalError, "worker", "world 3")
    bad(lambda: b.step(), ValueError, "closed")


def test_a_batch_of_a_world_steps_as_that_world(root):
    """Batch(world) builds N worlds as `world` was built (a configuration, or a model and
    sections), each at its initial state: their steps equal the world's own, bit for bit."""
    sg = signorini
    model = sg.Model.from_urdf(root / "urdf/arm7.urdf")
    ball = {"name": "ball", "shape": {"type": "sphere", "radius": 0.05}, "mass": 1.0, "position": [1.0, 0.0, 0.3]}
    for world in (sg.World.from_config(root / "config/quadruped.yaml"), sg.World(model, bodies=[ball])):
        batch = sg.Batch(world, 2, num_threads=1)
        assert (batch.nu, batch.nstate) == (world.nu, world.nstate)
        assert np.array_equal(batch.get_state(), np.tile(world.get_state(), (2, 1)))
        rng = np.random.default_rng(2)
        control = rng.normal(scale=0.5, size=(2, 30, world.nu))
        states = sg.rollout(world, batch.get_state(), control)
        for k in range(30):
            world.step(control[0, k])
        assert np.array_equal(states[0, -1], world.get_state())

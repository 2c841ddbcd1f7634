"""Bad input from Python raises a Python exception naming the argument, never a crash:
wrong shapes, wrong dtypes (int, float32, a list), NaN and inf, a non-contiguous array,
an `out=` of the wrong shape or read-only, unknown frame and solver names, a Data of
another model, a missing or malformed URDF or configuration (signorini.Error naming the
file), across the dynamics, the contact problem and its solvers, and the controller; and
a Rust panic reaches Python as signorini.InternalError, never as pyo3's PanicException."""

import numpy as np
import pytest

import signorini as sg
from conftest import ROOT

ARGUMENT_ERRORS = (TypeError, ValueError, KeyError, IndexError)


def refused(call, name, kind=ARGUMENT_ERRORS):
    """`call()` raises `kind` with `name` in its message; returns the message."""
    with pytest.raises(kind) as e:
        call()
    message = str(e.value)
    assert name in message, message
    return message


def bad_arrays(good):
    """Variants of the valid float64 array `good`, each wrong in one way."""
    nan, inf = good.copy(), good.copy()
    nan[0], inf[-1] = np.nan, np.inf
    wide = np.zeros(2 * good.size).reshape(*good.shape[:-1], 2 * good.shape[-1])
    return {
        "short": good[..., :-1].copy(),
        "int": good.astype(np.int64),
        "float32": good.astype(np.float32),
        "list": good.tolist(),
        "nan": nan,
        "inf": inf,
        "strided": wide[..., ::2],
        "2d": good.reshape(1, *good.shape),
    }


# ---------------------------------------------------------------------------------------
# Dynamics


@pytest.fixture(scope="module")
def quadruped():
    model = sg.Model.from_urdf(ROOT / "urdf/quadruped.urdf", floating_base=True, skip_meshes=True)
    return model, model.data(), model.neutral(), np.zeros(model.nv)


@pytest.mark.parametrize("variant", list(bad_arrays(np.zeros(3))))
def test_dynamics_refuse_every_bad_array_by_name(quadruped, variant):
    model, data, q, v = quadruped
    bq, bv = bad_arrays(q)[variant], bad_arrays(v)[variant]
    refused(lambda: sg.rnea(model, data, bq, v, v), "q")
    refused(lambda: sg.rnea(model, data, q, v, bv), "a")
    refused(lambda: sg.aba(model, data, q, bv, v), "v")
    refused(lambda: sg.aba(model, data, q, v, bv), "tau")
    refused(lambda: sg.crba(model, data, bq), "q")
    refused(lambda: sg.gravity(model, data, bq), "q")
    refused(lambda: sg.jacobian(model, data, bq, "lf_foot"), "q")
    refused(lambda: sg.forward_kinematics(model, data, q, bv), "v")
    refused(lambda: sg.integrate(model, q, bv), "v")
    refused(lambda: sg.difference(model, bq, q), "q0")


def test_out_of_the_wrong_shape_or_read_only_is_refused(quadruped):
    model, data, q, v = quadruped
    refused(lambda: sg.rnea(model, data, q, v, v, out=np.zeros(model.nv + 1)), "out")
    refused(lambda: sg.crba(model, data, q, out=np.zeros((model.nv, model.nv + 1))), "out")
    refused(lambda: sg.rnea(model, data, q, v, v, out=np.zeros(model.nv, dtype=np.float32)), "out")
    frozen = np.zeros(model.nv)
    frozen.flags.writeable = False
    refused(lambda: sg.rnea(model, data, q, v, v, out=frozen), "out")
    refused(lambda: sg.gravity(model, data, q, out=np.zeros(2 * model.nv)[::2]), "out")


def test_unknown_frames_and_references_are_refused(quadruped):
    model, data, q, _ = quadruped
    sg.forward_kinematics(model, data, q)
    refused(lambda: sg.frame_placement(model, data, "no_such_frame"), "no_such_frame", KeyError)
    refused(lambda: sg.frame_placement(model, data, 10_000), "frame", IndexError)
    refused(lambda: sg.frame_placement(model, data, -1), "frame", IndexError)
    refused(lambda: sg.jacobian(model, data, q, "no_such_frame"), "no_such_frame", KeyError)
    refused(lambda: sg.jacobian(model, data, q, "lf_foot", reference="body"), "reference", ValueError)
    refused(lambda: model.frame_id("no_such_frame"), "no_such_frame", KeyError)


def test_a_data_of_another_model_is_refused(quadruped):
    model, _, q, v = quadruped
    other = sg.Model.from_urdf(ROOT / "urdf/arm7.urdf", skip_meshes=True).data()
    refused(lambda: sg.rnea(model, other, q, v, v), "data", ValueError)
    refused(lambda: sg.crba(model, other, q), "data", ValueError)


def test_a_missing_or_malformed_urdf_raises_signorini_error_naming_the_file(tmp_path):
    missing = tmp_path / "nowhere.urdf"
    refused(lambda: sg.Model.from_urdf(missing), str(missing), sg.Error)
    for name in ("cycle.urdf", "duplicate_link.urdf", "nan_origin.urdf", "negative_mass.urdf"):
        path = ROOT / "tests/fixtures/malformed" / name
        message = refused(lambda: sg.Model.from_urdf(path), name, sg.Error)
        assert "\n" not in message, message
    garbage = tmp_path / "garbage.urdf"
    garbage.write_text("<robot name='x'><link name=")
    refused(lambda: sg.Model.from_urdf(garbage), str(garbage), sg.Error)


# ---------------------------------------------------------------------------------------
# The contact problem and its solvers


def problem_arrays():
    return np.eye(3), np.array([0.0, 0.0, -1e-2]), np.array([0.5]), np.zeros(3)


@pytest.mark.parametrize("variant", list(bad_arrays(np.zeros(3))))
def test_contact_problem_refuses_every_bad_array_by_name(variant):
    G, g, mu, r = problem_arrays()
    refused(lambda: sg.ContactProblem(G, bad_arrays(g)[variant], mu), "g")
    refused(lambda: sg.ContactProblem(G, g, mu, bad_arrays(r)[variant]), "compliance")
    refused(lambda: sg.ContactProblem(bad_arrays(G)[variant], g, mu), "G")
    if variant not in ("short", "strided"):  # mu sizes the others: a short mu is caught on g
        refused(lambda: sg.ContactProblem(G, g, bad_arrays(mu)[variant]), "mu")


def test_contact_problem_refuses_what_no_problem_is():
    G, g, mu, r = problem_arrays()
    asymmetric = G.copy()
    asymmetric[0, 2] = 0.5
    refused(lambda: sg.ContactProblem(asymmetric, g, mu), "G", ValueError)
    refused(lambda: sg.ContactProblem(G, g, np.array([-0.5])), "mu", ValueError)
    refused(lambda: sg.ContactProblem(G, g, mu, np.array([0.0, 0.0, -1.0])), "compliance", ValueError)
    refused(lambda: sg.ContactProblem(G, g, np.array([0.5, 0.5])), "g", ValueError)


def test_solve_and_criteria_refuse_bad_arguments_by_name():
    p = sg.ContactProblem(*problem_arrays())
    refused(lambda: sg.solve(p, "newton"), "solver", KeyError)
    refused(lambda: sg.solve(p, model="lcp"), "model", ValueError)
    for tol in (np.nan, -1.0, np.inf):
        refused(lambda: sg.solve(p, tol=tol), "tol", ValueError)
    for dt in (0.0, -1e-3, np.nan):
        refused(lambda: sg.solve(p, dt=dt), "dt", ValueError)
        refused(lambda: sg.criteria(p, np.zeros(3), dt=dt), "dt", ValueError)
    refused(lambda: sg.solve(p, max_iterations=-1), "max_iterations", (OverflowError, TypeError, ValueError))
    for name, bad in bad_arrays(np.zeros(3)).items():
        refused(lambda: sg.solve(p, warm_start=bad), "warm_start")
        refused(lambda: sg.criteria(p, bad), "impulses")
    two = sg.ContactProblem(np.eye(6), np.zeros(6), np.array([0.5, 0.5]))
    refused(lambda: sg.solve(p, warm_start=sg.solve(two)), "warm_start", ValueError)
    refused(lambda: sg.solve(p, warm_start="solution"), "warm_start", TypeError)
    refused(lambda: sg.criteria(p, np.zeros(3), model="mdp"), "model", ValueError)


def test_every_solver_on_empty_and_infeasible_problems_answers_finitely_or_raises():
    """No contact; and a contact pushed into (g_N < 0) whose normal row of G is zero (no
    impulse can stop it: no solution), with G = 0 or only its normal diagonal zero: each
    solver answers finite values or raises signorini.Error; none crashes. PGS and the LCP,
    which divided by that diagonal (a NaN the binding refused), take no step along it and
    answer finitely."""
    empty = sg.ContactProblem(np.zeros((0, 0)), np.zeros(0), np.zeros(0))
    g = np.array([0.3, 0.0, -1.0])
    infeasible = [sg.ContactProblem(G, g, np.array([0.5])) for G in (np.zeros((3, 3)), np.diag([1.0, 1.0, 0.0]))]
    raised = set()
    for solver in sg.SOLVERS:
        for model in sg.MODELS:
            for p in [empty, *infeasible]:
                try:
                    r = sg.solve(p, solver, model=model, max_iterations=50)
                except sg.Error as e:
                    assert "\n" not in str(e) and solver in str(e), str(e)
                    raised.add(solver)
                    continue
                assert r.impulses.shape == (3 * p.num_contacts,), solver
                assert np.isfinite(r.impulses).all() and np.isfinite(r.velocities).all(), solver
    print("refused (non-finite):", sorted(raised))
    assert not raised & {"pgs", "lcp"}, raised


# ---------------------------------------------------------------------------------------
# The controller


@pytest.fixture(scope="module")
def controller():
    return sg.Controller.from_config(ROOT / "config/quadruped.yaml")


def test_tick_refuses_every_bad_array_by_name(controller):
    model = controller.model
    q, v = model.neutral(), np.zeros(model.nv)
    for variant in bad_arrays(np.zeros(3)):
        refused(lambda: controller.tick(bad_arrays(q)[variant], v), "q")
        refused(lambda: controller.tick(q, bad_arrays(v)[variant]), "v")
        refused(lambda: controller.tick(q, v, q_des=bad_arrays(q)[variant]), "q_des")
        refused(lambda: controller.tick(q, v, v_des=bad_arrays(v)[variant]), "v_des")
        refused(lambda: controller.tick(q, v, a_des=bad_arrays(v)[variant]), "a_des")
    tau, _ = controller.tick(q, v)  # still usable after every refusal
    assert np.isfinite(tau).all()


def test_a_missing_or_malformed_configuration_raises_signorini_error_naming_the_file(tmp_path):
    missing = tmp_path / "nowhere.yaml"
    refused(lambda: sg.Controller.from_config(missing), str(missing), sg.Error)
    for name in ("nan.yaml", "negative_compliance.yaml", "huge_rate.yaml"):
        path = ROOT / "tests/fixtures/malformed" / name
        message = refused(lambda: sg.Controller.from_config(path), name, sg.Error)
        print(message)
    broken = tmp_path / "broken.yaml"
    broken.write_text("robot: [unclosed\n")
    refused(lambda: sg.Controller.from_config(broken), str(broken), sg.Error)


# ---------------------------------------------------------------------------------------
# A panic


def test_a_rust_panic_reaches_python_as_internal_error():
    """No public entry point panics on any input above; the guard every one of them runs
    in is tested through the hidden `_panic_for_tests`, which panics inside it."""
    from signorini import _signorini

    with pytest.raises(sg.InternalError) as e:
        _signorini._panic_for_tests()
    assert "a panic on purpose" in str(e.value) and "_panic_for_tests" in str(e.value)
    assert isinstance(e.value, sg.Error) and isinstance(e.value, Exception)

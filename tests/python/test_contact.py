"""The acceptance problems of the contact tests (tests/contact_acceptance.rs,
tests/contact_solvers.rs, tests/contact_pinocchio.rs) solved through `import signorini`,
with the same answers and tolerances as the Rust tests: the point mass of seeds 000–004
in closed form (AT-03/04/05/07/12/15, SAP's A7, V-FPI's virtual nodes), cube stacks built
here in numpy from rigid-body kinematics (AT-08, AT-09; the builder is checked against
Pinocchio's cube_stack_4 fixture), random strictly convex CCPs on which every CCP solver
agrees (A10), and Pinocchio's ADMM solutions of the fixtures of
scripts/gen_contact_fixtures.py. Warm starts from a solution are checked per solver."""

import json

import numpy as np
import pytest

import signorini as sg
from conftest import ROOT

DT = 1e-3
G0 = 9.81
FIXTURES = ["quadruped_standing", "solo12_standing", "solo12_sliding", "cube_stack_4"]
SIDE = 0.1  # the cubes of src/scenes/problems.rs and of the cube_stack_4 fixture (m)


def point_mass(g, mu, r=(0.0, 0.0, 0.0), m=1.0):
    """A single contact of a point mass m on a plane: G = I/m, g the free velocity."""
    return sg.ContactProblem(np.eye(3) / m, np.asarray(g, dtype=float), np.array([mu]), np.asarray(r, dtype=float))


def project_cone(mu, x):
    """Euclidean projection onto K_μ (normal last), as scripts/gen_contact_fixtures.py."""
    t, n = np.hypot(x[0], x[1]), x[2]
    if t <= mu * n:
        return np.array(x, dtype=float)
    if mu * t <= -n:
        return np.zeros(3)
    alpha = (mu * t + n) / (1.0 + mu * mu)
    return np.array([mu * alpha * x[0] / t, mu * alpha * x[1] / t, alpha])


def skew(p):
    return np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])


def cube_stack(masses, mu):
    """Aligned cubes of side SIDE stacked from the ground, at rest, one step DT under
    gravity: 4 corner contacts under each cube (frames = world axes, normal up). Each cube
    is a free body with velocity (v, ω) at its centre; a contact's velocity is
    Cᵀ(v₁(p) − v₂(p)) with v_b(p) = v_b + ω_b × (p − x_b) (body1 the upper cube).
    Returns (problem, owner of each contact: index of the cube below, -1 the ground)."""
    h, nb = SIDE / 2, len(masses)
    rows, below = [], []
    for k in range(nb):
        for sx in (-1.0, 1.0):
            for sy in (-1.0, 1.0):
                p = np.array([sx * h, sy * h, SIDE * k])
                J = np.zeros((3, 6 * nb))
                for body, sign in ((k, 1.0), (k - 1, -1.0)):
                    if body < 0:
                        continue
                    centre = np.array([0.0, 0.0, h + SIDE * body])
                    J[:, 6 * body:6 * body + 3] = sign * np.eye(3)
                    J[:, 6 * body + 3:6 * body + 6] = -sign * skew(p - centre)
                rows.append(J)
                below.append(k - 1)
    J = np.vstack(rows)
    m_inv = np.zeros(6 * nb)
    v_free = np.zeros(6 * nb)
    for b, m in enumerate(masses):
        inertia = m * 2 * SIDE ** 2 / 12.0  # a solid cube about its centre
        m_inv[6 * b:6 * b + 6] = [1 / m] * 3 + [1 / inertia] * 3
        v_free[6 * b + 2] = -G0 * DT
    G = J @ np.diag(m_inv) @ J.T
    G = 0.5 * (G + G.T)
    n = len(below)
    return sg.ContactProblem(G, J @ v_free, np.full(n, mu)), np.array(below)


def fixture(name):
    return json.loads((ROOT / "tests/fixtures/contact" / f"{name}.json").read_text())


def fixture_problem(f):
    p = f["problem"]
    return sg.ContactProblem(np.array(p["G"]), np.array(p["g"]), np.array(p["mu"], dtype=float))


def max_diff(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max())


# ---------------------------------------------------------------------------------------
# The problem's arrays


def test_problem_arrays_read_back_and_the_lists_of_solvers_and_models():
    f = fixture("solo12_standing")
    p = fixture_problem(f)
    assert p.num_contacts == 4
    np.testing.assert_array_equal(p.G, np.array(f["problem"]["G"]))
    np.testing.assert_array_equal(p.g, np.array(f["problem"]["g"]))
    np.testing.assert_array_equal(p.mu, np.array(f["problem"]["mu"]))
    np.testing.assert_array_equal(p.compliance, np.zeros(12))
    q = point_mass([0, 0, -1], 0.5, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(q.compliance, [0.1, 0.2, 0.3])
    assert set(sg.SOLVERS) == {"admm", "pgs", "lcp", "chrono-admm", "chrono-fadmm", "sap", "vfpi", "vfpi-block"}
    assert sg.MODELS == ("ncp", "ccp")


def test_the_cube_stack_builder_reproduces_pinocchios_cube_stack_fixture():
    """The numpy builder of the stacks below against Pinocchio's G and g (the fixture)."""
    f = fixture("cube_stack_4")
    p, _ = cube_stack([1.0, 10.0, 100.0, 1000.0], 0.5)
    theirs = fixture_problem(f)
    dg, dv = max_diff(p.G, theirs.G), max_diff(p.g, theirs.g)
    print(f"cube_stack_4: |ΔG| {dg:.1e} of {np.abs(theirs.G).max():.1f}, |Δg| {dv:.1e}")
    assert dg <= 1e-12 * np.abs(theirs.G).max() and dv <= 1e-15


# ---------------------------------------------------------------------------------------
# The point mass in closed form (contact_acceptance.rs, contact_solvers.rs)


@pytest.mark.parametrize("solver", ["admm", "pgs", "lcp", "chrono-admm", "chrono-fadmm"])
def test_at03_a_point_mass_at_rest_is_held_by_its_weight(solver):
    """AT-03 (ADMM, PGS to 1e-10; Chrono's two to 1e-12; the LCP holds it too)."""
    p = point_mass([0.0, 0.0, -G0 * DT], 0.5)
    tol = 1e-12 if solver.startswith("chrono") else 1e-10
    r = sg.solve(p, solver, tol=tol, max_iterations=5000, dt=DT)
    assert r.converged, (solver, r.residuals)
    assert max_diff(r.impulses, [0.0, 0.0, G0 * DT]) < tol, (solver, r.impulses)
    assert np.abs(r.velocities).max() < 1e-10
    assert r.criteria.eps_abs < 1e-6, r.criteria


@pytest.mark.parametrize("phi_deg", [0.0, 30.0, 137.0])
def test_at04_sliding_keeps_its_heading_and_stops_at_the_analytic_time(phi_deg):
    """AT-04: λ = (−μλ_N·slip direction, m g₀Δt) to 1e-10, the heading kept to 1e-9;
    stepped with warm starts from each previous Solution, the kinetic energy follows
    ½(u − μg₀t)² to 1e-9 and the mass stops at t* = u/(μg₀) within a step."""
    mu, u, phi = 0.5, 1.0, np.radians(phi_deg)
    d = np.array([np.cos(phi), np.sin(phi)])
    p = point_mass([u * d[0], u * d[1], -G0 * DT], mu)
    r = sg.solve(p, "admm", tol=1e-12, max_iterations=500)
    assert r.converged
    assert abs(r.impulses[2] - 9.81e-3) < 1e-10
    assert max_diff(r.impulses[:2], -4.905e-3 * d) < 1e-10
    c = r.velocities
    assert abs(c[2]) < 1e-10 and abs(np.hypot(c[0], c[1]) - 0.995095) < 1e-10
    assert abs(np.arctan2(c[1], c[0]) - np.arctan2(d[1], d[0])) < 1e-9
    v, warm, stopped = u * d, None, None
    for k in range(1, 301):
        p = point_mass([v[0], v[1], -G0 * DT], mu)
        warm = sg.solve(p, "admm", tol=1e-12, max_iterations=500, warm_start=warm)
        assert warm.converged, k
        v = warm.velocities[:2].copy()
        speed, t = np.hypot(*v), k * DT
        analytic = max(u - mu * G0 * t, 0.0)
        assert abs(0.5 * speed ** 2 - 0.5 * analytic ** 2) < 1e-9, (k, speed, analytic)
        if speed < 1e-12 and stopped is None:
            stopped = t
    assert stopped is not None and abs(stopped - u / (mu * G0)) <= DT, stopped


@pytest.mark.parametrize("solver", ["admm", "chrono-admm", "chrono-fadmm"])
def test_at05_the_ccp_lifts_a_sliding_mass_and_the_ncp_criterion_flags_it(solver):
    """AT-05: the CCP's λ = P_K(−g) (ADMM to 1e-9, Chrono's to 1e-11), λ_N = 0.407848,
    c_N = μ‖c_T‖ = 0.398038; against the NCP (the Solution's criteria) ε_c = μλ_N‖c_T‖
    ≈ 0.162, all of it Signorini; against the CCP (criteria(..., "ccp")) a solution."""
    mu, u = 0.5, 1.0
    p = point_mass([u, 0.0, -G0 * DT], mu)
    r = sg.solve(p, solver, model="ccp", tol=1e-12, max_iterations=5000)
    assert r.converged
    tol = 1e-9 if solver == "admm" else 1e-11
    assert max_diff(r.impulses, project_cone(mu, [-u, 0.0, G0 * DT])) < tol
    lambda_n = (mu * u + G0 * DT) / (1 + mu * mu)
    assert abs(r.impulses[2] - lambda_n) < 1e-9 and abs(lambda_n - 0.407848) < 1e-6
    ct, cn = np.hypot(*r.velocities[:2]), r.velocities[2]
    assert abs(ct - 0.796076) < 1e-6 and abs(cn - 0.398038) < 1e-6 and abs(cn - mu * ct) < 1e-9
    m = r.criteria
    assert m.eps_d < 1e-9 and abs(m.eps_c - mu * lambda_n * ct) < 1e-9 and abs(m.eps_c - 0.162) < 5e-4, m
    assert abs(m.signorini - m.eps_c) < 1e-9 and m.mdp < 1e-9
    assert sg.criteria(p, r.impulses, "ccp").eps_abs < 1e-9


def test_at07_chrono_holds_a_mass_on_an_incline_below_the_friction_angle():
    """AT-07 in the CCP: μ = 0.7 on 30°: friction holds g₀Δt·sin 30°, σ = 0 (1e-11)."""
    th = np.radians(30.0)
    p = point_mass([G0 * DT * np.sin(th), 0.0, -G0 * DT * np.cos(th)], 0.7)
    for solver in ("chrono-admm", "chrono-fadmm"):
        r = sg.solve(p, solver, tol=1e-12, max_iterations=5000)
        assert r.converged and abs(r.impulses[0] + G0 * DT * np.sin(th)) < 1e-11, solver
        assert np.abs(r.velocities).max() < 1e-11


def test_at12_penetration_is_linear_in_the_compliance_and_tangential_compliance_creeps():
    """AT-12: at rest with R_N, the penetration velocity R_N·λ_N = R_N g₀Δt/(1 + R_N) to
    1e-12 (Chrono's two, V-FPI both models); a push below the friction limit sticks
    exactly without R_T (ADMM, 1e-11) and creeps with R_T = 0.2, σ_T staying 0."""
    for rn in (1e-3, 2e-3, 4e-3):
        p = point_mass([0.0, 0.0, -G0 * DT], 0.5, [0.0, 0.0, rn])
        want = rn * G0 * DT / (1 + rn)
        runs = [("chrono-admm", "ccp"), ("chrono-fadmm", "ccp"), ("vfpi", "ncp"), ("vfpi", "ccp")]
        for solver, model in runs:
            r = sg.solve(p, solver, model=model, tol=1e-12 if solver.startswith("chrono") else 1e-13,
                         max_iterations=100_000)
            assert r.converged, (solver, model)
            depth = -(r.velocities[2] - rn * r.impulses[2])
            assert abs(depth - want) < 1e-12, (solver, model, depth, want)
    push = 0.3 * 0.5 * G0 * DT
    stiff = sg.solve(point_mass([push, 0.0, -G0 * DT], 0.5), tol=1e-12)
    assert abs(stiff.velocities[0]) < 1e-11
    soft = sg.solve(point_mass([push, 0.0, -G0 * DT], 0.5, [0.2, 0.2, 0.0]), tol=1e-12)
    creep = soft.velocities[0] - 0.2 * soft.impulses[0]
    assert abs(creep) > 1e-5 and abs(soft.velocities[0]) < 1e-11, (creep, soft.velocities)


def test_at15_the_ncp_criterion_vanishes_on_solutions_and_flags_a_wrong_answer():
    """AT-15: in force units (dt = Δt) every criterion < 1e-6 on the resting and sliding
    solutions; λ_T = 0 while sliding has mdp = μ g₀/Δt; ε_p ∝ 1/dt, ε_c ∝ 1/dt²."""
    rest = point_mass([0.0, 0.0, -G0 * DT], 0.5)
    slide = point_mass([0.6, 0.8, -G0 * DT], 0.5)
    for p in (rest, slide):
        r = sg.solve(p, tol=1e-13, dt=DT)
        m = r.criteria
        assert m.eps_abs < 1e-6 and m.signorini < 1e-6 and m.mdp < 1e-6, m
        again = sg.criteria(p, r.impulses, dt=DT)
        assert again.eps_abs == m.eps_abs
    m = sg.criteria(slide, np.array([0.0, 0.0, G0 * DT]), dt=DT)
    assert abs(m.mdp - 0.5 * G0 / DT) < 1e-9 and m.signorini < 1e-9, m
    outside = np.array([1.0, 0.0, 1.0])
    m1, m2 = sg.criteria(rest, outside, dt=1.0), sg.criteria(rest, outside, dt=0.5)
    assert abs(m2.eps_p / m1.eps_p - 2) < 1e-12 and abs(m2.eps_c / m1.eps_c - 4) < 1e-12


@pytest.mark.parametrize("solver", ["vfpi", "vfpi-block"])
def test_vfpi_strict_holds_and_slides_a_point_mass_by_coulomb(solver):
    """Seed 004 (contact_solvers.rs): the default virtual nodes κ = 1e4 make
    λ_N = m g₀Δt·κ/(1 + κ) (1e-11); sliding at 0°, 30°, 137° the friction is on the cone
    (1e-12) opposite the slip, whose heading is kept (1e-12 rad), c_N = −λ_N/k_v (1e-11).
    (The Rust test runs the default preconditioner; the closed form holds for both.)"""
    kappa, mu = 1e4, 0.5
    want_n = G0 * DT * kappa / (1 + kappa)
    rest = sg.solve(point_mass([0.0, 0.0, -G0 * DT], mu), solver, tol=1e-13, max_iterations=100_000)
    assert rest.converged and abs(rest.impulses[2] - want_n) < 1e-11 and not rest.impulses[:2].any()
    for phi in (0.0, 30.0, 137.0):
        c, s = np.cos(np.radians(phi)), np.sin(np.radians(phi))
        r = sg.solve(point_mass([c, s, -G0 * DT], mu), solver, tol=1e-13, max_iterations=100_000)
        assert r.converged, phi
        assert abs(r.impulses[2] - want_n) < 1e-11
        assert abs(np.hypot(*r.impulses[:2]) - mu * r.impulses[2]) < 1e-12
        assert abs(np.arctan2(r.velocities[1], r.velocities[0]) - np.radians(phi)) < 1e-12
        assert r.impulses[0] * c + r.impulses[1] * s < 0
        assert abs(r.velocities[2] + r.impulses[2] / kappa) < 1e-11


def test_vfpi_proximal_solves_the_ccp_of_a_compliant_point_mass():
    """λ = P_K(−g/(1 + r)) to 1e-11 with R = r·I, lifting off at c_N = μ‖c_T‖."""
    mu, r = 0.5, 1e-2
    g = np.array([1.0, 0.0, -G0 * DT])
    x = sg.solve(point_mass(g, mu, [r] * 3), "vfpi", model="ccp", tol=1e-13, max_iterations=100_000)
    assert x.converged
    assert max_diff(x.impulses, project_cone(mu, -g / (1 + r))) < 1e-11
    ct, cn = np.hypot(*x.velocities[:2]), x.velocities[2]
    assert cn > 0.1 and abs(cn - mu * ct) < 1e-11


@pytest.mark.parametrize("solver", ["sap", "vfpi", "vfpi-block"])
def test_a_separating_contact_gets_no_impulse(solver):
    """A7: g_N > μ‖g_T‖ separates: λ = 0 at once (SAP: 0 Newton iterations, V-FPI: 1)."""
    for model in ("ncp", "ccp"):
        r = sg.solve(point_mass([0.1, 0.0, 1.0] if solver == "sap" else [0.3, -0.2, 0.5], 0.5), solver,
                     model=model, tol=1e-12)
        assert r.converged and not r.impulses.any(), (solver, model, r.impulses)
        assert r.iterations == (0 if solver == "sap" else 1), r.iterations


# ---------------------------------------------------------------------------------------
# Cube stacks (AT-08, AT-09)


def test_at08_a_rigid_box_on_four_coplanar_contacts_splits_its_weight_evenly():
    """ADMM to 1e-10: Σλ_N = m g₀Δt (1e-9), each a quarter (1e-7), no friction (1e-9);
    Chrono's two: the weight (1e-8) without friction; PGS carries the weight (1e-8)."""
    p, _ = cube_stack([1.0], 0.5)
    weight = G0 * DT
    r = sg.solve(p, tol=1e-10, max_iterations=2000)
    assert r.converged
    normals = r.impulses[2::3]
    assert abs(normals.sum() - weight) < 1e-9 and np.abs(normals - weight / 4).max() < 1e-7, normals
    assert np.abs(r.impulses[0::3]).max() < 1e-9 and np.abs(r.impulses[1::3]).max() < 1e-9
    for solver in ("chrono-admm", "chrono-fadmm"):
        c = sg.solve(p, solver, model="ccp", tol=1e-10, max_iterations=5000)
        assert c.converged and abs(c.impulses[2::3].sum() - weight) < 1e-8, solver
        assert np.abs(c.impulses[0::3]).max() < 1e-8 and np.abs(c.impulses[1::3]).max() < 1e-8
    q = sg.solve(p, "pgs", tol=1e-10, max_iterations=2000)
    assert abs(q.impulses[2::3].sum() - weight) < 1e-8
    print("PGS split:", q.impulses[2::3] / weight)


def test_at09_a_ton_on_a_gram_admm_converges_and_pgs_does_not():
    """1e3 kg on 1e-3 kg: ADMM at 1e-6 carries each interface's load to 1e-3, at 1e-12 to
    1e-9; PGS does not reach 1e-6 in 1000 sweeps; over ratios 1…1e6 the ADMM converges
    and Chrono's balanced ADMM carries the top cube to 1e-3 (its FADMM up to 1e4)."""
    p, below = cube_stack([1e-3, 1e3], 0.5)

    def loads(lam):
        return lam[2::3][below == -1].sum(), lam[2::3][below == 0].sum()

    for tol, rel in ((1e-6, 1e-3), (1e-12, 1e-9)):
        r = sg.solve(p, tol=tol, max_iterations=5000)
        assert r.converged, tol
        ground, top = loads(r.impulses)
        assert abs(top / (1e3 * G0 * DT) - 1) < rel and abs(ground / ((1e3 + 1e-3) * G0 * DT) - 1) < rel
        print(f"ADMM to {tol:g}: {r.iterations} iterations")
    assert not sg.solve(p, "pgs", tol=1e-6, max_iterations=1000).converged
    for e in range(7):
        ratio = 10.0 ** e
        s, below = cube_stack([1.0, ratio], 0.5)
        assert sg.solve(s, tol=1e-6).converged, e
        for solver in ("chrono-admm", "chrono-fadmm"):
            if solver == "chrono-fadmm" and e > 4:
                continue
            c = sg.solve(s, solver, model="ccp", tol=1e-6, max_iterations=5000)
            top = c.impulses[2::3][below == 0].sum()
            assert c.converged and abs(top / (ratio * G0 * DT) - 1) < 1e-3, (solver, e, top)


def test_anderson_takes_fewer_admm_iterations_to_the_same_impulses():
    """`anderson` (the simulator's `contact.anderson`, default 5) against the paper's
    plain iteration (0) on the sliding point mass of AT-04 (47 iterations plain, 19 with
    Anderson, to 1e-12, both without the polish): the same impulses to 1e-10, in less than
    half the iterations; a depth outside 0 to 20 is refused by name."""
    p = point_mass([np.cos(0.5), np.sin(0.5), -G0 * DT], 0.5)
    plain = sg.solve(p, tol=1e-12, max_iterations=5000, anderson=0, polish=False)
    fast = sg.solve(p, tol=1e-12, max_iterations=5000, polish=False)
    assert plain.converged and fast.converged
    assert max_diff(plain.impulses, fast.impulses) < 1e-10
    print(f"sliding: {plain.iterations} iterations plain, {fast.iterations} with Anderson")
    assert 2 * fast.iterations < plain.iterations, (plain.iterations, fast.iterations)
    for bad in (-1, 21):
        with pytest.raises(ValueError, match="anderson"):
            sg.solve(p, anderson=bad)


def test_the_per_contact_penalty_scaling_solves_a_heavy_stack_in_fewer_iterations():
    """`scaling` (the simulator's `contact.scaling`, default 1: each contact's ρ scaled by
    its Delassus diagonal) against the paper's scalar ρ (0) on 10⁴ kg, 100 kg and 1 kg
    cubes stacked in that order (without Anderson and the polish, to 1e-9): both hold each
    layer by the weight above it, m·g·Δt summed over its 4 contacts (their split is not
    unique), and the scaling takes fewer iterations (9 against 14; the light cube's
    contacts have 10⁴ times the heavy one's Delassus diagonal); an exponent outside 0 to 1
    is refused by name."""
    masses = [1e4, 100.0, 1.0]
    p, below = cube_stack(masses, 0.5)
    runs = {s: sg.solve(p, tol=1e-9, max_iterations=20_000, anderson=0, polish=False, scaling=s) for s in (0.0, 1.0)}
    for s, r in runs.items():
        assert r.converged, s
        for layer in range(len(masses)):
            held = r.impulses[2::3][below == layer - 1].sum()
            above = sum(masses[layer:]) * G0 * DT
            assert abs(held / above - 1) < 1e-6, (s, layer, held, above)
    plain, scaled = runs[0.0].iterations, runs[1.0].iterations
    print(f"10^4/100/1 kg stack: {plain} iterations with the scalar penalty, {scaled} scaled")
    assert scaled < plain, (plain, scaled)
    for bad in (-0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="scaling"):
            sg.solve(p, scaling=bad)


def test_the_admm_polishes_its_iterate_to_the_analytic_sliding_impulse():
    """`polish` (the simulator's `contact.polish`, default on): once the iterate's modes
    hold, Newton's method on them. The sliding point mass of AT-04 (G = I, μ 0.5):
    λ_N = g·Δt, the friction −μλ_N along the slip, exact to 1e-15 after a few ADMM
    iterations, against the plain ADMM's 1e-12 after more (both without Anderson)."""
    slip = np.array([np.cos(0.5), np.sin(0.5)])
    p = point_mass([slip[0], slip[1], -G0 * DT], 0.5)
    exact = np.array([*(-0.5 * G0 * DT * slip), G0 * DT])
    polished = sg.solve(p, tol=1e-12, max_iterations=5000, anderson=0)
    plain = sg.solve(p, tol=1e-12, max_iterations=5000, anderson=0, polish=False)
    assert polished.converged and plain.converged
    print(f"sliding: {plain.iterations} iterations plain, {polished.iterations} polished")
    assert max_diff(polished.impulses, exact) < 1e-15, polished.impulses - exact
    assert max_diff(plain.impulses, exact) < 1e-11
    assert polished.iterations <= 5 < plain.iterations, (polished.iterations, plain.iterations)


def test_sap_converges_in_a_few_newton_iterations_on_the_stacks():
    """Seed 001's point (contact_solvers.rs): Newton is insensitive to the mass ratio:
    ≤ 20 iterations on the box and on the two cubes at ratios 1…1e6."""
    scenes = [cube_stack([1.0], 0.5)[0]] + [cube_stack([1.0, 10.0 ** e], 0.5)[0] for e in range(7)]
    for k, p in enumerate(scenes):
        r = sg.solve(p, "sap", tol=1e-12, max_iterations=100)
        assert r.converged and r.iterations <= 20, (k, r.iterations)


# ---------------------------------------------------------------------------------------
# A10: random strictly convex CCPs


def test_a10_every_ccp_solver_finds_the_same_impulses_on_random_strictly_convex_problems():
    """5 contacts, G = BBᵀ of rank 9, isotropic compliance in [0.5, 1] per contact (above
    SAP's own regularization), random g and μ: Chrono's ADMM and FADMM (1e-11), SAP and
    V-FPI's proximal mode (1e-13) agree with seed 000's ADMM on the CCP (1e-13) to 1e-10
    (largest difference seen 1.6e-11: README, "Measured")."""
    rng = np.random.default_rng(10)
    worst = 0.0
    for _ in range(20):
        n, rank = 5, 9
        b = rng.uniform(-1, 1, (3 * n, rank))
        G = b @ b.T
        g = rng.uniform(-1, 1, 3 * n)
        mu = 0.3 + 0.5 * np.abs(rng.uniform(-1, 1, n))
        r = np.repeat(0.5 + 0.5 * np.abs(rng.uniform(-1, 1, n)), 3)
        p = sg.ContactProblem(G, g, mu, r)
        ref = sg.solve(p, "admm", model="ccp", tol=1e-13, max_iterations=20_000)
        assert ref.converged
        for solver, tol in (("chrono-admm", 1e-11), ("chrono-fadmm", 1e-11), ("sap", 1e-13), ("vfpi", 1e-13)):
            x = sg.solve(p, solver, model="ccp", tol=tol, max_iterations=20_000 if solver != "vfpi" else 100_000)
            assert x.converged, solver
            worst = max(worst, max_diff(x.impulses, ref.impulses))
            assert max_diff(x.impulses, ref.impulses) < 1e-10, solver
    print(f"A10: largest |λ − λ_ADMM| {worst:.1e}")


# ---------------------------------------------------------------------------------------
# Pinocchio's fixtures (contact_pinocchio.rs)


@pytest.mark.parametrize("name", FIXTURES)
def test_admm_solutions_agree_with_pinocchios(name):
    """ADMM to 1e-12: λ equals Pinocchio's ADMM's to 5e-12 where the solution is unique,
    else each body pair carries the same load (1e-6); ε_abs ≤ 1e-9."""
    f = fixture(name)
    p = fixture_problem(f)
    r = sg.solve(p, tol=1e-12, max_iterations=20_000)
    assert r.converged, r.residuals
    theirs = np.array(f["pinocchio_admm"]["lambda"])
    diff = max_diff(r.impulses, theirs)
    print(f"{name}: {r.iterations} iterations, |λ − λ_pin| {diff:.1e}, ε_abs {r.criteria.eps_abs:.1e}"
          f" (Pinocchio's {sg.criteria(p, theirs).eps_abs:.1e})")
    if f["solution_unique"]:
        assert diff <= 5e-12
    else:
        pairs = [json.dumps([c["body1"], c["body2"]]) for c in f["contacts"]]
        for key in set(pairs):
            mask = np.array([k == key for k in pairs])
            a, b = r.impulses[2::3][mask].sum(), theirs[2::3][mask].sum()
            assert abs(a - b) <= 1e-6 * max(abs(b), 1.0), key
    assert r.criteria.eps_abs <= 1e-9


# ---------------------------------------------------------------------------------------
# Warm starts


# Iterations from the solution itself: ADMM's start check and SAP's Newton need none;
# Chrono's ADMM restores γ then meets both tolerances (≤ 2, contact_solvers.rs); PGS and
# the LCP verify in one sweep; V-FPI restarts its nodes (fewer than cold).
WARM_TOL = 1e-9
WARM_ITERATIONS = {"admm": 0, "sap": 0, "chrono-admm": 2, "chrono-fadmm": 2, "pgs": 1, "lcp": 1}


@pytest.mark.parametrize("solver", sg.SOLVERS)
def test_a_warm_start_from_the_solution_needs_at_most_a_few_iterations(solver):
    """On solo12 standing (and the point mass at rest for the PGS/LCP, which do not reach
    a tight tolerance on solo12): from a Solution and from its impulses array."""
    problems = [point_mass([0.0, 0.0, -G0 * DT], 0.5)]
    if solver not in ("pgs", "lcp"):
        problems.append(fixture_problem(fixture("solo12_standing")))
    for p in problems:
        cold = sg.solve(p, solver, tol=WARM_TOL, max_iterations=20_000)
        assert cold.converged, (solver, cold.residuals)
        for warm in (cold, cold.impulses):
            again = sg.solve(p, solver, tol=WARM_TOL, max_iterations=20_000, warm_start=warm)
            assert again.converged
            bound = WARM_ITERATIONS.get(solver, max(cold.iterations - 1, 0))
            print(f"{solver} on {p.num_contacts} contacts: cold {cold.iterations}, warm {again.iterations}")
            assert again.iterations <= bound, (solver, cold.iterations, again.iterations)
            # Both meet the tolerance: they agree to its order (measured: ≤ 1.7e-9 for 1e-9).
            assert max_diff(again.impulses, cold.impulses) <= 10 * WARM_TOL

#!/usr/bin/env python3
"""Golden frictional-contact problems and their solutions, computed by Pinocchio (the
independent reference), for the contact-solver tests.

For each scene (robots standing on the ground, a stack of cubes): the contact points and
frames, the problem in impulse units over one step dt,

    G = J·M⁻¹·Jᵀ   (3n×3n, Delassus),   g = J·(v + dt·aba(q, v, tau))   (free velocity),

with J Pinocchio's constraint Jacobian of the point contacts, and the solution λ of the
Coulomb-friction NCP (with the De Saxcé correction) found by Pinocchio's ADMM solver at a
tight absolute tolerance. Written to tests/fixtures/contact/<scene>.json.

  scripts/with_ros.sh python scripts/gen_contact_fixtures.py

Conventions (signorini's side depends on them):
  * contact i is a 3-vector in its local frame ordered (Tx, Ty, N), normal last; "frame" is
    the rotation whose columns are Tx, Ty, N in world coordinates (identity on the ground);
  * "body1" is the body the normal points into (the foot, the upper cube), "body2" the other
    ("static" ground, the lower cube); c = Cᵀ·(v_body1(p) − v_body2(p)), so an approaching
    body1 has a negative normal velocity, and λ acts on body1 (+N pushes it away). In
    Pinocchio's PointContactConstraintModel(model, joint1, placement1, joint2, placement2)
    that is joint1 = body2, joint2 = body1 (checked below against point Jacobians);
  * Pinocchio's configuration order: free flyer [x, y, z, qx, qy, qz, qw], velocity
    body-local (linear, angular), then the joints in Pinocchio order.

Besides writing the fixtures, the script prints per scene the checks that make λ a genuine
NCP solution (cone violation, dual feasibility of σ + Γ(σ), complementarity), the difference
between our G and Pinocchio's own Delassus matrix, and the vertical momentum balance.

Deterministic: no random numbers; reads only this repository and example-robot-data.
"""

import json
import pathlib
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from gen_dynamics_fixtures import erd_share  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "contact"
GENERATOR = f"scripts/gen_contact_fixtures.py (pinocchio {pin.__version__})"

DT = 1e-3
G0 = 9.81  # Pinocchio's default gravity is (0, 0, -9.81)
# ADMM absolute feasibility and complementarity tolerance: the tightest that converges in
# every scene with margin (the cube stack stops converging at 1e-15); λ is then within ~1e-13
# of the exact solution where that is known (see polish_error).
ABS_TOL = 1e-13
MAX_ITERATIONS = 10000
RANK_RTOL = 1e-9  # rank of G: singular values above RANK_RTOL × the largest

SOLO12_URDF = "example-robot-data/robots/solo_description/robots/solo12.urdf"
SOLO12_SRDF = "example-robot-data/robots/solo_description/srdf/solo.srdf"
QUADRUPED_URDF = "urdf/quadruped.urdf"


# ---------------------------------------------------------------------------------------
# Friction cones K_μ = {‖x_T‖ ≤ μ·x_N}, normal last (Pinocchio's CoulombFrictionCone uses the
# same layout), and the NCP criteria.

def project_cone(x, mu):
    """Euclidean projection of x = (x_T, x_N) onto K_μ."""
    t, n = np.linalg.norm(x[:2]), x[2]
    if t <= mu * n:
        return x.copy()
    if mu * t <= -n:  # in the polar cone
        return np.zeros(3)
    # onto the boundary ray (μ·x_T/t, 1)/√(1+μ²)
    alpha = (mu * t + n) / (1.0 + mu * mu)
    return np.array([mu * alpha * x[0] / t, mu * alpha * x[1] / t, alpha])


def dist_cone(x, mu):
    return float(np.linalg.norm(x - project_cone(x, mu)))


def ncp_criteria(G, g, lam, mus):
    """Max over contacts of: dist_K(λ), dist_K*(σ + Γ(σ)), |λ·(σ + Γ(σ))|, with σ = Gλ + g,
    Γ(σ) = (0, 0, μ‖σ_T‖) (De Saxcé) and K* = K_{1/μ} the dual cone."""
    sigma = G @ lam + g
    cone = dual = comp = 0.0
    for i, mu in enumerate(mus):
        l, s = lam[3 * i:3 * i + 3], sigma[3 * i:3 * i + 3].copy()
        s[2] += mu * np.linalg.norm(s[:2])
        cone = max(cone, dist_cone(l, mu))
        dual = max(dual, dist_cone(s, 1.0 / mu))
        comp = max(comp, abs(float(l @ s)))
    return {"cone_violation": cone, "dual_feasibility": dual, "complementarity": comp}


def active_normal_velocity(G, g, lam):
    """max |σ_N| over contacts with λ_N > 0: sticking and sliding contacts both need σ_N = 0
    (velocity-level complementarity, which |λ·(σ+Γ(σ))| weighs by the small λ_N)."""
    sigma = G @ lam + g
    return float(max((abs(sigma[3 * i + 2]) for i in range(len(lam) // 3) if lam[3 * i + 2] > 0),
                     default=0.0))


def polish_error(G, g, lam, mus):
    """Independent check of λ when G is full rank: fix each contact's mode from λ (separated,
    sticking, sliding), solve that mode's equations by Newton from λ, return max |Δλ|.
      separated: λ = 0;  sticking: σ = 0;  sliding: σ_N = 0, λ_T = −μ·λ_N·σ_T/‖σ_T‖."""
    n = len(mus)
    modes = []
    for i, mu in enumerate(mus):
        l = lam[3 * i:3 * i + 3]
        if l[2] <= 1e-9 * np.abs(lam).max():
            modes.append("separated")
        elif np.linalg.norm(l[:2]) < (1.0 - 1e-6) * mu * l[2]:
            modes.append("sticking")
        else:
            modes.append("sliding")

    def residual(x):
        sigma = G @ x + g
        r = np.empty(3 * n)
        for i, (mode, mu) in enumerate(zip(modes, mus)):
            l, s = x[3 * i:3 * i + 3], sigma[3 * i:3 * i + 3]
            if mode == "separated":
                r[3 * i:3 * i + 3] = l
            elif mode == "sticking":
                r[3 * i:3 * i + 3] = s
            else:
                r[3 * i:3 * i + 2] = l[:2] + mu * l[2] * s[:2] / np.linalg.norm(s[:2])
                r[3 * i + 2] = s[2]
        return r

    x = lam.copy()
    for _ in range(20):  # Newton with a central-difference Jacobian
        r = residual(x)
        h = 1e-7 * max(np.abs(x).max(), 1e-12)
        Jr = np.column_stack([(residual(x + h * e) - residual(x - h * e)) / (2 * h) for e in np.eye(3 * n)])
        dx = np.linalg.solve(Jr, -r)
        x += dx
        if np.abs(dx).max() <= 1e-15 * np.abs(x).max():
            break
    return float(np.abs(x - lam).max()), modes


# ---------------------------------------------------------------------------------------
# Contacts. A contact is (body1 joint id, body2 joint id (0 = the static ground), world point,
# world frame C with columns Tx, Ty, N).

def point_contact(model, data, body1, body2, p, C, mu):
    """Pinocchio's point contact with our sign: joint1 = body2, joint2 = body1; each
    placement puts the contact frame (origin p, axes C) in its joint's frame (data.oMi must
    hold the current placements)."""
    def placement(jid):
        oMi = data.oMi[jid]
        R, t = oMi.rotation, oMi.translation
        return pin.SE3(R.T @ C, R.T @ (p - t))
    pc = pin.PointContactConstraintModel(model, body2, placement(body2), body1, placement(body1))
    pc.setFriction(mu)
    return pc


def point_jacobian(model, data, jid, p):
    """World-frame velocity Jacobian of the world point p carried by joint jid (zero for the
    universe); needs computeJointJacobians."""
    if jid == 0:
        return np.zeros((3, model.nv))
    J = pin.getJointJacobian(model, data, jid, pin.ReferenceFrame.WORLD)  # twist at the origin
    px = pin.skew(p)
    return J[:3] - px @ J[3:]


def build_problem(model, q, v, tau, contacts):
    """Returns (G, g, J, cms, cds, report) for the contacts at state (q, v, tau)."""
    data = model.createData()
    pin.forwardKinematics(model, data, q, v)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)

    cms = pin.StdVec_ConstraintModel()
    for c in contacts:
        cms.append(pin.ConstraintModel(point_contact(model, data, c["j1"], c["j2"], c["p"], c["C"], c["mu"])))
    cds = pin.StdVec_ConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    for cm, cd in zip(cms, cds):
        cm.calc(model, data, cd)
    J = np.array(pin.getConstraintsJacobian(model, data, cms, cds))

    # Our convention from first principles: c = Cᵀ (v1(p) − v2(p)).
    J_ours = np.vstack([c["C"].T @ (point_jacobian(model, data, c["j1"], c["p"])
                                    - point_jacobian(model, data, c["j2"], c["p"]))
                        for c in contacts])
    report = {"jacobian_vs_point_jacobians": float(np.abs(J - J_ours).max())}

    M = np.array(pin.crba(model, data, q, pin.Convention.WORLD))
    M = np.triu(M) + np.triu(M, 1).T  # crba fills the upper triangle
    a_free = np.array(pin.aba(model, data, q, v, tau))
    G = J @ np.linalg.solve(M, J.T)
    G = 0.5 * (G + G.T)
    g = J @ (v + DT * a_free)

    # Pinocchio's own Delassus matrix (tiny damping so the cube stack's singular G factors).
    # crba with Convention.WORLD fills what ConstraintCholeskyDecomposition needs.
    pin.crba(model, data, q, pin.Convention.WORLD)
    for cm, cd in zip(cms, cds):
        cm.calc(model, data, cd)
    chol = pin.ConstraintCholeskyDecomposition(model, data, cms, cds)
    damping = 1e-12
    chol.compute(model, data, cms, cds, damping)
    G_pin = np.array(chol.getDelassusOperatorCholeskyExpression().matrix())
    report["delassus_vs_pinocchio"] = float(np.abs(G_pin - damping * np.eye(len(g)) - G).max())
    report["delassus_scale"] = float(np.abs(G).max())

    # Vertical momentum after the step, for the momentum balance.
    report["M"], report["a_free"], report["data"] = M, a_free, data
    return G, g, J, cms, cds, report


def solve_admm(G, g, cms, cds):
    settings = pin.ADMMSolverSettings()
    settings.solve_ncp = True  # the default: the NCP with the De Saxcé correction
    settings.absolute_feasibility_tol = ABS_TOL
    settings.absolute_complementarity_tol = ABS_TOL
    settings.relative_feasibility_tol = 0.0  # converge on the absolute criteria only
    settings.relative_complementarity_tol = 0.0
    settings.max_iterations = MAX_ITERATIONS
    result = pin.ADMMSolverResult()
    solver = pin.ADMMConstraintSolver(len(g))
    # ADMM leaves its damping on the operator's diagonal: give it its own copy.
    G_before = G.copy()
    solver.solve(pin.DelassusOperatorDense(G.copy()), g.copy(), cms, cds, settings, result)
    assert np.array_equal(G, G_before)
    lam = np.array(result.retrieveConstraintImpulses()).copy()
    return lam, result, settings


# ---------------------------------------------------------------------------------------
# Scenes. Each returns (model, robot dict or None, free_bodies list, contacts, q, v, tau,
# ground contacts' supported mass).

def lift_to_ground(model, q, points_fn):
    """Shift the base height so the lowest contact point is at z = 0; returns q, points."""
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    heights = [p[2] for p in points_fn(data)]
    assert max(heights) - min(heights) < 1e-12, heights  # all feet at the same height
    z = min(heights)
    q = q.copy()
    q[2] -= z
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    return q, points_fn(data)


def sphere_radius(urdf_path, link):
    """Radius of the link's collision sphere (centred on the link origin)."""
    root = ET.parse(urdf_path).getroot()
    (l,) = [l for l in root.iter("link") if l.get("name") == link]
    (col,) = l.findall("collision")
    origin = col.find("origin")
    assert origin is None or all(float(x) == 0.0 for x in origin.get("xyz", "0 0 0").split())
    return float(col.find("geometry/sphere").get("radius"))


def scene_quadruped():
    path = ROOT / QUADRUPED_URDF
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    q = pin.neutral(model)  # base at the origin, identity orientation
    for leg in ("lf", "lh", "rf", "rh"):
        q[model.joints[model.getJointId(f"{leg}_haa")].idx_q] = 0.0
        q[model.joints[model.getJointId(f"{leg}_hfe")].idx_q] = 0.6
        q[model.joints[model.getJointId(f"{leg}_kfe")].idx_q] = -1.2
    legs = ("lf", "lh", "rf", "rh")
    radii = {leg: sphere_radius(path, f"{leg}_foot") for leg in legs}
    fids = {leg: model.getFrameId(f"{leg}_foot") for leg in legs}
    for leg in legs:  # the foot link is fixed to the shank: the frame rides on *_kfe
        assert model.frames[fids[leg]].parentJoint == model.getJointId(f"{leg}_kfe")

    def points(data):  # lowest point of each foot sphere (its collision origin is the link's)
        return [data.oMf[fids[leg]].translation - np.array([0.0, 0.0, radii[leg]]) for leg in legs]

    q, pts = lift_to_ground(model, q, points)
    v, tau = np.zeros(model.nv), np.zeros(model.nv)
    contacts = [{"j1": model.getJointId(f"{leg}_kfe"), "j2": 0, "p": p, "C": np.eye(3), "mu": 0.8}
                for leg, p in zip(legs, pts)]
    robot = {"urdf": QUADRUPED_URDF, "floating_base": True}
    return model, robot, [], contacts, q, v, tau


def scene_solo12(sliding=False):
    share = erd_share()
    model = pin.buildModelFromUrdf(str(share / SOLO12_URDF), pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, str(share / SOLO12_SRDF))
    q = np.array(model.referenceConfigurations["standing"]).copy()
    feet = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
    fids = [model.getFrameId(f) for f in feet]

    def points(data):
        return [data.oMf[f].translation.copy() for f in fids]

    q, pts = lift_to_ground(model, q, points)
    v, tau = np.zeros(model.nv), np.zeros(model.nv)
    if sliding:
        v[0] = 0.5  # base linear velocity, body-local (= world: identity orientation)
    contacts = [{"j1": model.frames[f].parentJoint, "j2": 0, "p": p, "C": np.eye(3), "mu": 0.8}
                for f, p in zip(fids, pts)]
    robot = {"urdf": "erd:" + SOLO12_URDF, "floating_base": True}
    return model, robot, [], contacts, q, v, tau


def scene_cube_stack():
    side, masses, mu = 0.1, (1.0, 10.0, 100.0, 1000.0), 0.5
    h = side / 2
    model = pin.Model()
    bodies, q_parts = [], []
    for k, m in enumerate(masses):
        jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), f"cube_{k}")
        inertia_diag = [m * (side ** 2 + side ** 2) / 12.0] * 3  # solid cube
        model.appendBodyToJoint(jid, pin.Inertia(m, np.zeros(3), np.diag(inertia_diag)), pin.SE3.Identity())
        position = [0.0, 0.0, h + side * k]
        bodies.append({"mass": m, "half_extents": [h, h, h], "inertia_diag": inertia_diag,
                       "position": position, "quaternion": [0.0, 0.0, 0.0, 1.0],
                       "velocity": [0.0] * 6})
        q_parts.append(position + [0.0, 0.0, 0.0, 1.0])
    q = np.concatenate(q_parts)
    v, tau = np.zeros(model.nv), np.zeros(model.nv)
    contacts = []
    for k in range(len(masses)):
        z = side * k  # cube k's bottom face
        for sx in (-1.0, 1.0):
            for sy in (-1.0, 1.0):
                contacts.append({"j1": k + 1, "j2": k, "p": np.array([sx * h, sy * h, z]),
                                 "C": np.eye(3), "mu": mu})
    return model, None, bodies, contacts, q, v, tau


SCENES = [
    ("quadruped_standing", scene_quadruped),
    ("solo12_standing", lambda: scene_solo12(sliding=False)),
    ("cube_stack_4", scene_cube_stack),
    ("solo12_sliding", lambda: scene_solo12(sliding=True)),
]


# ---------------------------------------------------------------------------------------

def body_ref(model, jid, free):
    if jid == 0:
        return "static"
    return {"free": jid - 1} if free else {"joint": model.names[jid]}


def check_sign(model, q, J, contacts):
    """An approaching body1 has negative normal velocity: move every body1 along −N of each
    contact by itself (translating its free flyer / the base) and read the normal row."""
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    for i, c in enumerate(contacts):
        # the root free flyer carrying body1 (joint 1 for robots, the cube itself otherwise)
        root = c["j1"]
        while model.parents[root] != 0:
            root = model.parents[root]
        idx = model.joints[root].idx_v
        R = data.oMi[root].rotation
        v = np.zeros(model.nv)
        v[idx:idx + 3] = R.T @ (-c["C"][:, 2])  # body-local linear velocity = −N in world
        vn = (J @ v)[3 * i + 2]
        assert abs(vn + 1.0) < 1e-12, (i, vn)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in SCENES:
        model, robot, bodies, contacts, q, v, tau = make()
        free = robot is None
        n = len(contacts)
        G, g, J, cms, cds, rep = build_problem(model, q, v, tau, contacts)
        check_sign(model, q, J, contacts)
        mus = [c["mu"] for c in contacts]

        sv = np.linalg.svd(G, compute_uv=False)
        rank = int((sv > RANK_RTOL * sv[0]).sum())

        lam, result, settings = solve_admm(G, g, cms, cds)
        crit = ncp_criteria(G, g, lam, mus)
        sigma_n = active_normal_velocity(G, g, lam)
        polish, modes = polish_error(G, g, lam, mus) if rank == 3 * n else (float("nan"), [])
        assert all(lam[3 * i + 2] >= 0 for i in range(n))

        # Vertical momentum balance: Σ λ_N(ground) = m·g₀·dt + Δp_z, with p_z the total linear
        # momentum after the step (v⁺ = v + dt·a_free + M⁻¹Jᵀλ) minus before.
        data = rep["data"]
        v_plus = v + DT * rep["a_free"] + np.linalg.solve(rep["M"], J.T @ lam)
        pz = lambda vel: float(pin.computeCentroidalMomentum(model, data, q, vel).linear[2])
        mass = sum(I.mass for I in model.inertias)
        ground_normal = sum(lam[3 * i + 2] for i, c in enumerate(contacts) if c["j2"] == 0)
        dpz = pz(v_plus) - pz(v)

        fixture = {
            "name": name,
            "generator": GENERATOR,
            "dt": DT,
            "robot": None if free else {**robot, "q": q.tolist(), "v": v.tolist(), "tau": tau.tolist()},
            "free_bodies": bodies,
            "contacts": [{"body1": body_ref(model, c["j1"], free), "body2": body_ref(model, c["j2"], free),
                          "point": [float(x) for x in c["p"]], "frame": c["C"].tolist(), "mu": c["mu"]}
                         for c in contacts],
            "problem": {"G": G.tolist(), "g": g.tolist(), "mu": mus},
            "pinocchio_admm": {"lambda": lam.tolist(), "iterations": int(result.iterations),
                               "converged": bool(result.converged),
                               "absolute_tolerance": ABS_TOL, "max_iterations": MAX_ITERATIONS},
            "solution_unique": rank == 3 * n,
            "rank": rank,
        }
        target = OUT / f"{name}.json"
        target.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")

        print(f"{target.relative_to(ROOT)}: {n} contacts, nv {model.nv}, rank {rank}/{3 * n}"
              f" (σ_min/σ_max {sv[-1] / sv[0]:.3g})")
        print(f"  J vs point Jacobians {rep['jacobian_vs_point_jacobians']:.3g};"
              f" G vs Pinocchio's Delassus {rep['delassus_vs_pinocchio']:.3g}"
              f" (max |G| {rep['delassus_scale']:.3g})")
        print(f"  ADMM: {result.iterations} iterations, converged {result.converged};"
              f" its residuals: primal {result.primal_feasibility:.3g},"
              f" dual {result.dual_feasibility:.3g}, complementarity {result.complementarity:.3g}")
        print("  NCP: cone violation {cone_violation:.3g}, dual feasibility {dual_feasibility:.3g},"
              " complementarity {complementarity:.3g}".format(**crit)
              + f"; max |σ_N| where λ_N > 0: {sigma_n:.3g}")
        if modes:
            print(f"  modes {', '.join(modes)}; λ vs Newton-polished solution of those modes {polish:.3g}")
        else:
            print("  G singular: λ is one of many solutions (no polish)")
        print(f"  Σ λ_N on the ground {ground_normal:.9g}; m·g₀·dt {mass * G0 * DT:.9g} (m {mass:.6g});"
              f" + Δp_z {dpz:.3g} = {mass * G0 * DT + dpz:.9g}")
        if free:  # each interface carries the weight of the cubes above it
            for k in range(len(bodies)):
                above = sum(b["mass"] for b in bodies[k:])
                carried = sum(lam[3 * i + 2] for i, c in enumerate(contacts) if c["j1"] == k + 1)
                print(f"  under cube {k}: Σ λ_N {carried:.12g}, weight above·dt {above * G0 * DT:.12g}")
        normals = lam[2::3]
        print(f"  λ_N per contact: {np.array2string(normals, precision=6)}")


if __name__ == "__main__":
    main()

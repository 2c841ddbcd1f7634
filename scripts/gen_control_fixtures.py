#!/usr/bin/env python3
"""Golden compliant contact inverse dynamics, computed by Pinocchio's
`contactInverseDynamics` (the independent reference), for tests/control_inverse_dynamics.rs.

solo12 (example-robot-data) standing on its four feet (the scene of
gen_contact_fixtures.py: feet on z = 0, point contacts with frame = identity, μ 0.8),
with compliant contacts, in three states: pressing down (the base moving down into the
ground), sliding (the base moving sideways as well: the De Saxcé term is active) and a
seeded random reference. For each, Pinocchio gives the contact forces λ and
τ = RNEA(q, v, a) − Jᵀλ, a = (v_ref − v)/Δt, from Algorithm 2 of seed 000 (NCP,
`ProximalSettings(1e-12, 1e-12, ρ, 10000)`, from λ = 0). Written to
tests/fixtures/control/solo12_compliant.json.

  scripts/with_ros.sh python scripts/gen_control_fixtures.py

Units. Pinocchio works in forces: σ = J v_ref/Δt + R λ_F + correction/Δt. signorini works
in impulses, σ = J v_ref + R' λ_I with R' = compliance/Δt² and λ_I = Δt λ_F; dividing by
Δt shows R = R'. So Pinocchio's compliance is signorini's (m/N) divided by Δt², and its
proximal μ signorini's ρ. The contacts are at zero distance, so the correction is zero.

What signorini adds, and how the expected τ is derived from Pinocchio's here: the URDF's
joint damping D·v_ref (zero for solo12, added anyway) and, the base being unactuated, the
base rows absorbed by the base's acceleration: Δa_b = −M_bb⁻¹ τ_b, τ_j += M_jb Δa_b, τ_b = 0
(M from Pinocchio's CRBA). With compliant contacts the floating base's least squares
leaves λ alone (it only moves rigid sticking contacts' impulses).

Deterministic: the random reference is seeded.
"""

import json
import pathlib
import sys

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from gen_contact_fixtures import body_ref, point_contact, scene_solo12  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "control"
GENERATOR = f"scripts/gen_control_fixtures.py (pinocchio {pin.__version__})"
DT = 1e-3
COMPLIANCE_NORMAL = 1e-5  # m/N, signorini's contact.compliance_normal
COMPLIANCE_TANGENTIAL = 2e-5  # m/N
RHO = 1e-8
TOL = 1e-12  # ProximalSettings absolute and relative accuracy


def references(model, v):
    """(name, v_ref) of the three states."""
    down = v.copy()
    down[2] = -0.1  # base linear z (body-local = world here), m/s
    slide = down.copy()
    slide[0] = 0.5  # beyond what the tangential compliance holds at μ λ_N: on the cone's edge
    rng = np.random.default_rng(20261122)
    rand = v + 0.05 * rng.standard_normal(model.nv)
    rand[2] = -0.1
    return [("pressing", down), ("sliding", slide), ("random", rand)]


def main():
    model, robot, _, contacts, q, v, _ = scene_solo12()
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    pcms = pin.StdVec_PointContactConstraintModel()
    for c in contacts:
        pc = point_contact(model, data, c["j1"], c["j2"], c["p"], c["C"], c["mu"])
        r_t, r_n = COMPLIANCE_TANGENTIAL / DT**2, COMPLIANCE_NORMAL / DT**2
        pc.setCompliance(np.array([r_t, r_t, r_n]))
        assert np.allclose(pc.retrieveCompliance(), [r_t, r_t, r_n])
        pcms.append(pc)
    pcds = pin.StdVec_PointContactConstraintData()
    for m in pcms:
        pcds.append(m.createData())
    n = len(contacts)
    states = []
    for name, v_ref in references(model, v):
        a = (v_ref - v) / DT
        pin.computeJointJacobians(model, data, q)
        for m, d in zip(pcms, pcds):
            m.calc(model, data, d)
        settings = pin.ProximalSettings(TOL, TOL, RHO, 10000)
        converged, tau, lam = pin.contactInverseDynamics(model, data, q, v, a, DT, pcms, pcds, np.zeros(3 * n),
                                                         settings, np.zeros(3 * n))
        assert converged, name
        tau = np.array(tau) + model.damping * v_ref
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        delta = -np.linalg.solve(M[:6, :6], tau[:6])
        expected = tau.copy()
        expected[6:] += M[6:, :6] @ delta
        expected[:6] = 0.0
        lam = np.array(lam)
        normals = lam[2::3]
        sliding = [bool(np.hypot(lam[3 * i], lam[3 * i + 1]) >= c["mu"] * lam[3 * i + 2] * (1 - 1e-9))
                   for i, c in enumerate(contacts)]
        print(f"{name}: {settings.iter} iterations, λ_N {np.array2string(normals, precision=4)} N, "
              f"on the cone's edge {sliding}, |τ_b| {np.abs(tau[:6]).max():.3g}")
        states.append({"name": name, "v_ref": v_ref.tolist(), "lambda": lam.tolist(), "tau_pinocchio": tau.tolist(),
                       "tau": expected.tolist(), "iterations": int(settings.iter)})
    fixture = {
        "generator": GENERATOR,
        "dt": DT,
        "compliance_normal": COMPLIANCE_NORMAL,
        "compliance_tangential": COMPLIANCE_TANGENTIAL,
        "rho": RHO,
        "robot": {**robot, "q": q.tolist(), "v": v.tolist()},
        "contacts": [{"body1": body_ref(model, c["j1"], False), "body2": body_ref(model, c["j2"], False),
                      "point": [float(x) for x in c["p"]], "frame": c["C"].tolist(), "mu": c["mu"]}
                     for c in contacts],
        "states": states,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / "solo12_compliant.json"
    target.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

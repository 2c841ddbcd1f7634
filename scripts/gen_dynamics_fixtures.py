#!/usr/bin/env python3
"""Golden values for the rigid-body dynamics tests, computed by Pinocchio (the independent
reference) from the same URDF files signorini reads.

For each robot and a few random states (fixed seed): joint and frame placements, RNEA
(with and without external forces), M (CRBA), ABA (with and without external forces),
gravity torque, joint/frame/point Jacobians in the three reference frames, M⁻¹·x from
Pinocchio's tree-sparse Cholesky, integrate and difference. Written to
tests/fixtures/dynamics/<robot>.json; the Rust test tests/dynamics_golden.rs compares.

  scripts/with_ros.sh python scripts/gen_dynamics_fixtures.py

Robots: example-robot-data (pip) URDFs named relative to its `share` directory, and the
robots of this repository named relative to the repository.
"""

import json
import pathlib
import sys

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "dynamics"
STATES = 4


def erd_share():
    import site
    for d in site.getsitepackages():
        share = pathlib.Path(d) / "cmeel.prefix" / "share"
        if (share / "example-robot-data").is_dir():
            return share
    sys.exit("example-robot-data is not installed (pip install example-robot-data)")


# name, source ("erd" or "repo"), path, floating base
ROBOTS = [
    ("ur5", "erd", "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf", False),
    ("panda", "erd", "example-robot-data/robots/panda_description/urdf/panda.urdf", False),
    ("solo12", "erd", "example-robot-data/robots/solo_description/robots/solo12.urdf", True),
    ("talos", "erd", "example-robot-data/robots/talos_data/robots/talos_reduced.urdf", True),
    ("tiago_no_hand", "erd", "example-robot-data/robots/tiago_description/robots/tiago_no_hand.urdf", False),
    ("double_pendulum_continuous", "erd",
     "example-robot-data/robots/double_pendulum_description/urdf/double_pendulum_continuous.urdf", False),
    ("quadruped", "repo", "urdf/quadruped.urdf", True),
    ("arm7", "repo", "urdf/arm7.urdf", False),
]

REFERENCES = {
    "WORLD": pin.ReferenceFrame.WORLD,
    "LOCAL": pin.ReferenceFrame.LOCAL,
    "LOCAL_WORLD_ALIGNED": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
}


def se3(m):
    return {"rotation": m.rotation.tolist(), "translation": m.translation.tolist()}


def random_configuration(model, rng):
    q = np.zeros(model.nq)
    for j in model.joints[1:]:
        iq, nq = j.idx_q, j.nq
        name = j.shortname()
        if name == "JointModelFreeFlyer":
            quat = rng.normal(size=4)
            q[iq:iq + 3] = rng.uniform(-1.0, 1.0, 3)
            q[iq + 3:iq + 7] = quat / np.linalg.norm(quat)
        elif nq == 2:  # unbounded revolute: (cos, sin)
            t = rng.uniform(-np.pi, np.pi)
            q[iq:iq + 2] = (np.cos(t), np.sin(t))
        else:
            lo, hi = model.lowerPositionLimit[iq], model.upperPositionLimit[iq]
            lo = max(lo, -np.pi) if np.isfinite(lo) else -np.pi
            hi = min(hi, np.pi) if np.isfinite(hi) else np.pi
            q[iq] = rng.uniform(lo, hi) if hi > lo else lo
    return q


def state(model, rng):
    data = model.createData()
    nv = model.nv
    q = random_configuration(model, rng)
    v = rng.normal(size=nv)
    a = rng.normal(size=nv)
    tau = rng.normal(size=nv) * 5.0
    fext = [pin.Force(rng.normal(size=6)) for _ in range(model.njoints)]
    fext[0] = pin.Force.Zero()
    x = rng.normal(size=nv)
    dt = 0.01

    out = {"q": q.tolist(), "v": v.tolist(), "a": a.tolist(), "tau": tau.tolist(),
           "fext": [f.vector.tolist() for f in fext], "x": x.tolist(), "dt": dt}

    pin.forwardKinematics(model, data, q, v)
    pin.updateFramePlacements(model, data)
    out["oMi"] = [se3(m) for m in data.oMi]
    out["oMf"] = [se3(m) for m in data.oMf]
    out["v_local"] = [m.vector.tolist() for m in data.v]

    out["rnea"] = pin.rnea(model, data, q, v, a).tolist()
    out["rnea_fext"] = pin.rnea(model, data, q, v, a, pin.StdVec_Force(fext)).tolist()
    out["gravity"] = pin.computeGeneralizedGravity(model, data, q).tolist()
    out["nle"] = pin.nonLinearEffects(model, data, q, v).tolist()
    out["aba"] = pin.aba(model, data, q, v, tau).tolist()
    out["aba_fext"] = pin.aba(model, data, q, v, tau, pin.StdVec_Force(fext)).tolist()

    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    out["M"] = M.tolist()
    pin.cholesky.decompose(model, data)
    out["minv_x"] = pin.cholesky.solve(model, data, x.copy()).tolist()
    # M = U·D·Uᵀ (U unit upper): signorini's L is Uᵀ.
    out["ltdl_d"] = data.D.tolist()

    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    joints = sorted({1, model.njoints // 2, model.njoints - 1} - {0}) if model.njoints > 1 else []
    out["joint_jacobians"] = [
        {"joint": jid, "reference": name, "J": pin.getJointJacobian(model, data, jid, ref).tolist()}
        for jid in joints for name, ref in REFERENCES.items()]
    frames = sorted({model.nframes - 1, model.nframes // 2})
    out["frame_jacobians"] = [
        {"frame": fid, "reference": name, "J": pin.getFrameJacobian(model, data, fid, ref).tolist()}
        for fid in frames for name, ref in REFERENCES.items()]

    # Velocity Jacobian of a world point carried by the last joint: an operational frame
    # placed there, its LOCAL_WORLD_ALIGNED Jacobian's linear rows.
    if model.njoints > 1:
        jid = model.njoints - 1
        p_local = rng.normal(size=3) * 0.1
        p_world = data.oMi[jid].act(p_local)
        extended = pin.Model(model)
        fid = extended.addFrame(pin.Frame("point", jid, 0, pin.SE3(np.eye(3), p_local), pin.FrameType.OP_FRAME))
        ed = extended.createData()
        pin.computeJointJacobians(extended, ed, q)
        pin.updateFramePlacements(extended, ed)
        J = pin.getFrameJacobian(extended, ed, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]
        out["point_jacobian"] = {"joint": jid, "point": p_world.tolist(), "J": J.tolist()}

    q_next = pin.integrate(model, q, v * dt)
    out["integrate"] = q_next.tolist()
    q2 = random_configuration(model, rng)
    out["q2"] = q2.tolist()
    out["difference"] = pin.difference(model, q, q2).tolist()
    return out


def main():
    share = erd_share()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, source, rel, floating in ROBOTS:
        path = (share if source == "erd" else ROOT) / rel
        root_joint = [pin.JointModelFreeFlyer()] if floating else []
        model = pin.buildModelFromUrdf(str(path), *root_joint)
        rng = np.random.default_rng(sum(map(ord, name)))  # fixed seed per robot
        fixture = {
            "robot": name,
            "source": source,
            "urdf": rel,
            "floating_base": floating,
            "generator": "scripts/gen_dynamics_fixtures.py",
            "pinocchio": pin.__version__,
            "nq": model.nq,
            "nv": model.nv,
            "joint_names": list(model.names),
            "frame_names": [f.name for f in model.frames],
            "frame_parents": [f.parentJoint for f in model.frames],
            "frame_types": [str(f.type).split(".")[-1] for f in model.frames],
            "states": [state(model, rng) for _ in range(STATES)],
        }
        target = OUT / f"{name}.json"
        target.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
        print(f"{target.relative_to(ROOT)}: nq {model.nq} nv {model.nv} frames {model.nframes}")


if __name__ == "__main__":
    main()

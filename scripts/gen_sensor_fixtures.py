#!/usr/bin/env python3
"""Golden values for the joint force/torque sensor test (tests/sensors.rs), computed by
Pinocchio (the independent reference) from the same URDF signorini reads.

The bundled arm (urdf/arm7.urdf) at rest in the initial posture of config/arm7.yaml: for
each sensor below, RNEA at (q0, v = 0, a = 0) and the wrench Pinocchio's data.f[joint]
holds (the wrench the parent applies to the child's subtree through the joint, in the
joint frame), expressed in the sensor frame (joint_M_sensor from xyz/rpy) with
SE3.actInv; negated for child_to_parent. With it, the mass of the subtree beyond the joint
(the force's norm is that weight). Written to tests/fixtures/sensors/arm7_force_torque.json.

  scripts/with_ros.sh python scripts/gen_sensor_fixtures.py
"""

import json
import pathlib

import numpy as np
import pinocchio as pin
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "sensors" / "arm7_force_torque.json"

# name, joint, xyz, rpy, direction: the wrist at its flange, the elbow turned and flipped.
SENSORS = [
    ("wrist_ft", "joint7", [0.0, 0.0, 0.05], [0.0, 0.0, 0.3], "parent_to_child"),
    ("elbow_ft", "joint4", [0.02, -0.01, 0.03], [0.2, -0.1, 0.4], "child_to_parent"),
]


def main():
    config = yaml.safe_load((ROOT / "config" / "arm7.yaml").read_text())
    urdf = (ROOT / "config" / config["robot"]["urdf"]).resolve()
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    q = pin.neutral(model)
    for name, value in config["robot"]["initial_posture"].items():
        q[model.joints[model.getJointId(name)].idx_q] = value
    zero = np.zeros(model.nv)
    pin.rnea(model, data, q, zero, zero)
    sensors = []
    for name, joint, xyz, rpy, direction in SENSORS:
        j = model.getJointId(joint)
        joint_m_sensor = pin.SE3(pin.rpy.rpyToMatrix(*rpy), np.array(xyz))
        f = joint_m_sensor.actInv(data.f[j])
        sign = 1.0 if direction == "parent_to_child" else -1.0
        subtree = [k for k in range(j, model.njoints) if j in model.supports[k]]
        sensors.append({
            "name": name,
            "joint": joint,
            "xyz": xyz,
            "rpy": rpy,
            "direction": direction,
            "force": (sign * f.linear).tolist(),
            "torque": (sign * f.angular).tolist(),
            "subtree_mass": sum(model.inertias[k].mass for k in subtree),
        })
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "generator": "scripts/gen_sensor_fixtures.py",
        "pinocchio": pin.__version__,
        "urdf": "urdf/arm7.urdf",
        "q": q.tolist(),
        "gravity": model.gravity.linear.tolist(),
        "sensors": sensors,
    }, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

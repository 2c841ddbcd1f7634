#!/usr/bin/env python3
"""Golden values for the entity states of the standard simulator API (tests/entities.rs),
computed by Pinocchio (the independent reference) from the same URDF signorini reads.

The bundled quadruped (urdf/quadruped.urdf) on a free flyer at a random (q, v, a) (seeded):
for every link frame, its placement in world, its velocity and its classical acceleration
in LOCAL_WORLD_ALIGNED axes (getFrameVelocity, getFrameClassicalAcceleration), which is
what GetEntityState reports for `<robot>/<link>`. Written to
tests/fixtures/entities/quadruped_links.json.

  scripts/with_ros.sh python scripts/gen_entity_fixtures.py
"""

import json
import pathlib

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "entities" / "quadruped_links.json"


def main():
    urdf = ROOT / "urdf" / "quadruped.urdf"
    model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    data = model.createData()
    rng = np.random.default_rng(25)
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    q[:3] = rng.uniform(-1.0, 1.0, 3)
    v = rng.uniform(-1.0, 1.0, model.nv)
    a = rng.uniform(-2.0, 2.0, model.nv)
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    frame = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    links = []
    for fid, f in enumerate(model.frames):
        if f.type != pin.FrameType.BODY:
            continue
        m = data.oMf[fid]
        vel = pin.getFrameVelocity(model, data, fid, frame)
        acc = pin.getFrameClassicalAcceleration(model, data, fid, frame)
        links.append({
            "link": f.name,
            "translation": m.translation.tolist(),
            "rotation": m.rotation.tolist(),
            "linear": vel.linear.tolist(),
            "angular": vel.angular.tolist(),
            "linear_acceleration": acc.linear.tolist(),
            "angular_acceleration": acc.angular.tolist(),
        })
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "urdf": "urdf/quadruped.urdf",
        "q": q.tolist(),
        "v": v.tolist(),
        "a": a.tolist(),
        "links": links,
    }, indent=1) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(links)} links")


if __name__ == "__main__":
    main()

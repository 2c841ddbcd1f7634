#!/usr/bin/env python3
"""Inventory of every URDF in the pip package example-robot-data as Pinocchio sees it:
whether it loads, nq, nv, joints (in order), frames, how many collision geometries
Pinocchio builds (None when its geometry loader fails), and the movable joints whose body
(Pinocchio's, with its fixed-joint children merged) has a mass or a principal moment of
inertia below MuJoCo's mjMINVAL (1e-15): the bodies a moving body rule refuses. Written to
tests/fixtures/erd_inventory.json for tests/erd_inventory.rs.

  scripts/with_ros.sh python scripts/gen_erd_inventory.py
"""

import json
import pathlib
import sys

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
# MuJoCo's mjMINVAL: the smallest mass and principal moment a moving body may have.
MINVAL = 1e-15
sys.path.insert(0, str(ROOT / "scripts"))
from gen_dynamics_fixtures import erd_share  # noqa: E402


def main():
    share = erd_share()
    robots = share / "example-robot-data" / "robots"
    entries = []
    for path in sorted(robots.rglob("*.urdf")):
        rel = str(path.relative_to(share))
        entry = {"urdf": rel}
        try:
            model = pin.buildModelFromUrdf(str(path))
        except Exception as e:  # noqa: BLE001 - recorded, not hidden
            entry["pinocchio_error"] = str(e).splitlines()[0].replace(str(share) + "/", "")
            entries.append(entry)
            continue
        entry.update(nq=model.nq, nv=model.nv, njoints=model.njoints, nframes=model.nframes,
                     joint_names=list(model.names))
        entry["invalid_inertia"] = [
            model.names[i] for i in range(1, model.njoints)
            if model.inertias[i].mass < MINVAL or np.linalg.eigvalsh(model.inertias[i].inertia).min() < MINVAL
        ]
        try:
            geom = pin.buildGeomFromUrdf(model, str(path), pin.GeometryType.COLLISION, package_dirs=[str(share)])
            entry["ngeoms"] = geom.ngeoms
        except Exception as e:  # noqa: BLE001
            entry["ngeoms"] = None
            entry["geometry_error"] = str(e).splitlines()[0]
        entries.append(entry)
    out = ROOT / "tests" / "fixtures" / "erd_inventory.json"
    out.write_text(json.dumps({"generator": "scripts/gen_erd_inventory.py", "pinocchio": pin.__version__,
                               "urdfs": entries}, indent=1) + "\n")
    loads = sum("nq" in e for e in entries)
    print(f"{out.relative_to(ROOT)}: {len(entries)} URDFs, {loads} load in Pinocchio, "
          f"{sum(e.get('ngeoms') is not None for e in entries)} with collision geometry")


if __name__ == "__main__":
    main()

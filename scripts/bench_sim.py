#!/usr/bin/env python3
"""signorini's simulation step vs MuJoCo's, on solo12 standing, in one run.

Both load solo12 from the same example-robot-data URDF (MuJoCo through its URDF importer:
meshes by basename, a floating joint injected at the root, robot–robot collisions off,
defaults: Newton, pyramidal cones, Δt = 1 ms), start at the SRDF `standing` posture on
flat ground, are held by the same joint PD (kp 5, kd 0.1; MuJoCo: position actuators),
settle for 1 s, and are timed over 1000 steps (median of ROUNDS runs each, alternated).

  scripts/with_ros.sh python scripts/bench_sim.py [--rounds 5] [--write]
"""

import argparse
import datetime
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import mujoco
import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_dynamics import write_section  # noqa: E402
from gen_dynamics_fixtures import erd_share  # noqa: E402

KP, KD = 5.0, 0.1


def solo12_paths():
    share = erd_share()
    robots = share / "example-robot-data" / "robots" / "solo_description"
    return share, robots / "robots" / "solo12.urdf", robots / "srdf" / "solo.srdf"


def standing_posture():
    share, urdf, srdf = solo12_paths()
    model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, str(srdf))
    q = model.referenceConfigurations["standing"]
    return {name: q[model.joints[j].idx_q] for j, name in enumerate(model.names) if j >= 2}


def mujoco_solo12():
    share, urdf, _ = solo12_paths()
    text = urdf.read_text()
    assets = {}
    for uri in set(re.findall(r'filename="([^"]+)"', text)):
        path = share / uri.replace("package://", "")
        assets[path.name] = path.read_bytes()
        text = text.replace(uri, path.name)
    root = re.search(r'<link\s+name="([^"]+)"', text).group(1)
    text = text.replace(
        "</robot>",
        f'<link name="world"/><joint name="floating_base" type="floating"><parent link="world"/>'
        f'<child link="{root}"/></joint></robot>')
    spec = mujoco.MjSpec.from_string(text, assets=assets)
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[5, 5, 0.1], contype=2, conaffinity=1)
    for g in spec.geoms:
        if g.type != mujoco.mjtGeom.mjGEOM_PLANE:
            g.contype, g.conaffinity = 1, 2  # robot geoms touch the ground, not each other
    posture = standing_posture()
    for j in spec.joints:
        if j.name in posture:
            a = spec.add_actuator(name=j.name, target=j.name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            a.set_to_position(kp=KP, kv=KD)
    model = spec.compile()
    data = mujoco.MjData(model)
    for name, value in posture.items():
        data.qpos[model.joint(name).qposadr[0]] = value
        data.ctrl[model.actuator(name).id] = value
    # Lower onto the ground: the lowest geometry point at z = 0.
    mujoco.mj_forward(model, data)
    data.qpos[2] = 0.5
    mujoco.mj_forward(model, data)
    lowest = min(data.geom_xpos[g][2] - model.geom_rbound[g] for g in range(model.ngeom)
                 if model.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE)
    data.qpos[2] -= lowest
    return model, data


def time_mujoco(model, data, steps=1000):
    t0 = time.perf_counter()
    mujoco.mj_step(model, data, nstep=steps)
    return (time.perf_counter() - t0) / steps * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--example", "sim_timing"], cwd=ROOT, check=True)
    model, data = mujoco_solo12()
    mujoco.mj_step(model, data, nstep=1000)  # settle 1 s
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-sim-"))
    ours, theirs = [], []
    for r in range(args.rounds):
        theirs.append(statistics.median(time_mujoco(model, data) for _ in range(5)))
        out = work / f"ours-{r}.json"
        subprocess.run([str(ROOT / "target/release/examples/sim_timing"), "--rounds", "5", "--json", str(out)],
                       cwd=ROOT, check=True, capture_output=True)
        ours.append(json.loads(out.read_text())["solo12_standing"])
    ratio = statistics.median(o["us_per_step"] / t for o, t in zip(ours, theirs))
    o = ours[-1]
    text = (
        f"Measured {datetime.date.today()}, {args.rounds} alternated rounds (MuJoCo {mujoco.__version__} "
        f"`mj_step` from the `mujoco` wheel, 1000 steps per run, median of 5 runs; signorini `--release`, "
        f"the same); after 1 s of settling under the same joint PD (kp {KP}, kd {KD}).\n\n"
        "| scene | MuJoCo µs/step (contacts) | signorini µs/step (contacts, ADMM iterations/step, max ε_abs) | ratio |\n"
        "|---|---:|---:|---:|\n"
        f"| solo12 standing, Δt 1 ms | {statistics.median(theirs):.1f} ({data.ncon}) "
        f"| {statistics.median(x['us_per_step'] for x in ours):.1f} ({o['contacts']}, {o['iterations']:.1f}, "
        f"{o['eps_abs']:.1e}) | **{ratio:.2f}** |\n\n"
        "Command: `scripts/with_ros.sh python scripts/bench_sim.py --write` (in `make bench`).")
    print(text)
    if args.write:
        write_section("sim", "Simulation step: signorini / MuJoCo", text)


if __name__ == "__main__":
    main()

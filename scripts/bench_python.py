#!/usr/bin/env python3
"""Batched rollouts from Python: signorini.Batch against mujoco.rollout, same run, same machine.

Robots: the bundled quadruped (config/quadruped.yaml: its URDF, posture and hold gains; its
crate left out) and
solo12 (example-robot-data, its SRDF's `standing` posture, kp 5, kd 0.1, as
scripts/bench_sim.py), from the same URDF in both (MuJoCo through its URDF importer,
scripts/mujoco_plant.py: meshes by basename, a floating joint at the root, robot–robot
collisions off, Δt = 1 ms, its defaults otherwise: Newton, pyramidal cones, soft contacts),
lowest shape on the ground, settled for 1 s under the joint PD.

Two loads, each from the settled state, NWORLDS worlds × STEPS steps per timed run:
  - standing: the joint PD holds the posture (signorini: `Batch.step(None, nstep=STEPS)`,
    the configuration's hold PD in Rust; MuJoCo: position actuators of the same kp/kd,
    `mujoco.rollout` with the posture as constant control);
  - random torques: seeded uniform torques in ±kp·RANDOM_ERROR (the hold PD's torque at that
    error; within the effort limits: solo12's URDF says 1000 N·m), new every step, the same array for both (signorini: `signorini.rollout`; MuJoCo: motor
    actuators clamped to the effort limits, `mujoco.rollout`); both record every state.
At 1..nproc threads (signorini `num_threads`, MuJoCo one MjData per thread), ROUNDS
alternated rounds; steps/s = NWORLDS·STEPS / wall time, medians; per core = total /
threads. ε_abs: signorini's NCP criterion (seed 002, N), the largest over the timed steps,
with the steps whose solve missed its tolerance. Binding overhead: the same world-steps as
NWORLDS separate `Batch.step(nstep=1)` calls of one world vs one call of STEPS steps.

  scripts/with_ros.sh python scripts/bench_python.py [--rounds 5] [--worlds 16] [--steps 500] [--write]
"""

import argparse
import datetime
import os
import pathlib
import statistics
import sys
import tempfile
import time

import mujoco
import mujoco.rollout
import numpy as np
import yaml

import signorini

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import mujoco_plant  # noqa: E402
from bench_dynamics import write_section  # noqa: E402

DT = 1e-3  # both: the configurations' rate_hz 1000
SETTLE = 1000  # steps (1 s) under the PD before timing
RANDOM_ERROR = 0.1  # rad: random torques within ± the hold PD's torque kp·RANDOM_ERROR
SOLO_KP, SOLO_KD = 5.0, 0.1  # as scripts/bench_sim.py
QUADRUPED_CONFIG = ROOT / "config" / "quadruped.yaml"
FULL = mujoco.mjtState.mjSTATE_FULLPHYSICS


def solo12_config(work):
    """A signorini configuration of solo12 standing (written into `work`)."""
    share, urdf, _ = mujoco_plant.solo12_paths()
    config = {"mode": "sim", "rate_hz": 1000,
              "robot": {"urdf": str(urdf), "floating_base": True, "package_dirs": [str(share)],
                        "initial_posture": mujoco_plant.solo12_posture()},
              "sim": {"hold_kp": SOLO_KP, "hold_kd": SOLO_KD}}
    path = work / "solo12.yaml"
    path.write_text(yaml.safe_dump(config))
    return path, urdf, share


def quadruped_config(work):
    """config/quadruped.yaml without its crate (the MuJoCo scene has the robot only)."""
    config = yaml.safe_load(QUADRUPED_CONFIG.read_text())
    config["robot"]["urdf"] = str((QUADRUPED_CONFIG.parent / config["robot"]["urdf"]).resolve())
    config["sim"].pop("bodies", None)
    path = work / "quadruped.yaml"
    path.write_text(yaml.safe_dump(config))
    return path, config


def scenes(work):
    """name -> (signorini config, URDF, package share, posture, kp, kd)."""
    path, q = quadruped_config(work)
    solo, solo_urdf, share = solo12_config(work)
    return {
        "quadruped": (path, pathlib.Path(q["robot"]["urdf"]), None,
                      q["robot"]["initial_posture"], float(q["sim"]["hold_kp"]), float(q["sim"]["hold_kd"])),
        "solo12": (solo, solo_urdf, share, mujoco_plant.solo12_posture(), SOLO_KP, SOLO_KD),
    }


def mujoco_model(urdf, share, names, posture, kp, kd, torque):
    """The robot in MuJoCo with one actuator per controlled joint (in `names` order):
    position servos (kp, kd) at the posture, or motors clamped to the effort limits."""
    spec = mujoco_plant.on_ground(mujoco_plant.urdf_spec(urdf, share, floating=True), DT)
    joints = {j.name: j for j in spec.joints}
    for name in names:
        a = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
        if torque:
            limit = joints[name].actfrcrange[1]
            if limit > 0:
                a.ctrllimited, a.ctrlrange = True, [-limit, limit]
        else:
            a.set_to_position(kp=kp, kv=kd)
    return spec.compile()


def mujoco_settled(scene, names):
    """(position model, motor model, settled full-physics state, posture control)."""
    _, urdf, share, posture, kp, kd = scene
    held = mujoco_model(urdf, share, names, posture, kp, kd, torque=False)
    motor = mujoco_model(urdf, share, names, posture, kp, kd, torque=True)
    data = mujoco.MjData(held)
    ctrl = np.array([posture.get(n, 0.0) for n in names])
    for name in names:
        data.qpos[held.joint(name).qposadr[0]] = posture.get(name, 0.0)
    data.ctrl[:] = ctrl
    mujoco_plant.place_on_ground(held, data)
    mujoco.mj_step(held, data, nstep=SETTLE)
    state = np.empty(mujoco.mj_stateSize(held, FULL))
    mujoco.mj_getState(held, data, state, FULL)
    return held, motor, state, ctrl


def random_torques(batch, steps, amplitude, seed=1):
    rng = np.random.default_rng(seed)
    return amplitude * rng.uniform(-1.0, 1.0, (batch.num_worlds, steps, batch.nu))


def time_call(call):
    t = time.perf_counter()
    call()
    return time.perf_counter() - t


def run_scene(name, scene, args, threads):
    """The rounds of one robot; returns rows and the criterion summary."""
    config = scene[0]
    batch = signorini.Batch(config, args.worlds, num_threads=1)
    names = batch.control_names
    batch.step(nstep=SETTLE)  # settle under the hold PD
    settled = batch.get_state()
    amplitude = np.minimum(np.abs(np.array(signorini_limits(batch, scene))), scene[4] * RANDOM_ERROR)
    u = random_torques(batch, args.steps, amplitude)
    held, motor, mj_state, ctrl = mujoco_settled(scene, names)
    mj_init = np.repeat(mj_state[None], args.worlds, axis=0)
    mj_ctrl = np.repeat(ctrl[None, None], args.worlds, axis=0)
    datas = {k: [mujoco.MjData(held) for _ in range(k)] for k in threads}
    mdatas = {k: [mujoco.MjData(motor) for _ in range(k)] for k in threads}
    out = np.empty((args.worlds, args.steps, batch.nstate))
    mj_out = np.empty((args.worlds, args.steps, mujoco.mj_stateSize(held, FULL)))
    times = {(load, who, k): [] for load in ("standing", "torques") for who in ("ours", "mujoco") for k in threads}
    stats = {"standing": [], "torques": []}
    for _ in range(args.rounds):
        for k in threads:
            batch.num_threads = k
            batch.set_state(settled)
            batch.reset_stats()
            times["standing", "ours", k].append(time_call(lambda: batch.step(nstep=args.steps)))
            stats["standing"].append(batch.stats())
            times["standing", "mujoco", k].append(time_call(lambda: mujoco.rollout.rollout(
                held, datas[k], mj_init, mj_ctrl, nstep=args.steps, state=mj_out)))
            batch.reset_stats()
            times["torques", "ours", k].append(time_call(lambda: signorini.rollout(batch, settled, u, state=out)))
            stats["torques"].append(batch.stats())
            times["torques", "mujoco", k].append(time_call(lambda: mujoco.rollout.rollout(
                motor, mdatas[k], mj_init, u, state=mj_out)))
    steps = args.worlds * args.steps
    rows = []
    for load in ("standing", "torques"):
        s = stats[load]
        crit = max(x["max_criterion"] for x in s)
        above = sum(x["above_1e-6"] for x in s)
        unconv = sum(x["unconverged"] for x in s)
        total = sum(x["steps"] for x in s)
        contacts = statistics.median(x["contacts"] / x["steps"] for x in s)
        for k in threads:
            ours = [steps / t for t in times[load, "ours", k]]
            theirs = [steps / t for t in times[load, "mujoco", k]]
            ratio = statistics.median(a / b for a, b in zip(ours, theirs))
            rows.append((name, load, k, statistics.median(ours), statistics.median(theirs), ratio,
                         crit, above, unconv, total, contacts))
    return rows, binding_overhead(config, settled, args)


def signorini_limits(batch, scene):
    """Each control's effort limit from the URDF (signorini.Model, independent of the Batch)."""
    _, urdf, share, *_ = scene
    model = signorini.Model.from_urdf(urdf, floating_base=True, package_dirs=[share] if share else [])
    limits = dict(zip(model.joint_names[2:], model.effort_limit[6:]))
    return [limits[n] for n in batch.control_names]


def binding_overhead(config, settled, args):
    """µs per world-step of one world standing under the hold PD, single thread: STEPS calls
    of one step (the Python → Rust call, the views' copies in and out) vs one call of STEPS
    steps (the Rust stepper alone)."""
    one = signorini.Batch(config, 1, num_threads=1)
    s0 = np.ascontiguousarray(settled[:1])
    per_call, per_step = [], []
    for _ in range(args.rounds):
        one.set_state(s0)
        per_call.append(time_call(lambda: [one.step() for _ in range(args.steps)]) / args.steps)
        one.set_state(s0)
        per_step.append(time_call(lambda: one.step(nstep=args.steps)) / args.steps)
    return 1e6 * statistics.median(per_call), 1e6 * statistics.median(per_step)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-py-"))
    threads = list(range(1, (os.cpu_count() or 1) + 1))
    table = ["| robot, load | threads | signorini steps/s (per core) | MuJoCo steps/s (per core) | ratio "
             "| signorini max ε_abs (N) | steps ε_abs > 1e-6, unconverged, of | contacts/step |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    overheads = []
    for name, scene in scenes(work).items():
        rows, overhead = run_scene(name, scene, args, threads)
        overheads.append((name, overhead))
        for (robot, load, k, ours, theirs, ratio, crit, above, unconv, total, contacts) in rows:
            table.append(f"| {robot}, {'standing (PD)' if load == 'standing' else 'random torques'} | {k} "
                         f"| {ours:,.0f} ({ours / k:,.0f}) | {theirs:,.0f} ({theirs / k:,.0f}) | **{ratio:.2f}** "
                         f"| {crit:.1e} | {above}, {unconv}, of {total} | {contacts:.1f} |")
    binding = "; ".join(f"{n}: {a:.2f} µs per `step()` call of one step vs {b:.2f} µs per step inside one "
                        f"`step(nstep={args.steps})` call ({a - b:+.2f} µs per call)" for n, (a, b) in overheads)
    text = (
        f"Measured {datetime.date.today()}, MuJoCo {mujoco.__version__} (`mujoco.rollout`, its defaults: Newton, "
        f"pyramidal cones, soft contacts), signorini's Python package (`cargo build --release`, its defaults: ADMM "
        f"on the NCP, tolerance 1e-6, `contact.polish` on); Δt 1 ms on both; {os.cpu_count()} cores. "
        f"{args.worlds} worlds × {args.steps} steps per timed run from the state settled for 1 s, {args.rounds} "
        "alternated rounds, medians; ratio = median of the per-round ratios signorini / MuJoCo (> 1: signorini "
        "faster). Standing: the joint PD in the engine (signorini `Batch.step(None, nstep)`, MuJoCo position "
        f"actuators through `mujoco.rollout`); random torques: uniform in ±kp·{RANDOM_ERROR:g} rad (quadruped "
        "20 N·m, solo12 0.5 N·m) within the effort limits, new every step, the same array for both, `signorini.rollout` and `mujoco.rollout` (both record every "
        "state). ε_abs: the NCP criterion of seed 002 in force units, the largest over every timed step "
        "(the first step of a run starts cold: `set_state` forgets the warm start); the steps above 1e-6 N "
        "and those whose solve missed its tolerance are counted over every round and thread count.\n\n"
        + "\n".join(table) + "\n\n"
        f"Binding overhead (one world standing under the hold PD, single thread): {binding}.\n\n"
        f"Command: `scripts/with_ros.sh python scripts/bench_python.py --rounds {args.rounds} --worlds "
        f"{args.worlds} --steps {args.steps} --write`.")
    print(text)
    if args.write:
        write_section("python_batch", "Batched rollouts from Python: signorini.Batch / mujoco.rollout", text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""signorini's step time against the number of contacts, and MuJoCo's on the same piles, in one run.

Piles of 1 kg boxes (side 0.1 m, μ 0.6 with each other and the ground): a lattice of
k × k columns (k = ⌈N^{1/3}⌉, pitch 0.14 m: no two boxes touch at the start) filled layer by layer, each box jittered by up
to ±1 cm horizontally, ±0.5 cm vertically and ±0.2 rad in yaw (seeded), the lowest layer
0.3 m above the ground. Scenes: one pile of 10, 100 and 1000 boxes, and 10 separate piles
of 10 boxes 1 m apart (where islands matter). Both simulators step the same layout for
`--steps` steps at Δt 1 ms: MuJoCo 4.0 from MJCF with its defaults (Newton, pyramidal
cones, soft constraints), signorini by `cargo run --release --example sim_scale` with its
defaults (ADMM on the NCP at tolerance 1e-6, polish) with `contact.islands: true`, and with `--no-islands`.
The 1000-box pile runs `--big-steps` steps only in both (default 300: the lowest layers
land at 0.25 s; its settled pile has ~3000–5700 contacts in MuJoCo, a dense problem of
gigabytes and minutes per step in signorini), and a signorini run longer than `--budget`
seconds of wall time is cut there (the steps done are reported).

Reported per scene: mean µs/step and mean contacts over the steps done, unconverged
steps, fallbacks, signorini's islands' ADMM iterations per step and the resident memory
its stepper took per contact. The exponent is the least-squares slope of log(µs/step)
against log(contacts) over the single piles, and over every step with at least 10 contacts
of every pile (pooled).

  scripts/with_ros.sh python scripts/bench_scale.py [--steps 1000] [--big-steps 300] [--budget 120] [--write]
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_dynamics import write_section  # noqa: E402

DT, G0, HALF, MU, DROP, PITCH = 1e-3, 9.81, 0.05, 0.6, 0.3, 0.14
SCENES = [("pile10", "1 pile of 10", 1, 10), ("pile100", "1 pile of 100", 1, 100),
          ("pile1000", "1 pile of 1000", 1, 1000), ("piles10x10", "10 piles of 10", 10, 10)]
SINGLE = ["pile10", "pile100", "pile1000"]


def layout(piles, n, seed=28):
    """Box poses [x, y, z, yaw] of `piles` piles of `n` boxes, 1 m apart along x."""
    rng = np.random.default_rng(seed)
    k = math.ceil(round(n ** (1 / 3), 9))
    boxes = []
    for p in range(piles):
        for i in range(n):
            layer, cell = divmod(i, k * k)
            row, col = divmod(cell, k)
            jx, jy, jz, yaw = rng.uniform(-1, 1, 4) * [0.01, 0.01, 0.005, 0.2]
            boxes.append([float(v) for v in (1.0 * p + PITCH * col + jx, PITCH * row + jy,
                                             HALF + DROP + PITCH * layer + jz, yaw)])
    return boxes


def mjcf(boxes):
    friction = f'friction="{MU!r} 0.005 0.0001"'
    body = "".join(
        f'<body pos="{x!r} {y!r} {z!r}" quat="{math.cos(a / 2)!r} 0 0 {math.sin(a / 2)!r}"><freejoint/>'
        f'<geom type="box" size="{HALF!r} {HALF!r} {HALF!r}" mass="1" {friction}/></body>'
        for x, y, z, a in boxes)
    return (f'<mujoco><option timestep="{DT!r}" gravity="0 0 {-G0!r}"/><size memory="2G"/><worldbody>'
            f'<geom type="plane" size="50 50 0.1" {friction}/>{body}</worldbody></mujoco>')


def run_mujoco(boxes, steps):
    model = mujoco.MjModel.from_xml_string(mjcf(boxes))
    data = mujoco.MjData(model)
    times, contacts = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        mujoco.mj_step(model, data)
        times.append((time.perf_counter() - t0) * 1e6)
        contacts.append(data.ncon)
    return {"steps": steps, "us_mean": float(np.mean(times)), "contacts_mean": float(np.mean(contacts)),
            "contacts_max": int(max(contacts)), "step_us": times, "step_contacts": contacts,
            "lowest": float(min(data.xpos[1:, 2]))}


def run_ours(path, steps, budget, islands, out):
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    args = [str(target / "release/examples/sim_scale"), "--layout", str(path), "--steps", str(steps),
            "--budget", str(budget), "--json", str(out)] + ([] if islands else ["--no-islands"])
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())


def slope(xs, ys):
    pairs = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pairs) < 2:
        return float("nan")
    lx, ly = np.array(pairs).T
    return float(np.polyfit(lx, ly, 1)[0])


def pooled(runs, least=10):
    xs, ys = [], []
    for r in runs:
        for c, t in zip(r["step_contacts"], r["step_us"]):
            if c >= least:
                xs.append(c)
                ys.append(t)
    return slope(xs, ys)


def table(results, budget):
    lines = ["| scene | MuJoCo µs/step (contacts) | signorini µs/step (contacts), steps done | ratio "
             "| unconverged, fallbacks | ADMM iterations/step | kB/contact "
             "| without islands µs/step (steps done, unconverged) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, name, _, _ in SCENES:
        m, o, n = results[key]["mujoco"], results[key]["ours"], results[key]["no_islands"]
        cut = lambda r: f"{r['steps']}" + ("" if r["steps"] >= m["steps"] else f" (cut at {budget:g} s)")
        lines.append(
            f"| {name} | {m['us_mean']:.1f} ({m['contacts_mean']:.0f}) | {o['us_mean']:.1f} "
            f"({o['contacts_mean']:.0f}), {cut(o)} | {o['us_mean'] / m['us_mean']:.2f} "
            f"| {o['unconverged']}, {o['fallbacks']} | {o['iterations_mean']:.1f} | {o['kb_per_contact']:.1f} "
            f"| {n['us_mean']:.1f} ({cut(n)}, {n['unconverged']}) |")
    fits = {who: (slope([results[k][who]["contacts_mean"] for k in SINGLE],
                        [results[k][who]["us_mean"] for k in SINGLE]),
                  pooled([results[k][who] for k in SINGLE])) for who in ("mujoco", "ours", "no_islands")}
    lines += ["", "| exponent of µs/step against contacts | MuJoCo | signorini | signorini without islands |",
              "|---|---:|---:|---:|",
              "| piles of 10, 100, 1000 (means per pile) | {:.2f} | {:.2f} | {:.2f} |".format(
                  *(fits[w][0] for w in ("mujoco", "ours", "no_islands"))),
              "| every step with ≥ 10 contacts, pooled | {:.2f} | {:.2f} | {:.2f} |".format(
                  *(fits[w][1] for w in ("mujoco", "ours", "no_islands")))]
    return "\n".join(lines), fits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--big-steps", type=int, default=300, help="steps of the 1000-box pile")
    parser.add_argument("--budget", type=float, default=120.0, help="wall seconds per signorini run")
    parser.add_argument("--only", choices=[k for k, *_ in SCENES], action="append")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--example", "sim_scale"], cwd=ROOT, check=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-scale-"))
    results = {}
    for key, name, piles, n in SCENES:
        if args.only and key not in args.only:
            continue
        boxes = layout(piles, n)
        path = work / f"{key}.json"
        path.write_text(json.dumps({"boxes": boxes}))
        steps = args.big_steps if n >= 1000 else args.steps
        results[key] = {"mujoco": run_mujoco(boxes, steps),
                        "ours": run_ours(path, steps, args.budget, True, work / f"{key}-ours.json"),
                        "no_islands": run_ours(path, steps, args.budget, False, work / f"{key}-no.json")}
        for who, r in results[key].items():
            print(f"{name} {who}: {r['us_mean']:.1f} µs/step, {r['contacts_mean']:.1f} contacts, "
                  f"{r['steps']} steps" + "".join(f", {f} {r[f]}" for f in ("unconverged", "fallbacks",
                                                                           "iterations_mean", "kb_per_contact")
                                                if f in r), flush=True)
    (work / "results.json").write_text(json.dumps(results))
    print(f"results in {work / 'results.json'}", file=sys.stderr)
    if args.only:
        return
    text, _ = table(results, args.budget)
    print(text)
    if args.write:
        text = (f"{datetime.date.today()}, `scripts/bench_scale.py --steps {args.steps} --big-steps {args.big_steps} "
                f"--budget {args.budget:g}`, "
                "one run, both simulators on the same layouts (see the script's docstring): MuJoCo "
                f"{mujoco.__version__} with its defaults, signorini `--release` with its defaults "
                "(`--example sim_scale`). Means over the steps done, the drop included (no contact for the "
                "first ~0.25 s). kB/contact: resident memory the stepper took over the run / the most "
                "contacts of a step.\n\n" + text)
        write_section("scale", "Scale: step time against contacts", text)


if __name__ == "__main__":
    main()

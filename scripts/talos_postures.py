"""Talos falling over from several starting postures: how the contact solve fares on a
chaotic scene (issue 28 items 1 and 3).

scripts/bench_sim.py times one trajectory of talos falling over (released upright at its
neutral configuration); a fall is chaotic, so one trajectory says little about how often
the ADMM misses its tolerance. This runs examples/sim_dynamic.rs on that posture and on
`--postures` more, each joint offset uniformly in ±`--offset` rad (seeded, clipped to its
limits), and prints per posture and over all: ADMM iterations per step (mean, max), steps
over 50 iterations, unconverged steps, fallbacks, polished steps, steps solved again
(`contact.regenerate`), the deepest penetration at a step's start, µs per step (mean).

  scripts/with_ros.sh python scripts/talos_postures.py [--postures 5] [--offset 0.05]
      [--steps 2000] [--binary target/release/examples/sim_dynamic] [--anderson M] [--scaling S]
      [--regenerate R]

The binary defaults to the `--release` build of the example (built first when missing).
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import dynamic_scenes

ROOT = pathlib.Path(__file__).resolve().parents[1]


def postures(count, offset):
    """The neutral posture, then `count` seeded ones: joint → position."""
    urdf, share, floating, _, _ = dynamic_scenes.robot_source("talos")
    model = dynamic_scenes.urdf_model(urdf, share, floating).compile()
    joints = dynamic_scenes.hinge_joints(model)
    result = [{}]
    for seed in range(1, count + 1):
        rng = np.random.default_rng(seed)
        posture = {}
        for name in joints:
            lo, hi = model.joint(name).range
            posture[name] = float(np.clip(rng.uniform(-offset, offset), lo + 1e-3, hi - 1e-3))
        result.append(posture)
    return result


def run(binary, posture, steps, work, k, settings):
    drive = work / f"drive-{k}.json"
    drive.write_text(json.dumps({"piece": steps, "initial": posture}))
    out = work / f"ours-{k}.json"
    subprocess.run([str(binary), "--robot", "talos", "--drive", str(drive), "--steps", str(steps), "--json", str(out),
                    *settings], check=True, capture_output=True)
    return json.loads(out.read_text())


def summary(name, runs):
    iterations = [x for r in runs for x in r["iterations"]]
    steps = len(iterations)
    total = lambda key: int(sum(sum(r[key]) for r in runs))
    us = statistics.median(statistics.mean(r["step_us"]) for r in runs)
    again = sum(1 for r in runs for x in r["regenerated"] if x > 0)
    deepest = max(max(r["penetration"]) for r in runs)
    return (f"| {name} | {steps} | {sum(iterations) / steps:.1f} ({max(iterations):.0f}) | "
            f"{sum(1 for x in iterations if x > 50)} | {total('unconverged')} | {total('fallback')} | "
            f"{total('polished')} | {again} | {deepest:.1e} | {us:.0f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postures", type=int, default=5)
    parser.add_argument("--offset", type=float, default=0.05)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--binary", type=pathlib.Path, default=ROOT / "target" / "release" / "examples" / "sim_dynamic")
    parser.add_argument("--anderson", type=int, help="contact.anderson (default: the simulator's)")
    parser.add_argument("--scaling", type=float, help="contact.scaling (default: the simulator's)")
    parser.add_argument("--regenerate", type=int, help="contact.regenerate (default: the simulator's)")
    args = parser.parse_args()
    if args.regenerate is not None and not 0 <= args.regenerate <= 10:
        parser.error(f"--regenerate: expected 0 to 10 (contact.regenerate), got {args.regenerate}")
    settings = [*(["--anderson", str(args.anderson)] if args.anderson is not None else []),
                *(["--scaling", str(args.scaling)] if args.scaling is not None else []),
                *(["--regenerate", str(args.regenerate)] if args.regenerate is not None else [])]
    if not args.binary.exists():
        subprocess.run(["cargo", "build", "--release", "--example", "sim_dynamic"], cwd=ROOT, check=True)
    print("| posture | steps | ADMM iterations/step, mean (max) | steps over 50 | unconverged | fallbacks "
          "| polished | solved again | deepest penetration (m) | µs/step, mean |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    runs = []
    with tempfile.TemporaryDirectory(prefix="signorini-talos-") as work:
        for k, posture in enumerate(postures(args.postures, args.offset)):
            runs.append(run(args.binary, posture, args.steps, pathlib.Path(work), k, settings))
            name = "neutral" if k == 0 else f"seed {k}, ±{args.offset} rad"
            print(summary(name, runs[-1:]), flush=True)
    print(summary("all (µs: median of the runs)", runs))


if __name__ == "__main__":
    sys.exit(main())

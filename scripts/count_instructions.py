#!/usr/bin/env python3
"""Instructions per call of each dynamics algorithm, signorini vs Pinocchio, counted by
valgrind's callgrind: deterministic, unaffected by the noise of a shared machine (timings
on it vary by ±50 % between runs). Both sides are built for the same instruction set,
x86-64-v3 (AVX2, FMA; valgrind cannot run AVX-512), and both contract a·b + c to fused
multiply-adds (g++ does by default; rustc with `-C llvm-args=-fp-contract=fast`).
Instructions are not time (IPC differs), but a change that removes instructions is
measured exactly.

  scripts/with_ros.sh python scripts/count_instructions.py [--robots solo12 talos] [--calls 1000]
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_dynamics import ALGORITHMS, ROBOTS, build_harness, build_signorini_like_harness, write_section  # noqa: E402
from gen_dynamics_fixtures import erd_share, random_configuration  # noqa: E402


def build():
    """The x86-64-v3 builds of the Pinocchio harness and of signorini's timing example."""
    return build_harness(march="x86-64-v3"), build_signorini_like_harness("dynamics_timing", "x86-64-v3")


def instructions(cmd):
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", *cmd],
                           capture_output=True, text=True)
        m = re.search(r"refs:\s+([\d,]+)", r.stderr)
        if r.returncode != 0 or not m:
            sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        return int(m.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="*", default=[r[0] for r in ROBOTS])
    parser.add_argument("--algorithms", nargs="*", default=ALGORITHMS)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    harness, ours = build()
    share = erd_share()
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-count-"))
    rng = np.random.default_rng(7)
    rows = ["| robot (nv) | algorithm | Pinocchio instr/call | signorini instr/call | ratio |", "|---|---|---:|---:|---:|"]
    print("\n".join(rows))
    for name, rel, floating in ROBOTS:
        if name not in args.robots:
            continue
        urdf = share / rel
        model = pin.buildModelFromUrdf(str(urdf), *([pin.JointModelFreeFlyer()] if floating else []))
        model_file, states = work / f"{name}.txt", work / f"{name}.states"
        model.saveToText(str(model_file))
        with open(states, "w") as f:
            f.write(f"{model.nq} {model.nv} 8\n")
            for _ in range(8):
                q = random_configuration(model, rng)
                f.write(" ".join(repr(float(x)) for x in np.concatenate([q, rng.normal(size=3 * model.nv)])) + "\n")
        for algo in args.algorithms:
            pin_cmd = lambda n: [str(harness), str(model_file), str(states), "0", algo, str(n)]  # noqa: E731
            our_cmd = lambda n: [str(ours), str(urdf), "1" if floating else "0", str(states), "0", str(share),  # noqa: E731
                                 algo, str(n)]
            p = (instructions(pin_cmd(args.calls)) - instructions(pin_cmd(0))) / args.calls
            s = (instructions(our_cmd(args.calls)) - instructions(our_cmd(0))) / args.calls
            rows.append(f"| {name} ({model.nv}) | {algo} | {p:.0f} | {s:.0f} | {s / p:.2f} |")
            print(rows[-1], flush=True)
    if args.write:
        import datetime
        text = (f"Counted {datetime.date.today().isoformat()} by callgrind, both built for x86-64-v3 with a·b + c contracted to FMA, "
                f"Pinocchio {pin.__version__}; {args.calls} calls on 8 random states.\n\n" + "\n".join(rows) +
                "\n\nCommand: `scripts/with_ros.sh python scripts/count_instructions.py --write`")
        write_section("instructions", "Rigid-body dynamics: instructions per call (deterministic)", text)


if __name__ == "__main__":
    main()

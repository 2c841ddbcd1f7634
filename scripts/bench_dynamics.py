#!/usr/bin/env python3
"""signorini vs Pinocchio, rigid-body dynamics, in one run on one machine.

Builds a small C++ harness against the Pinocchio headers of the `pin` wheel (header-only,
-O3 -march=native; Eigen from `cmeel-eigen`) and signorini's example `dynamics_timing`,
writes the same random states for both, and for each robot and algorithm runs the two
alternately ROUNDS times, each run right after the other so that the machine's drifts
(this kind of VM varies by ±50 % over seconds) hit both alike. Printed: the median time
of each, and the median of the paired ratios signorini / Pinocchio. With --write, the table replaces the dynamics
section of docs/BENCHMARKS.md.

  scripts/with_ros.sh python scripts/bench_dynamics.py [--rounds 3] [--write]
"""

import argparse
import datetime
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from gen_dynamics_fixtures import erd_share, random_configuration  # noqa: E402

ROBOTS = [
    ("ur5", "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf", False),
    ("panda", "example-robot-data/robots/panda_description/urdf/panda.urdf", False),
    ("solo12", "example-robot-data/robots/solo_description/robots/solo12.urdf", True),
    ("talos", "example-robot-data/robots/talos_data/robots/talos_reduced.urdf", True),
]
ALGORITHMS = ["fk", "rnea", "crba", "aba", "jacobians", "ltdl"]
HARNESS_SRC = ROOT / "scripts" / "bench" / "pinocchio_dynamics.cpp"


def write_section(key, heading, text):
    """Replaces the block between `<!-- key:begin -->` and `<!-- key:end -->` of
    docs/BENCHMARKS.md by `text` (appending a section with `heading` if absent)."""
    doc = ROOT / "docs" / "BENCHMARKS.md"
    body = doc.read_text() if doc.exists() else "# Benchmarks\n"
    begin, end = f"<!-- {key}:begin -->", f"<!-- {key}:end -->"
    block = f"{begin}\n{text}\n{end}"
    if begin in body:
        body = body[:body.index(begin)] + block + body[body.index(end) + len(end):]
    else:
        body += f"\n## {heading}\n\n{block}\n"
    doc.write_text(body)
    print(f"wrote {doc.relative_to(ROOT)}", file=sys.stderr)


def prefix():
    return erd_share().parent  # site-packages/cmeel.prefix


def build_harness(source=HARNESS_SRC, march="native"):
    """Compiles a Pinocchio harness of scripts/bench/ header-only (once per source change) and
    returns the executable's path, target/bench/<source stem>[_<march>]."""
    exe = ROOT / "target" / "bench" / (source.stem + ("" if march == "native" else "_" + march.replace("-", "_")))
    newest = max(source.stat().st_mtime, (source.parent / "timing.hpp").stat().st_mtime)
    if exe.exists() and exe.stat().st_mtime > newest:
        return exe
    p = prefix()
    if not (p / "include" / "eigen3" / "Eigen" / "Core").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "cmeel-eigen==3.4.1"], check=True)
    exe.parent.mkdir(parents=True, exist_ok=True)
    print(f"building {exe.name} against Pinocchio (about 2 minutes, once)...", file=sys.stderr)
    # The compile definitions Pinocchio's CMake config exports to its users.
    defs = ["BOOST_MPL_LIMIT_LIST_SIZE=30", "BOOST_MPL_LIMIT_VECTOR_SIZE=30",
            "BOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "BOOST_FUSION_INVOKE_MAX_ARITY=12"]
    cmd = ["g++", "-O3", f"-march={march}", "-DNDEBUG", "-std=c++17", *[f"-D{d}" for d in defs],
           f"-I{p / 'include'}", f"-I{p / 'include' / 'eigen3'}", str(source), "-o", str(exe),
           f"-L{p / 'lib'}", "-lboost_serialization", f"-Wl,-rpath,{p / 'lib'}"]
    subprocess.run(cmd, check=True)
    return exe


def example(name):
    """Path of signorini's release example `name` (CARGO_TARGET_DIR honoured)."""
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "examples" / name


def build_signorini_like_harness(example, march="native"):
    """Builds signorini's example `example` as build_harness builds the reference: for
    `march`, and with a·b + c contracted to fused multiply-adds, which g++ does by default
    and rustc does not (`-C llvm-args=-fp-contract=fast`); without ROS. Returns the
    executable's path, in target/bench-<march>."""
    target = ROOT / "target" / f"bench-{march}"
    env = {**os.environ, "CARGO_TARGET_DIR": str(target),
           "RUSTFLAGS": f"-C target-cpu={march} -C llvm-args=-fp-contract=fast"}
    subprocess.run(["cargo", "build", "--release", "--quiet", "--no-default-features", "--example", example], cwd=ROOT,
                   env=env, check=True)
    return target / "release" / "examples" / example


def build_signorini():
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "dynamics_timing"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "examples" / "dynamics_timing"


def parse(output):
    return {k: float(v) for k, v in (line.split() for line in output.strip().splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two programs")
    parser.add_argument("--samples", type=int, default=15, help="timed batches per algorithm and program run")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()

    share = erd_share()
    harness = build_harness()
    ours = build_signorini()
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-bench-"))
    rng = np.random.default_rng(20261121)
    results = {}
    for name, rel, floating in ROBOTS:
        urdf = share / rel
        model = pin.buildModelFromUrdf(str(urdf), *([pin.JointModelFreeFlyer()] if floating else []))
        model_file = work / f"{name}.txt"
        model.saveToText(str(model_file))
        states = work / f"{name}.states"
        with open(states, "w") as f:
            n = 32
            f.write(f"{model.nq} {model.nv} {n}\n")
            for _ in range(n):
                q = random_configuration(model, rng)
                rest = rng.normal(size=3 * model.nv)
                f.write(" ".join(repr(float(x)) for x in np.concatenate([q, rest])) + "\n")
        results[name] = {"nv": model.nv}
        for algo in ALGORITHMS:
            p_times, s_times = [], []
            for _ in range(args.rounds):
                out = subprocess.run([str(harness), str(model_file), str(states), str(args.samples), algo],
                                     check=True, capture_output=True, text=True).stdout
                p_times.append(parse(out)[algo])
                out = subprocess.run([str(ours), str(urdf), "1" if floating else "0", str(states),
                                      str(args.samples), str(share), algo], check=True, capture_output=True,
                                     text=True).stdout
                s_times.append(parse(out)[algo])
            results[name][algo] = (statistics.median(p_times), statistics.median(s_times),
                                   statistics.median(s / p for s, p in zip(s_times, p_times)))

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    lines = [
        f"Measured {datetime.date.today().isoformat()} on {cpu} ({os.cpu_count()} CPUs), "
        f"per robot and algorithm {args.rounds} paired runs (Pinocchio, then signorini), "
        f"each the median of {args.samples} batches; ratio = median of the paired ratios; "
        "Pinocchio {} header-only with `g++ -O3 -march=native`, signorini `cargo --release`. "
        "Pinocchio's CRBA and ABA: the faster of its LOCAL and WORLD conventions; signorini's CRBA likewise, "
        "the faster of `crba` (world frame, also leaving the placements and Jacobian data) and `crba_local` "
        "(joint frames, M alone).".format(pin.__version__),
        "",
        "| robot (nv) | algorithm | Pinocchio µs | signorini µs | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for name, r in results.items():
        for a in ALGORITHMS:
            p, s, ratio = r[a]
            lines.append(f"| {name} ({r['nv']}) | {a} | {p:.3f} | {s:.3f} | {ratio:.2f} |")
    lines += ["", "Command: `scripts/with_ros.sh python scripts/bench_dynamics.py --write`"]
    table = "\n".join(lines)
    print(table)
    if args.write:
        write_section("dynamics", "Rigid-body dynamics: signorini / Pinocchio", table)


if __name__ == "__main__":
    main()

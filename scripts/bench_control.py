#!/usr/bin/env python3
"""signorini's control tick vs Pinocchio's contactInverseDynamics, in one run.

examples/control_timing.rs holds solo12 (example-robot-data) and the bundled quadruped
standing on rigid feet with the controller and times, at that state, the whole tick
(kinematics, contact detection, stance projection, inverse dynamics with the floating
base's least squares, torque limits) and inverse dynamics alone; it writes the state and
the loaded contact points. scripts/bench/pinocchio_contact_id.cpp (Pinocchio header-only,
`g++ -O3 -march=native`) times, at the same state
and with point contacts at the same points (friction μ, compliance 0, ProximalSettings
1e-8 / 1e-8, ρ 1e-8, started from signorini's impulses),
`computeJointJacobians` + the contacts' `calc` + `contactInverseDynamics` with the same
reference acceleration a = (v_ref − v)/Δt: what the issue compares against. Pinocchio
runs as many proximal sweeps as signorini's inverse dynamics took at that state (the
iterations column); "short" marks a state where Pinocchio's own stopping test is not met
within them. Its test bounds |min(0, c_N)|/Δt and the complementarity λ·(c + Γ(c))/Δt
by 1e-8, signorini's the rigid contacts' eq. 47 residual by 1e-9 m/s: reference contact
velocities c of some 1e-10 m/s, as the stance projection leaves at a settled solo12, pass
signorini's test, while Pinocchio's never does (its λ moves by c/(Δt·ρ) a sweep). Pinocchio has
no contact detection, takes only the loaded contacts, and leaves the floating base's rows
to the caller. signorini is timed built as the harness is: for the same CPU and with
a·b + c contracted to fused multiply-adds, which g++ does by default and rustc does not
(`-C target-cpu=native -C llvm-args=-fp-contract=fast`, in target/bench-native), and, in
the last column, as `cargo build --release` builds it (the baseline x86-64, no FMA).
ROUNDS alternated rounds, medians of batches; ratio = median of the per-round ratios.
`--count` adds the instructions per call of both (callgrind, the difference of 11000 and
1000 calls; both built for x86-64-v3 with FMA contraction, as scripts/count_instructions.py
builds them, since valgrind cannot run AVX-512): exact where the times are noisy, though
not time.

  scripts/with_ros.sh python scripts/bench_control.py [--rounds 5] [--count] [--write]
"""

import argparse
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_dynamics import build_harness, build_signorini_like_harness, write_section  # noqa: E402
from count_instructions import instructions  # noqa: E402
from gen_dynamics_fixtures import erd_share  # noqa: E402

DT = 1e-3


def model_of(key):
    if key == "solo12_standing":
        share = pathlib.Path(erd_share())
        urdf = share / "example-robot-data/robots/solo_description/robots/solo12.urdf"
        return pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    return pin.buildModelFromUrdf(str(ROOT / "urdf/quadruped.urdf"), pin.JointModelFreeFlyer())


def write_scene(key, figures, work):
    """Writes Pinocchio's model (its text serialization) and the state, reference
    acceleration and loaded contacts for scripts/bench/pinocchio_contact_id.cpp; returns the
    two paths."""
    model = model_of(key)
    data = model.createData()
    q, v, v_ref = (np.array(figures[k]) for k in ("q", "v", "v_ref"))
    pin.forwardKinematics(model, data, q)
    model_file, scene = work / f"{key}.model.txt", work / f"{key}.scene"
    model.saveToText(str(model_file))
    sweeps = max(1, int(figures["iterations"]))
    numbers = [model.nq, model.nv, *q, *v, *((v_ref - v) / DT), DT, 1e-8, 1e-8, 1e-8, sweeps, len(figures["loaded"])]
    for c in figures["loaded"]:
        oMi = data.oMi[c["joint"]]
        frame = np.array(c["frame_column_major"]).reshape(3, 3).T
        numbers += [c["joint"], *(oMi.rotation.T @ frame).ravel(), *(oMi.rotation.T @ (np.array(c["point"]) - oMi.translation)),
                    c["friction"]]
    numbers += [x / DT for c in figures["loaded"] for x in c["impulse"]]
    scene.write_text(" ".join(repr(float(x)) if isinstance(x, float) else str(x) for x in numbers) + "\n")
    return model_file, scene


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", action="store_true", help="also count instructions per call (valgrind)")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    harness = build_harness(ROOT / "scripts" / "bench" / "pinocchio_contact_id.cpp")
    subprocess.run(["cargo", "build", "--release", "--example", "control_timing"], cwd=ROOT, check=True)
    # The same program built as the Pinocchio harness is (no ROS needed), and as a user's
    # `cargo build --release` is.
    programs = {"native": build_signorini_like_harness("control_timing"),
                "baseline": ROOT / "target/release/examples/control_timing"}
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-control-"))
    ours, baseline, theirs, scenes, iterations = [], [], [], None, {}
    for r in range(args.rounds):
        for build, program in programs.items():
            out = work / f"ours-{build}-{r}.json"
            subprocess.run([str(program), "--rounds", "7", "--json", str(out)], cwd=ROOT, check=True, capture_output=True)
            (ours if build == "native" else baseline).append(json.loads(out.read_text()))
        doc = ours[-1]
        scenes = scenes or {key: write_scene(key, figures, work) for key, figures in doc.items()}
        round_ = {}
        for key, (model_file, scene) in scenes.items():
            line = subprocess.run([str(harness), str(model_file), str(scene), "7"], check=True, capture_output=True,
                                  text=True).stdout.split()
            round_[key] = float(line[1])
            iterations[key] = line[2] + ("" if line[3] == "1" else ", short")
        theirs.append(round_)
    rows = ["| robot | contacts detected (solved, loaded) | Pinocchio computeJointJacobians + calc + contactInverseDynamics µs (iterations) "
            "| signorini inverse dynamics µs | ratio | signorini whole tick µs (of which contact detection) | ratio "
            "| whole tick, baseline x86-64 build µs | ratio |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    names = {"solo12_standing": "solo12 standing", "quadruped_standing": "bundled quadruped standing"}
    for key in ours[0]:
        pin_us = statistics.median(t[key] for t in theirs)
        id_us = statistics.median(o[key]["inverse_dynamics_us"] for o in ours)
        tick_us = statistics.median(o[key]["tick_us"] for o in ours)
        detection_us = statistics.median(o[key]["detection_us"] for o in ours)
        ratio_id = statistics.median(o[key]["inverse_dynamics_us"] / t[key] for o, t in zip(ours, theirs))
        ratio_tick = statistics.median(o[key]["tick_us"] / t[key] for o, t in zip(ours, theirs))
        base_us = statistics.median(o[key]["tick_us"] for o in baseline)
        ratio_base = statistics.median(o[key]["tick_us"] / t[key] for o, t in zip(baseline, theirs))
        o = ours[-1][key]
        rows.append(f"| {names.get(key, key)} | {o['detected']} ({o['contacts']}, {len(o['loaded'])}) | {pin_us:.2f} ({iterations[key]}) | {id_us:.2f} "
                    f"| **{ratio_id:.2f}** | {tick_us:.2f} ({detection_us:.2f}) | **{ratio_tick:.2f}** | {base_us:.2f} | {ratio_base:.2f} |")
    if args.count:
        rows += ["", "| robot | Pinocchio instructions per call | signorini instructions per tick | ratio |",
                 "|---|---:|---:|---:|"]
        # Over 10000 calls: the set-up's count varies by some 10⁵ between runs (hash seeds),
        # which the difference of two runs does not cancel.
        def per_call(command):
            return (instructions(command(11000)) - instructions(command(1000))) / 10000

        counted = (build_harness(ROOT / "scripts" / "bench" / "pinocchio_contact_id.cpp", march="x86-64-v3"),
                   build_signorini_like_harness("control_timing", "x86-64-v3"))
        for key, (model_file, scene) in scenes.items():
            theirs_n = per_call(lambda n: [str(counted[0]), str(model_file), str(scene), "1", str(n)])
            ours_n = per_call(lambda n: [str(counted[1]), "--scene", key, "--ticks", str(n)])
            rows.append(f"| {names.get(key, key)} | {theirs_n / 1e3:.1f} k | {ours_n / 1e3:.1f} k | {ours_n / theirs_n:.2f} |")
    text = (f"Measured {datetime.date.today()}, Pinocchio {pin.__version__} (`pin` wheel), signorini `cargo build --release`. "
            + __doc__.split("\n\n")[1].replace("\n", " ").replace("ROUNDS", str(args.rounds)) + "\n\n"
            + "\n".join(rows) + "\n\n"
            f"Command: `scripts/with_ros.sh python scripts/bench_control.py --rounds {args.rounds}"
            f"{' --count' if args.count else ''} --write` "
            "(in `make bench`).")
    print(text)
    if args.write:
        write_section("control", "Control tick: signorini / Pinocchio", text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""signorini's contact solvers vs Pinocchio's ADMM, on the same problems, in one run.

Builds signorini's example `contact_timing`, which exports each problem it times (the
Pinocchio fixtures of tests/fixtures/contact, a box on the ground, a ton on a gram and the
15-cube wall of seed 000 Fig. 1) as (G, g, μ, R). For ROUNDS rounds, Pinocchio's
`ADMMConstraintSolver` solves every problem cold (fresh result, no guess) and warm (its
own solution as the guess), timed by Pinocchio's own timer (`measure_timings`, C++ side,
no Python in it), then the example times signorini's ADMM and PGS on the same problems;
ratio = median over rounds of signorini / Pinocchio. Same absolute tolerance on both
(NCP, relative criteria off). Also checks that both ADMMs found the same λ and draws
docs/convergence.png: the NCP criterion ε_abs after each iteration, ADMM with the
spectral ρ rule, with the linear rule, and PGS (seed 000 Fig. 4).

  scripts/with_ros.sh python scripts/bench_contact.py [--rounds 5] [--write]
"""

import argparse
import datetime
import json
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
from bench_dynamics import write_section  # noqa: E402

EXAMPLE = ROOT / "target" / "release" / "examples" / "contact_timing"
# Problems shown in the convergence plot.
PLOTTED = ["solo12_sliding", "ton_on_gram", "cube_wall_15"]


def build():
    subprocess.run(["cargo", "build", "--release", "--example", "contact_timing"], cwd=ROOT, check=True)


def run_example(*args):
    out = subprocess.run([str(EXAMPLE), *map(str, args)], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout


class PinocchioProblem:
    """One exported problem given to Pinocchio's ADMM: the cones come from point-contact
    constraint models (only their friction and size matter to the solver, which gets G)."""

    def __init__(self, doc, tol, max_iterations):
        self.G = np.array(doc["G"], dtype=float)
        self.g = np.array(doc["g"], dtype=float)
        self.R = np.array(doc["R"], dtype=float)
        self.ours = np.array(doc["signorini_lambda"], dtype=float)
        model = pin.Model()
        model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "body")
        self.cms = pin.StdVec_ConstraintModel()
        for mu in doc["mu"]:
            pc = pin.PointContactConstraintModel(model, 1, pin.SE3.Identity(), 0, pin.SE3.Identity())
            pc.setFriction(mu)
            self.cms.append(pin.ConstraintModel(pc))
        self.cds = pin.StdVec_ConstraintData()
        for cm in self.cms:
            self.cds.append(cm.createData())
        s = pin.ADMMSolverSettings()
        s.solve_ncp = True
        s.absolute_feasibility_tol = tol
        s.absolute_complementarity_tol = tol
        s.relative_feasibility_tol = 0.0
        s.relative_complementarity_tol = 0.0
        s.max_iterations = max_iterations
        s.measure_timings = True
        self.settings = s
        self.solver = pin.ADMMConstraintSolver(len(self.g))
        if np.any(self.R != 0.0):
            raise SystemExit("bench_contact: compliant problems are not exported to Pinocchio here")

    def solve(self, guess=None):
        """One solve; returns (µs by Pinocchio's timer, iterations, converged, λ)."""
        result = pin.ADMMSolverResult()
        if guess is not None:
            result.setConstraintImpulseGuess(guess)
        # ADMM leaves its damping on the operator: a fresh copy each time.
        delassus = pin.DelassusOperatorDense(self.G.copy())
        self.solver.solve(delassus, self.g.copy(), self.cms, self.cds, self.settings, result)
        lam = np.array(result.retrieveConstraintImpulses()).copy()
        return self.solver.getElapsedTime(), int(result.iterations), bool(result.converged), lam

    def timed(self, guess=None, samples=31):
        runs = [self.solve(guess) for _ in range(samples)]
        _, iterations, converged, lam = runs[-1]
        return statistics.median(r[0] for r in runs), iterations, converged, lam


def plot(history_dir, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    docs = [json.loads((history_dir / f"{k}.json").read_text()) for k in PLOTTED]
    fig, axes = plt.subplots(1, len(docs), figsize=(5 * len(docs), 4), constrained_layout=True)
    for ax, doc in zip(axes, docs):
        for key, label, style in [("admm_spectral", "ADMM, spectral ρ (seed 000)", "-"),
                                  ("admm_linear", "ADMM, linear ρ (×/÷ 2)", "--"),
                                  ("pgs", "PGS (NCP)", ":")]:
            ys = doc[key]
            ax.semilogy(range(1, len(ys) + 1), np.maximum(ys, 1e-16), style, label=label)
        ax.axhline(doc["tolerance"], color="grey", lw=0.8)
        ax.set_title(f"{doc['name']} ({doc['contacts']} contacts)", fontsize=9)
        ax.set_xlabel("iteration")
        ax.set_ylabel("NCP criterion ε_abs")
        ax.grid(True, which="both", lw=0.3)
    axes[0].legend(fontsize=8)
    fig.savefig(out, dpi=110)
    print(f"wrote {out.relative_to(ROOT)}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternations of Pinocchio and signorini")
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md and docs/convergence.png")
    args = parser.parse_args()

    build()
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-contact-"))
    problems_dir, history_dir = work / "problems", work / "history"
    run_example("--tol", args.tol, "--rounds", 3, "--export", problems_dir, "--history", history_dir)
    max_iterations = 1000
    pins = {path.stem: PinocchioProblem(json.loads(path.read_text()), args.tol, max_iterations)
            for path in sorted(problems_dir.glob("*.json"))}

    pin_runs, our_runs = [], []
    for r in range(args.rounds):
        row = {}
        for key, p in pins.items():
            cold = p.timed()
            warm = p.timed(guess=cold[3])
            row[key] = {"cold": cold, "warm": warm}
        pin_runs.append(row)
        out = work / f"ours-{r}.json"
        run_example("--tol", args.tol, "--rounds", 15, "--json", out)
        our_runs.append({d["key"]: d for d in json.loads(out.read_text())})
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    lines = []
    for key in our_runs[-1]:  # the example's order
        ours = our_runs[-1][key]
        name, n = ours["name"], ours["contacts"]
        pin_cold = statistics.median(run[key]["cold"][0] for run in pin_runs)
        pin_warm = statistics.median(run[key]["warm"][0] for run in pin_runs)
        med = lambda k: statistics.median(run[key][k]["us"] for run in our_runs)  # noqa: E731
        ratio = lambda k, pk: statistics.median(  # noqa: E731
            o[key][k]["us"] / p[key][pk][0] for o, p in zip(our_runs, pin_runs))
        _, pin_it, pin_ok, pin_lam = pin_runs[-1][key]["cold"]
        _, pin_warm_it, pin_warm_ok, _ = pin_runs[-1][key]["warm"]
        diff = float(np.abs(pin_lam - pins[key].ours).max())
        scale = float(np.abs(pins[key].ours).max()) or 1.0

        def cell(us, it, ok):
            return f"{us:.2f} ({it}{'' if ok else ', **not converged**'})"

        lines.append(
            f"| {name} | {n} "
            f"| {cell(pin_cold, pin_it, pin_ok)} | {cell(med('admm_cold'), ours['admm_cold']['iterations'], ours['admm_cold']['converged'])} "
            f"| **{ratio('admm_cold', 'cold'):.2f}** "
            f"| {cell(pin_warm, pin_warm_it, pin_warm_ok)} | {cell(med('admm_warm'), ours['admm_warm']['iterations'], ours['admm_warm']['converged'])} "
            f"| **{ratio('admm_warm', 'warm'):.2f}** "
            f"| {cell(med('pgs_cold'), ours['pgs_cold']['iterations'], ours['pgs_cold']['converged'])} "
            f"| {cell(med('pgs_warm'), ours['pgs_warm']['iterations'], ours['pgs_warm']['converged'])} "
            f"| {diff / scale:.1e} |")

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    text = (
        f"Measured {datetime.date.today()} on {cpu}, {args.rounds} rounds (Pinocchio {pin.__version__} "
        f"`ADMMConstraintSolver` from the `pin` wheel, timed by its own C++ timer, median of 31 solves; then "
        f"signorini `--release`, median of 15 batches); ratio = median of the per-round ratios signorini / "
        f"Pinocchio. Tolerance {args.tol:g} absolute on both (NCP with the De Saxcé correction, relative "
        f"criteria off), at most {max_iterations} iterations. µs (iterations). Cold: no guess; warm: the "
        f"solver's own solution as the guess (a resting contact's steady state). Δλ: max |λ_Pinocchio − "
        f"λ_signorini| / max |λ| at this tolerance (non-unique solutions may differ: the hyperstatic cube stacks; at 1e-13 the unique ones agree to 6e-13, tests/contact_pinocchio.rs).\n\n"
        "| problem | contacts | Pinocchio ADMM cold | signorini ADMM cold | ratio | Pinocchio ADMM warm "
        "| signorini ADMM warm | ratio | signorini PGS cold | signorini PGS warm | Δλ |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        + "\n".join(lines)
        + "\n\nCommand: `scripts/with_ros.sh python scripts/bench_contact.py --write` (in `make bench`); "
        "signorini alone: `cargo run --release --example contact_timing`; criterion: `cargo bench --bench contact`.\n\n"
        "![NCP criterion per iteration](convergence.png)\n\n"
        "docs/convergence.png, from the same command: ε_abs of the NCP (seed 002 §2.3) after each iteration, "
        "each point a cold solve stopped after that many iterations."
    )
    print(text)
    if args.write:
        write_section("contact", "Contact solvers: signorini / Pinocchio ADMM", text)
        plot(history_dir, ROOT / "docs" / "convergence.png")


if __name__ == "__main__":
    main()

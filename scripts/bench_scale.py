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
The 1000-box pile runs `--big-steps` steps in both (default 1000: the lowest layers land
at 0.25 s and the pile settles with ~3000–4000 contacts; without islands it is one dense
problem of minutes per step in signorini), and a signorini run longer than `--budget`
seconds of wall time is cut there (the steps done are reported). `--rounds N` alternates
the two simulators N times per pile and keeps each one's median run (the timings of a
shared host vary by ±25 % between single runs of the 1000-box pile).

Reported per scene: mean µs/step and mean contacts over the steps done, unconverged
steps, fallbacks, signorini's islands' ADMM iterations per step and the resident memory
its stepper took per contact. The exponent is the least-squares slope of log(µs/step)
against log(contacts) over the single piles, from the pile of 100 to the pile of 1000
(the issue's range), and over every step with at least 10 contacts of every pile
(pooled); the 1000-box pile's real-time factor is its µs/step over Δt's 1000 µs.

`--part` picks what runs (repeatable; default `piles`), each part its own table and
section of docs/BENCHMARKS.md:
  - `piles`: the above;
  - `cable`: scripts/cable.py's cables of `--cables` beads (default 30, 100, 300) dragged
    `--cable-steps` steps (default 1000: 0.3 m) by their sled, MuJoCo (the same URDF
    through its importer, μ 0.6, the same PD, its defaults otherwise; per cable, its run
    first, then signorini's) and signorini (`--example sim_dynamic --urdf`, default contact
    settings), each run cut at `--budget` seconds of wall time; per cable µs/step,
    contacts/step, iterations, unconverged steps, fallbacks, the deepest penetration, the
    lowest bead centre, the sled's travel; the exponent over the cables' means;
  - `towers`: towers of `--towers` boxes (default 35, 70, 140, 280) standing on the ground,
    faces touching, `--tower-steps` steps (default 500): each one island, whose contacts
    (4 per face) beyond signorini's DENSE_CONTACTS (256) are solved by W without G; per
    tower (median of `--tower-rounds` alternated rounds, default 5) µs/step, contacts/step,
    iterations, unconverged steps, the address space and
    resident memory signorini's stepper took, the top box's drop; the exponent over
    the towers' means, MuJoCo's alongside;
  - `vfpi`: signorini's ADMM (the default solver) against seed 004's V-FPI
    (`contact.solver: vfpi-block` and `vfpi`) on the piles of 10, 100, 10 × 10 and, with
    `cable`, on the cables: µs/step, iterations/step, unconverged steps, seed 002's ε_abs
    (the NCP criterion in force units, max and median over the steps with contacts).

  scripts/with_ros.sh python scripts/bench_scale.py [--steps 1000] [--big-steps 1000] [--budget 120]
      [--part piles|cable|towers|vfpi ...] [--cables 30,100,300] [--cable-steps 1000]
      [--towers 35,70,140,280] [--tower-steps 500] [--tower-rounds 5] [--write]
"""

import argparse
import datetime
import json
import math
import pathlib
import subprocess
import sys
import tempfile
import time

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from bench_dynamics import example, write_section  # noqa: E402
import cable  # noqa: E402

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
            "lowest": float(min(data.xpos[1:, 2])), "top_z": float(data.xpos[-1, 2])}


def run_ours(path, steps, budget, islands, out, solver="admm"):
    args = [str(example("sim_scale")), "--layout", str(path), "--steps", str(steps),
            "--budget", str(budget), "--json", str(out), "--solver", solver] + ([] if islands else ["--no-islands"])
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())


def median_run(runs):
    """The run of median mean step time (the upper one of an even count)."""
    return sorted(runs, key=lambda r: r["us_mean"])[len(runs) // 2]


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
             "| unconverged, fallbacks | ADMM iterations/step | kB/contact | reserved MB "
             "| without islands µs/step (steps done, unconverged) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, name, _, _ in SCENES:
        m, o, n = results[key]["mujoco"], results[key]["ours"], results[key]["no_islands"]
        cut = lambda r: f"{r['steps']}" + ("" if r["steps"] >= m["steps"] else f" (cut at {budget:g} s)")
        lines.append(
            f"| {name} | {m['us_mean']:.1f} ({m['contacts_mean']:.0f}) | {o['us_mean']:.1f} "
            f"({o['contacts_mean']:.0f}), {cut(o)} | {results[key]['ratio']:.2f} "
            f"| {o['unconverged']}, {o['fallbacks']} | {o['iterations_mean']:.1f} | {o['kb_per_contact']:.1f} "
            f"| {o.get('reserved_kb', 0) / 1024:.0f} | {n['us_mean']:.1f} ({cut(n)}, {n['unconverged']}) |")
    # A run cut at the budget covers only the pile's first steps: no point of the fit.
    done = lambda who, k: results[k][who]["steps"] >= results[k]["mujoco"]["steps"]
    means = lambda who, keys: slope([results[k][who]["contacts_mean"] for k in keys if done(who, k)],
                                    [results[k][who]["us_mean"] for k in keys if done(who, k)])
    fits = {who: (means(who, SINGLE), pooled([results[k][who] for k in SINGLE]), means(who, SINGLE[1:]))
            for who in ("mujoco", "ours", "no_islands")}
    cell = lambda x: "—" if math.isnan(x) else f"{x:.2f}"
    lines += ["", "| exponent of µs/step against contacts | MuJoCo | signorini | signorini without islands |",
              "|---|---:|---:|---:|",
              "| piles of 10, 100, 1000 (means per pile; runs cut at the budget left out) | {} | {} | {} |".format(
                  *(cell(fits[w][0]) for w in ("mujoco", "ours", "no_islands"))),
              "| piles of 100 and 1000 (means per pile) | {} | {} | {} |".format(
                  *(cell(fits[w][2]) for w in ("mujoco", "ours", "no_islands"))),
              "| every step with ≥ 10 contacts, pooled | {} | {} | {} |".format(
                  *(cell(fits[w][1]) for w in ("mujoco", "ours", "no_islands")))]
    big = {w: results["pile1000"][w]["us_mean"] / 1000.0 for w in ("mujoco", "ours")}
    lines += ["", "The 1000-box pile's real-time factor (wall time per simulated time, Δt 1 ms): "
              f"signorini {big['ours']:.2f}, MuJoCo {big['mujoco']:.2f} (over the steps done)."]
    return "\n".join(lines), fits


SOLVERS = ["admm", "vfpi-block", "vfpi"]
VFPI_PILES = ["pile10", "pile100", "piles10x10"]


def run_cable_mujoco(n, steps, budget):
    """MuJoCo's run of the cable of `n` beads, cut after `budget` wall seconds."""
    r = cable.MujocoCable(n, cable.drive(n, steps)).run(steps, budget)
    return cable_figures(r, n, steps) | {"drag": r["drag"], "finite": r["finite"]}


def run_cable_ours(n, steps, budget, work, solver):
    urdf, drive = work / f"cable{n}.urdf", work / f"cable{n}-drive.json"
    urdf.write_text(cable.urdf(n))
    drive.write_text(json.dumps(cable.drive(n, steps)))
    out = work / f"cable{n}-{solver}.json"
    subprocess.run([str(example("sim_dynamic")), "--urdf", str(urdf), "--drive", str(drive), "--steps", str(steps),
                    "--budget", str(budget), "--solver", solver, "--json", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    # A state that stopped being finite ends the run: its NaN are JSON nulls.
    r = {k: [math.nan if x is None else x for x in v] if isinstance(v, list) else v
         for k, v in json.loads(out.read_text()).items()}
    return cable_figures(r, n, steps) | eps_figures(r["eps_abs"], r["contacts"]) | {
        "iterations_mean": float(np.mean(r["iterations"])), "iterations_max": int(max(r["iterations"])),
        "unconverged": int(sum(r["unconverged"])), "fallbacks": int(sum(r["fallback"])),
        "drag": r["final_q"][0] if r["final_q"] else float("nan"),
        "finite": bool(np.isfinite(r["final_q"]).all()) and r["steps"] > 0}


def cable_figures(r, n, steps):
    """The figures both simulators report of a cable run (per-step lists `step_us`,
    `contacts`, `penetration`, `lowest`)."""
    done = len(r["step_us"])
    return {"beads": n, "steps": done, "steps_asked": steps, "us_mean": float(np.mean(r["step_us"])),
            "us_median": float(np.median(r["step_us"])), "contacts_mean": float(np.mean(r["contacts"])),
            "penetration": float(np.nanmax(r["penetration"])), "lowest": float(np.nanmin(r["lowest"])),
            "step_us": r["step_us"], "step_contacts": r["contacts"]}


def steps_done(r):
    """The steps a run did: "300", "200 of 1000" when cut, ", NaN at the last" when its
    state stopped being finite."""
    return (f"{r['steps']}" + ("" if r["steps"] >= r["steps_asked"] else f" of {r['steps_asked']}")
            + ("" if r.get("finite", True) else ", NaN at the last"))


def cable_table(results, lengths):
    lines = ["| cable (dofs) | MuJoCo µs/step (contacts/step), steps done | signorini µs/step (contacts/step), "
             "steps done | ratio | ADMM iterations/step, mean (max) | unconverged, fallbacks "
             "| deepest penetration, MuJoCo / signorini (m) | sled travel, MuJoCo / signorini (m) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in lengths:
        m, o = results[n]["mujoco"], results[n]["admm"]
        lines.append(
            f"| {n} beads ({2 * n + 1}) | {m['us_mean']:.1f} ({m['contacts_mean']:.1f}), {steps_done(m)} "
            f"| {o['us_mean']:.1f} ({o['contacts_mean']:.1f}), {steps_done(o)} | {o['us_mean'] / m['us_mean']:.2f} "
            f"| {o['iterations_mean']:.1f} ({o['iterations_max']}) | {o['unconverged']}, {o['fallbacks']} "
            f"| {m['penetration']:.1e} / {o['penetration']:.1e} | {m['drag']:.3f} / {o['drag']:.3f} |")
    fits = {who: slope([results[n][who]["contacts_mean"] for n in lengths], [results[n][who]["us_mean"] for n in lengths])
            for who in ("mujoco", "admm")}
    dofs = {who: slope([2 * n + 1 for n in lengths], [results[n][who]["us_mean"] for n in lengths])
            for who in ("mujoco", "admm")}
    lines += ["", "| exponent of µs/step, cables of " + ", ".join(map(str, lengths)) + " beads | MuJoCo | signorini |",
              "|---|---:|---:|",
              f"| against contacts/step | {fits['mujoco']:.2f} | {fits['admm']:.2f} |",
              f"| against dofs (2N + 1) | {dofs['mujoco']:.2f} | {dofs['admm']:.2f} |"]
    return "\n".join(lines), fits


def vfpi_table(rows):
    """rows: (scene name, {solver: figures}) with `us_mean`, `iterations_mean`,
    `unconverged`, `steps`, `steps_asked`, `eps_max`, `eps_median`."""
    head = " | ".join(f"{s} µs/step (steps done) | {s} iterations/step, unconverged | {s} ε_abs max (median)"
                      for s in SOLVERS)
    lines = [f"| scene | {head} |", "|---" + "|---:" * (3 * len(SOLVERS)) + "|"]
    for name, by in rows:
        cells = []
        for s in SOLVERS:
            r = by[s]
            cells += [f"{r['us_mean']:.1f} ({steps_done(r)})", f"{r['iterations_mean']:.1f}, {r['unconverged']}",
                      f"{r['eps_max']:.1e} ({r['eps_median']:.1e})"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\n" + verdict(rows)


def verdict(rows):
    """Where V-FPI wins: per variant, the scenes where its mean step is faster than the
    ADMM's, and those where it has no more unconverged steps (none diverging)."""
    lines = []
    for s in SOLVERS[1:]:
        def ok(r, a):
            return r.get("finite", True) and r["unconverged"] <= a["unconverged"]
        faster = [n for n, by in rows if by[s]["us_mean"] < by["admm"]["us_mean"]]
        converged = [n for n, by in rows if ok(by[s], by["admm"])]
        lost = [n for n, by in rows if not by[s].get("finite", True)]
        wins = [n for n in faster if n in converged]
        lines.append(f"- `{s}` against `admm`: wins (faster, no more unconverged steps) on {', '.join(wins) or 'no scene'}; "
                     f"faster per step on {', '.join(faster) or 'no scene'}; as many or "
                     f"fewer unconverged steps on {', '.join(converged) or 'no scene'}"
                     + (f"; the state went NaN on {', '.join(lost)}" if lost else "") + ".")
    return "\n".join(lines)


def eps_figures(eps, contacts):
    """Seed 002's ε_abs over the steps with contacts (finite ones: a run that went NaN
    ends on NaN), its max and median."""
    e = [x for x, c in zip(eps, contacts) if c > 0 and math.isfinite(x)]
    return {"eps_max": max(e, default=0.0), "eps_median": float(np.median(e)) if e else 0.0}


def pile_eps(r, steps):
    return r | {"steps_asked": steps} | eps_figures(r["step_eps"], r["step_contacts"])


def piles_part(args, work):
    results = {}
    for key, name, piles, n in SCENES:
        if args.only and key not in args.only:
            continue
        boxes = layout(piles, n)
        path = work / f"{key}.json"
        path.write_text(json.dumps({"boxes": boxes}))
        steps = args.big_steps if n >= 1000 else args.steps
        # Alternated rounds, each simulator's median run kept whole (its per-step figures
        # feed the pooled fit); the ratio is the median of the rounds' ratios.
        rounds = [(run_mujoco(boxes, steps), run_ours(path, steps, args.budget, True, work / f"{key}-ours-{r}.json"))
                  for r in range(args.rounds)]
        results[key] = {"mujoco": median_run([m for m, _ in rounds]), "ours": median_run([o for _, o in rounds]),
                        "no_islands": run_ours(path, steps, args.budget, False, work / f"{key}-no.json")}
        ratio = float(np.median([o["us_mean"] / m["us_mean"] for m, o in rounds]))
        for who, r in results[key].items():
            print(f"{name} {who}: {r['us_mean']:.1f} µs/step, {r['contacts_mean']:.1f} contacts, "
                  f"{r['steps']} steps" + "".join(f", {f} {r[f]}" for f in ("unconverged", "fallbacks",
                                                                           "iterations_mean", "kb_per_contact")
                                                if f in r), flush=True)
        results[key]["ratio"] = ratio
    (work / "results.json").write_text(json.dumps(results))
    print(f"results in {work / 'results.json'}", file=sys.stderr)
    if args.only:
        return
    text, _ = table(results, args.budget)
    print(text)
    if args.write:
        text = (f"{datetime.date.today()}, `scripts/bench_scale.py --steps {args.steps} --big-steps {args.big_steps} "
                f"--budget {args.budget:g} --rounds {args.rounds}`, "
                f"{args.rounds} alternated round(s) per scene (MuJoCo, then signorini with islands; µs/step and "
                "the fits from each simulator's median run, the ratio the median of the rounds' ratios; "
                "without islands one run), both simulators on the same layouts (see the script's docstring): MuJoCo "
                f"{mujoco.__version__} with its defaults, signorini `--release` with its defaults "
                "(`--example sim_scale`). Means over the steps done, the drop included (no contact for the "
                "first ~0.25 s). kB/contact: resident memory the stepper took over the run / the most "
                "contacts of a step; reserved MB: the address space it reserved at start-up (sized for 8 "
                "contacts a box + 64; G only for islands of at most 256 contacts).\n\n" + text)
        write_section("scale", "Scale: step time against contacts", text)


def cable_part(args, work, solvers):
    """{beads: {"mujoco": figures, solver: figures}} of every cable, MuJoCo first."""
    results = {}
    for n in args.cables:
        results[n] = {"mujoco": run_cable_mujoco(n, args.cable_steps, args.budget)}
        for solver in solvers:
            results[n][solver] = run_cable_ours(n, args.cable_steps, args.budget, work, solver)
        for who, r in results[n].items():
            print(f"cable {n} {who}: {r['us_mean']:.1f} µs/step, {r['contacts_mean']:.1f} contacts, "
                  f"{r['steps']} steps, penetration {r['penetration']:.2e}, travel {r['drag']:.3f}"
                  + "".join(f", {f} {r[f]}" for f in ("unconverged", "fallbacks", "iterations_mean", "eps_max")
                            if f in r), flush=True)
    (work / "cables.json").write_text(json.dumps({str(k): v for k, v in results.items()}))
    text, _ = cable_table(results, args.cables)
    print(text)
    if args.write and "cable" in args.part:
        c = cable
        text = (f"{datetime.date.today()}, `scripts/bench_scale.py --part cable --cables "
                f"{','.join(map(str, args.cables))} --cable-steps {args.cable_steps} --budget {args.budget:g}`, one run "
                f"(per cable MuJoCo {mujoco.__version__}, then signorini `--release --example sim_dynamic --urdf`), "
                "the same URDF (scripts/cable.py): a chain of N beads (spheres of radius "
                f"{100 * c.RADIUS:g} cm, {1e3 * c.BEAD_MASS:g} g, {100 * c.SPACING:g} cm apart, each behind a pitch "
                f"and a yaw revolute joint with a {1e3 * c.KNUCKLE_MASS:g} g knuckle between them, damping "
                f"{c.DAMPING:g} N·m·s/rad) behind a {c.SLED_MASS:g} kg sled on a prismatic joint along x, its PD "
                f"(kp {c.DRAG_KP:g} N/m, kd {c.DRAG_KD:g} N·s/m) tracking {c.SPEED:g} m/s; the cable starts on the "
                f"ground in a wave (±{c.WAVE:g} rad of heading, wavelength {c.WAVELENGTH:g} m), μ {c.MU:g}, Δt 1 ms; "
                "each simulator's default contact settings. A run is cut after "
                f"{args.budget:g} s of wall time (steps done). Contacts/step as each simulator counts them: "
                "signorini every bead within its 5 mm detection margin, MuJoCo the beads touching the ground "
                "(its soft contacts let the light beads hop: fewer contacts than beads). A cable is one island of "
                "a robot with 2N + 1 dofs, its joint-space inertia dense (a chain): both simulators' steps grow "
                "with the dofs, not only the contacts.\n\n" + text)
        write_section("scale_cable", "Scale: a cable dragged over the ground", text)
    return results


def tower(n):
    """Box poses of a tower of `n` boxes standing on the ground, faces touching."""
    return [[0.0, 0.0, HALF + 2 * HALF * k, 0.0] for k in range(n)]


def towers_part(args, work):
    rows = []
    for n in args.towers:
        boxes = tower(n)
        path = work / f"tower{n}.json"
        path.write_text(json.dumps({"boxes": boxes}))
        # Rounds alternated, the median round's figures (by µs/step) of each.
        runs = [(run_mujoco(boxes, args.tower_steps),
                 run_ours(path, args.tower_steps, args.budget, True, work / f"tower{n}-ours-{k}.json"))
                for k in range(args.tower_rounds)]
        median = lambda rs: sorted(rs, key=lambda r: r["us_mean"])[len(rs) // 2]
        m, o = median([r[0] for r in runs]), median([r[1] for r in runs])
        m["top"] = m.pop("top_z") - boxes[-1][2]
        o["top"] = o["top_z"] - boxes[-1][2]
        rows.append((n, m, o))
        print(f"tower {n}: MuJoCo {m['us_mean']:.1f} µs/step ({m['contacts_mean']:.0f} contacts), signorini "
              f"{o['us_mean']:.1f} ({o['contacts_mean']:.0f}), {o['unconverged']} unconverged, "
              f"{o['reserved_kb'] / 1024:.0f} MB reserved", flush=True)
    done = [(n, m, o) for n, m, o in rows if o["steps"] >= m["steps"]]
    fit = {w: slope([x[i]["contacts_mean"] for x in done], [x[i]["us_mean"] for x in done])
           for w, i in (("mujoco", 1), ("ours", 2))}
    lines = ["| tower | MuJoCo µs/step (contacts), top box's drop | signorini µs/step (contacts), steps done "
             "| ratio | unconverged, fallbacks | ADMM iterations/step | reserved MB | kB/contact "
             "| top box's drop |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, m, o in rows:
        lines.append(f"| {n} boxes | {m['us_mean']:.1f} ({m['contacts_mean']:.0f}), {-1e3 * m['top']:.3f} mm "
                     f"| {o['us_mean']:.1f} ({o['contacts_mean']:.0f}), {o['steps']} | {o['us_mean'] / m['us_mean']:.2f} "
                     f"| {o['unconverged']}, {o['fallbacks']} | {o['iterations_mean']:.1f} "
                     f"| {o['reserved_kb'] / 1024:.0f} | {o['kb_per_contact']:.1f} | {-1e3 * o['top']:.6f} mm |")
    cell = lambda x: "—" if math.isnan(x) else f"{x:.2f}"
    lines += ["", f"Exponent of µs/step against contacts over the towers' means: MuJoCo {cell(fit['mujoco'])}, "
              f"signorini {cell(fit['ours'])} (runs cut at the budget left out)."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        text = (f"{datetime.date.today()}, `scripts/bench_scale.py --part towers --towers "
                f"{','.join(map(str, args.towers))} --tower-steps {args.tower_steps} --tower-rounds "
                f"{args.tower_rounds} --budget {args.budget:g}`, one run of alternated rounds (per tower and round "
                f"MuJoCo {mujoco.__version__} with its defaults, then signorini `--release --example sim_scale` with "
                "its defaults; each simulator's median round by µs/step): towers of 1 kg boxes (0.1 m, μ 0.6) standing on the "
                "ground, faces touching, Δt 1 ms. A tower is one island (4 contacts a face); beyond 256 contacts "
                "(`DENSE_CONTACTS`) signorini solves it by W = J·U⁻ᵀ·D^{-1/2} without building G: the ADMM's "
                "products by W, its f-step by the Woodbury identity with the capacitance K = I + WᵀS⁻¹W "
                "factored by its envelope (a band: the boxes come in the order they touch). Reserved MB: the "
                "address space the stepper reserved at start-up (sized for 8 contacts a box + 64); kB/contact: "
                "the resident memory it took over the run / the most contacts of a step. Top box's drop: its "
                "height lost over the run.\n\n" + text)
        write_section("scale_towers", "Scale: towers, one island each", text)


def vfpi_part(args, work, cables):
    rows = []
    for key, name, piles, n in SCENES:
        if key not in VFPI_PILES or (args.only and key not in args.only):
            continue
        path = work / f"{key}.json"
        path.write_text(json.dumps({"boxes": layout(piles, n)}))
        by = {s: pile_eps(run_ours(path, args.steps, args.budget, True, work / f"{key}-{s}.json", s), args.steps)
              for s in SOLVERS}
        rows.append((name, by))
        for s, r in by.items():
            print(f"{name} {s}: {r['us_mean']:.1f} µs/step, {r['iterations_mean']:.1f} iterations, "
                  f"{r['unconverged']} unconverged, eps {r['eps_max']:.1e}, {r['steps']} steps", flush=True)
    for n, by in (cables or {}).items():
        rows.append((f"cable of {n} beads", {s: by[s] for s in SOLVERS}))
    text = vfpi_table(rows)
    (work / "vfpi.json").write_text(json.dumps({name: {k: {f: v for f, v in r.items() if not f.startswith("step_")}
                                                        for k, r in by.items()} for name, by in rows}))
    print(text)
    if args.write and not args.only:
        text = (f"{datetime.date.today()}, `scripts/bench_scale.py --part vfpi"
                + (" --part cable" if cables else "") + f" --steps {args.steps} --budget {args.budget:g}`, "
                "one run: signorini `--release` with islands, tolerance 1e-6, the solver of `contact.solver` "
                "(admm: seed 000's ADMM, the default, Anderson 5, polish; vfpi-block and vfpi: seed 004's "
                "velocity fixed-point iteration, the bodies' rows preconditioned by their block's inverse or by "
                "the paper's diagonal), every other setting the default (1000 iterations at most, fallback "
                "`ccp`). Iterations/step: summed over the step's islands (each at most 1000). ε_abs: seed 002's NCP "
                "criterion in force units, over the steps with contacts.\n\n" + text)
        write_section("scale_vfpi", "Scale: ADMM against V-FPI", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--big-steps", type=int, default=1000, help="steps of the 1000-box pile")
    parser.add_argument("--budget", type=float, default=120.0, help="wall seconds per run")
    parser.add_argument("--only", choices=[k for k, *_ in SCENES], action="append")
    parser.add_argument("--rounds", type=int, default=1, help="alternated rounds of the piles (median kept)")
    parser.add_argument("--part", choices=["piles", "cable", "towers", "vfpi"], action="append")
    parser.add_argument("--towers", type=lambda t: [int(x) for x in t.split(",")], default=[35, 70, 140, 280])
    parser.add_argument("--tower-steps", type=int, default=500)
    parser.add_argument("--tower-rounds", type=int, default=5)
    parser.add_argument("--cables", type=lambda t: [int(x) for x in t.split(",")], default=[30, 100, 300])
    parser.add_argument("--cable-steps", type=int, default=1000)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: expected at least 1")
    args.part = args.part or ["piles"]
    subprocess.run(["cargo", "build", "--release", "--example", "sim_scale", "--example", "sim_dynamic"], cwd=ROOT,
                   check=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-scale-"))
    if "piles" in args.part:
        piles_part(args, work)
    if "towers" in args.part:
        towers_part(args, work)
    cables = None
    if "cable" in args.part:
        cables = cable_part(args, work, SOLVERS if "vfpi" in args.part else ["admm"])
    if "vfpi" in args.part:
        vfpi_part(args, work, cables)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""signorini's simulator vs MuJoCo's: accuracy on analytic scenes and step time of robots standing, in one run.

Accuracy: three scenes built the same way in both (same masses, sizes, friction, Δt = 1 ms;
MuJoCo from MJCF strings with its defaults otherwise: Newton, pyramidal cones, soft
constraints; signorini from src/scenes/worlds.rs by examples/sim_accuracy.rs with its
default contact settings, ADMM on the NCP at tolerance 1e-6):
  - a 1 kg cube of side 0.2 on a 30° incline, μ 0.7 > tan 30°: drift along the slope in 2 s;
  - the same, μ 0.3: acceleration v(1 s)/1 s vs g (sin θ − μ cos θ), the highest the lowest
    corner rose above the plane, the steps without contact force (Σ normal < 1e-9 N·s);
  - 1000 kg cube on a 1 g cube on the ground (AT-09, side 0.1, μ 0.5): deepest
    penetration in 1 s (at the start of a step) and how far the heavy cube sank.

Speed: solo12 (example-robot-data) and the bundled quadruped (config/quadruped.yaml: its
URDF, posture and hold gains; without the crate) from the same URDF in both (MuJoCo
through its URDF importer: meshes by basename, a floating joint injected at the root,
robot–robot collisions off, Δt = 1 ms, defaults otherwise), at the standing posture with
the lowest shape on flat ground, held by the same joint PD (MuJoCo: position actuators),
settled for 1 s, then timed over 1000 steps (median of 5 consecutive runs each, ROUNDS
alternated rounds, each from the settled state).

In motion (issue 28; scripts/dynamic_scenes.py builds the scenes for both from one drive
file: random joint torques and pushes, drops from 0.3 m, talos falling over, the arm
pushing a box, 100 boxes into a pile): per scene and round, MuJoCo `mj_step` over the
scene's steps from its initial state, then signorini's `cargo run --release --example
sim_dynamic` (per step: time, contacts, ADMM iterations, polish, convergence, fallback,
seed 002's ε_abs, penetration, lowest body frame); µs/step = the run's mean, median over
rounds, ratio = median of the per-round ratios; and the ratio with each chunk of at most
50 steps timed at its fastest round on both sides (the work is the same every round: a
slower round of a chunk is the host's). Contacts and the trajectory checks of
MuJoCo from one more, untimed run of the same trajectory.

  scripts/with_ros.sh python scripts/bench_sim.py [--rounds 5] [--part all|static|dynamic]
      [--steps N] [--scene KEY ...] [--write]

`--steps` cuts every dynamic scene to N steps (their defaults: 1000 or 2000); `--scene`
runs only those dynamic scenes (and writes nothing): a smoke run is `--part dynamic
--rounds 1 --steps 300`.
"""

import argparse
import datetime
import json
import math
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import mujoco
import numpy as np
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import dynamic_scenes  # noqa: E402
import mujoco_plant  # noqa: E402
from bench_dynamics import example, write_section  # noqa: E402

DT, G0 = 1e-3, 9.81
SOLO_KP, SOLO_KD = 5.0, 0.1
THETA = 30.0
QUADRUPED_CONFIG = ROOT / "config" / "quadruped.yaml"
STATE = mujoco.mjtState.mjSTATE_INTEGRATION
TUNNEL = 0.05  # m: a body frame this far below the ground went through it (the smallest bodies' half side)


# --- accuracy ---------------------------------------------------------------------------

def mjcf(bodies, ground_normal, mu):
    """A world of Δt = DT (gravity −G0 z) with a plane through the origin of unit normal
    `ground_normal` and free cubes (name, mass, half side, centre, z axis), all of friction
    μ (MuJoCo takes the larger of two geoms' μ)."""
    friction = f'friction="{mu!r} 0.005 0.0001"'
    zaxis = " ".join(repr(float(x)) for x in ground_normal)
    cubes = "".join(
        f'<body name="{name}" pos="{" ".join(repr(float(x)) for x in centre)}" zaxis="{zaxis}"><freejoint/>'
        f'<geom type="box" size="{half!r} {half!r} {half!r}" mass="{mass!r}" {friction}/></body>'
        for name, mass, half, centre in bodies)
    return (f'<mujoco><option timestep="{DT!r}" gravity="0 0 {-G0!r}"/><worldbody>'
            f'<geom name="ground" type="plane" size="10 10 0.1" zaxis="{zaxis}" {friction}/>{cubes}'
            '</worldbody></mujoco>')


def normal_impulse(model, data):
    """Σ of the normal contact forces of the last step × Δt (N·s)."""
    f, total = np.zeros(6), 0.0
    for i in range(data.ncon):
        mujoco.mj_contactForce(model, data, i, f)
        total += f[0]
    return total * DT


def lowest_corner(data, body, half, n):
    """Signed distance of a cube's lowest corner from the plane through the origin of normal n."""
    r = data.xmat[body].reshape(3, 3)
    return min(float((data.xpos[body] + r @ (half * np.array([a, b, c]))) @ n)
               for a in (-1, 1) for b in (-1, 1) for c in (-1, 1))


def mujoco_accuracy():
    theta = math.radians(THETA)
    n = np.array([math.sin(theta), 0.0, math.cos(theta)])
    downhill = np.array([math.cos(theta), 0.0, -math.sin(theta)])
    out = {}

    model = mujoco.MjModel.from_xml_string(mjcf([("cube", 1.0, 0.1, 0.1 * n)], n, 0.7))
    data = mujoco.MjData(model)
    start = data.qpos[:3].copy()
    mujoco.mj_step(model, data, nstep=2000)
    out["incline_stick"] = {"drift_m": float((data.qpos[:3] - start) @ downhill)}

    mu = 0.3
    model = mujoco.MjModel.from_xml_string(mjcf([("cube", 1.0, 0.1, 0.1 * n)], n, mu))
    data = mujoco.MjData(model)
    body = model.body("cube").id
    separation, airborne = 0.0, 0
    for _ in range(1000):
        mujoco.mj_step(model, data)
        separation = max(separation, lowest_corner(data, body, 0.1, n))
        airborne += normal_impulse(model, data) < 1e-9
    out["incline_slide"] = {
        "acceleration": float(data.qvel[:3] @ downhill) / data.time,
        "analytic": G0 * (math.sin(theta) - mu * math.cos(theta)),
        "max_separation_m": separation, "steps_without_contact": int(airborne)}

    z = np.array([0.0, 0.0, 1.0])
    model = mujoco.MjModel.from_xml_string(mjcf(
        [("light", 1e-3, 0.05, (0, 0, 0.05)), ("heavy", 1e3, 0.05, (0, 0, 0.15))], z, 0.5))
    data = mujoco.MjData(model)
    heavy = model.jnt_qposadr[model.body("heavy").jntadr[0]] + 2
    z0, penetration = data.qpos[heavy], 0.0
    for _ in range(1000):
        mujoco.mj_step(model, data)
        if data.ncon:
            penetration = max(penetration, -float(data.contact.dist[:data.ncon].min()))
    out["heavy_on_light"] = {"max_penetration_m": penetration, "heavy_sank_m": float(z0 - data.qpos[heavy])}
    return out


# --- speed ------------------------------------------------------------------------------

def mujoco_robot(urdf, posture, kp, kd, share=None):
    """A floating-base URDF robot in MuJoCo at `posture` (joint name → position; a joint
    not named: 0), every joint held by a position actuator (kp, kd) at it, as signorini's
    hold PD holds every joint; its lowest shape on the plane z = 0."""
    spec = mujoco_plant.on_ground(mujoco_plant.urdf_spec(urdf, share, floating=True), DT)
    held = [j.name for j in spec.joints if j.type in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)]
    for name in held:
        a = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=kp, kv=kd)
    model = spec.compile()
    data = mujoco.MjData(model)
    for name in held:
        value = posture.get(name, 0.0)
        data.qpos[model.joint(name).qposadr[0]] = value
        data.ctrl[model.actuator(name).id] = value
    mujoco_plant.place_on_ground(model, data)
    return model, data


def mujoco_solo12():
    share, urdf, _ = mujoco_plant.solo12_paths()
    return mujoco_robot(urdf, mujoco_plant.solo12_posture(), SOLO_KP, SOLO_KD, share)


def quadruped_config():
    config = yaml.safe_load(QUADRUPED_CONFIG.read_text())
    return (QUADRUPED_CONFIG.parent / config["robot"]["urdf"], config["robot"]["initial_posture"],
            float(config["sim"]["hold_kp"]), float(config["sim"]["hold_kd"]))


def mujoco_quadruped():
    urdf, posture, kp, kd = quadruped_config()
    return mujoco_robot(urdf, posture, kp, kd)


def time_mujoco(model, data, steps=1000):
    t0 = time.perf_counter()
    mujoco.mj_step(model, data, nstep=steps)
    return (time.perf_counter() - t0) / steps * 1e6


# --- report -----------------------------------------------------------------------------

def accuracy_table(theirs, ours):
    s_th, s_us = theirs["incline_slide"], ours["incline_slide"]
    rows = [
        (f"cube on a {THETA:.0f}° incline, μ 0.7 > tan θ (sticks)", "drift along the slope in 2 s (m)", "0",
         lambda x: f"{x['incline_stick']['drift_m']:.1e}"),
        (f"cube on a {THETA:.0f}° incline, μ 0.3 (slides)", "acceleration over 1 s (m/s²)",
         f"{s_th['analytic']:.4f}", lambda x: f"{x['incline_slide']['acceleration']:.4f}"),
        ("", "highest rise of its lowest corner above the plane (m)", "0",
         lambda x: f"{x['incline_slide']['max_separation_m']:.1e}"),
        ("", "steps without contact force (of 1000)", "0",
         lambda x: f"{x['incline_slide']['steps_without_contact']}"),
        ("1000 kg cube on a 1 g cube (AT-09)", "deepest penetration in 1 s (m)", "0",
         lambda x: f"{x['heavy_on_light']['max_penetration_m']:.1e}"),
        ("", "the heavy cube sank by (m)", "0", lambda x: f"{x['heavy_on_light']['heavy_sank_m']:.1e}"),
    ]
    assert abs(s_th["analytic"] - s_us["analytic"]) < 1e-12, "the same scene"
    lines = ["| scene | figure | analytic | MuJoCo | signorini |", "|---|---|---:|---:|---:|"]
    lines += [f"| {scene} | {figure} | {exact} | {fmt(theirs)} | {fmt(ours)} |" for scene, figure, exact, fmt in rows]
    return "\n".join(lines)


def static_part(args, work):
    """The accuracy and standing-robot tables (the section `sim`)."""
    subprocess.run([str(example("sim_accuracy")), "--json", str(work / "accuracy.json")],
                   cwd=ROOT, check=True, capture_output=True)
    accuracy = accuracy_table(mujoco_accuracy(), json.loads((work / "accuracy.json").read_text()))

    scenes = [("solo12_standing", f"solo12 standing (kp {SOLO_KP:g}, kd {SOLO_KD:g})", mujoco_solo12()),
              ("quadruped_standing", "quadruped standing (config/quadruped.yaml hold: kp {:g}, kd {:g})".format(
                  *quadruped_config()[2:]), mujoco_quadruped())]
    settled = {}
    for key, _, (model, data) in scenes:
        mujoco.mj_step(model, data, nstep=1000)  # settle 1 s
        settled[key] = np.empty(mujoco.mj_stateSize(model, STATE))
        mujoco.mj_getState(model, data, settled[key], STATE)
    ours, theirs, unpolished = [], [], []
    for r in range(args.rounds):
        # Each round from the settled state, as each run of the example starts afresh.
        timings = {}
        for key, _, (model, data) in scenes:
            mujoco.mj_setState(model, data, settled[key], STATE)
            timings[key] = statistics.median(time_mujoco(model, data) for _ in range(5))
        theirs.append(timings)
        out = work / f"ours-{r}.json"
        subprocess.run([str(example("sim_timing")), "--rounds", "5", "--json", str(out)],
                       cwd=ROOT, check=True, capture_output=True)
        ours.append(json.loads(out.read_text()))
        subprocess.run([str(example("sim_timing")), "--rounds", "5", "--no-polish",
                        "--json", str(out)], cwd=ROOT, check=True, capture_output=True)
        unpolished.append(json.loads(out.read_text()))
    speed = ["| scene, Δt 1 ms | MuJoCo µs/step (contacts) "
             "| signorini µs/step (contacts, steps polished, max ε_abs) | ratio "
             "| signorini without polish µs/step (ADMM iterations/step, max ε_abs) | ratio |",
             "|---|---:|---:|---:|---:|---:|"]
    for key, name, (_, data) in scenes:
        def column(runs):
            ratio = statistics.median(o[key]["us_per_step"] / t[key] for o, t in zip(runs, theirs))
            return statistics.median(x[key]["us_per_step"] for x in runs), runs[-1][key], ratio
        us, o, ratio = column(ours)
        us_u, u, ratio_u = column(unpolished)
        speed.append(
            f"| {name} | {statistics.median(t[key] for t in theirs):.1f} ({data.ncon}) "
            f"| {us:.1f} ({o['contacts']}, {100 * o['polished']:.0f} %, {o['eps_abs']:.1e}) | **{ratio:.2f}** "
            f"| {us_u:.1f} ({u['iterations']:.1f}, {u['eps_abs']:.1e}) | {ratio_u:.2f} |")

    text = (
        f"Measured {datetime.date.today()}, MuJoCo {mujoco.__version__} (`mujoco` wheel) with its defaults "
        "(Newton, pyramidal cones, soft constraints), signorini `--release` with its defaults (ADMM on the "
        "NCP, tolerance 1e-6, `contact.polish` on); Δt 1 ms on both. ε_abs: the NCP criterion of seed 002 "
        "in force units (λ/Δt), the largest over the timed steps.\n\n"
        "Accuracy: the same scenes in both (MuJoCo from MJCF, signorini `cargo run --release --example "
        "sim_accuracy`); cubes of 1 kg and side 0.2 on the incline; AT-09's cubes of side 0.1, μ 0.5. "
        "Acceleration: v(1 s)/1 s from rest. Contact force: Σ normal < 1e-9 N·s in a step. Penetration: "
        "at the start of a step.\n\n"
        f"{accuracy}\n\n"
        f"Speed: {args.rounds} alternated rounds (MuJoCo `mj_step`, 1000 steps per run, median of 5 runs; "
        "signorini `cargo run --release --example sim_timing`, the same); both robots from the same URDF "
        "(MuJoCo through its URDF importer), lowest shape on the ground, settled for 1 s under the same "
        "joint PD (MuJoCo: position actuators), each round from the settled state; ratio = median of the "
        "per-round ratios signorini / MuJoCo. Polished: the step was solved by the previous step's contact "
        "modes (`contact.polish`, no ADMM iteration); without polish, the ADMM solves every step "
        "(`sim_timing --no-polish`).\n\n"
        + "\n".join(speed) + "\n\n"
        f"Command: `scripts/with_ros.sh python scripts/bench_sim.py --rounds {args.rounds} --write` "
        "(in `make bench`).")
    return text


# --- in motion ----------------------------------------------------------------------------

def run_dynamic(key, drive_path, steps, out):
    """signorini's per-step figures of scene `key` (examples/sim_dynamic.rs)."""
    robot = dynamic_scenes.SCENES[key.removesuffix("_whole")][1]
    extra = ["--no-islands"] if key.endswith("_whole") else []
    subprocess.run([str(example("sim_dynamic")), "--robot", robot, "--drive", str(drive_path), "--steps",
                    str(steps), "--json", str(out), *extra], cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())


def dynamic_figures(ours, mine, steps):
    """One scene's figures: signorini's per-step columns (`ours`, the last round) and
    MuJoCo's statistics run (`mine`)."""
    contact = [k for k, c in enumerate(ours["contacts"]) if c > 0]
    at = lambda column: [ours[column][k] for k in contact]
    eps = at("eps_abs")
    return {
        "steps": ours["steps"], "steps_asked": steps, "contacts": statistics.fmean(ours["contacts"]),
        "joint_blocks": statistics.fmean(a + b for a, b in zip(ours["joint_limits"], ours["joint_friction"])),
        "contact_steps": len(contact),
        "iterations_mean": statistics.fmean(at("iterations")) if contact else 0.0,
        "iterations_max": max(at("iterations"), default=0),
        "polished": int(sum(at("polished"))), "unconverged": int(sum(ours["unconverged"])),
        "fallbacks": int(sum(ours["fallback"])), "eps_max": max(eps, default=0.0),
        "eps_median": statistics.median(eps) if eps else 0.0,
        "penetration": max(ours["penetration"]), "lowest": min(ours["lowest"]),
        "mujoco_contacts": statistics.fmean(mine["contacts"]),
        "mujoco_joint_constraints": statistics.fmean(mine["joint_constraints"]), "mujoco_penetration": max(mine["penetration"]),
        "mujoco_lowest": min(mine["lowest"]),
        "final_bodies": ours["final_bodies"], "mujoco_final_bodies": mine["final_bodies"],
    }


def chunk_means(step_us, sizes):
    """µs per step of each chunk of `sizes` steps (dynamic_scenes.MujocoScene.chunks)."""
    out, k = [], 0
    for n in sizes:
        if k + n > len(step_us):
            break
        out.append(statistics.fmean(step_us[k:k + n]))
        k += n
    return out


def mean_of_chunks(per_chunk, sizes):
    """µs per step over the chunks' steps from their µs per step."""
    return sum(us * n for us, n in zip(per_chunk, sizes)) / sum(sizes[:len(per_chunk)])


def best_of_rounds(rounds, sizes, n):
    """µs per step over the first `n` chunks, each at its fastest round: the work is the
    same in every round (a deterministic trajectory), so a chunk's slower rounds are the
    host's (another job, a VM's stolen time), not the simulator's."""
    return mean_of_chunks([min(r[c] for r in rounds) for c in range(n)], sizes[:n])


def dynamic_part(args, work):
    """Every dynamic scene in both simulators, alternated rounds; returns the table's text
    and the figures per scene."""
    keys = args.scene or list(dynamic_scenes.SCENES)
    scenes = {}
    for key in keys:
        steps = args.steps or dynamic_scenes.SCENES[key.removesuffix("_whole")][2]
        drive = dynamic_scenes.drive(key.removesuffix("_whole"), steps)
        path = work / f"drive-{key}.json"
        path.write_text(json.dumps(drive))
        mj = dynamic_scenes.MujocoScene(key.removesuffix("_whole"), drive)
        scenes[key] = (steps, path, mj, mj.statistics(steps))
    times = {key: [] for key in keys}
    chunks = {key: [] for key in keys}
    last = {}
    for r in range(args.rounds):
        for key, (steps, path, mj, _) in scenes.items():
            sizes = mj.chunks(steps)
            theirs_chunks = mj.time(steps)
            last[key] = run_dynamic(key, path, steps, work / f"ours-{key}.json")
            ours_chunks = chunk_means(last[key]["step_us"], sizes)
            theirs = mean_of_chunks(theirs_chunks, sizes)
            ours = sum(last[key]["step_us"]) / max(1, last[key]["steps"])
            times[key].append((ours, theirs))
            chunks[key].append((ours_chunks, theirs_chunks))
            print(f"round {r + 1} {key}: signorini {ours:.1f} µs/step, MuJoCo {theirs:.1f}", file=sys.stderr,
                  flush=True)
    figures = {}
    for key, (steps, _, mj, mine) in scenes.items():
        f = dynamic_figures(last[key], mine, steps)
        f["us"] = statistics.median(o for o, _ in times[key])
        f["mujoco_us"] = statistics.median(t for _, t in times[key])
        f["ratio"] = statistics.median(o / t for o, t in times[key])
        # Over the chunks both sides ran in every round (a run cut short has fewer).
        sizes, n = mj.chunks(steps), min(len(c) for pair in chunks[key] for c in pair)
        f["ratio_best"] = (best_of_rounds([o for o, _ in chunks[key]], sizes, n)
                           / best_of_rounds([t for _, t in chunks[key]], sizes, n)) if n else math.nan
        f["tunnelled"] = f["lowest"] < -TUNNEL or f["steps"] < steps
        figures[key] = f
    table = dynamic_table(figures)
    if "arm_push" in figures:
        start = np.array(json.loads(scenes["arm_push"][1].read_text())["boxes"][0][:3])
        moved = [np.linalg.norm(np.array(figures["arm_push"][k][0]) - start)
                 for k in ("final_bodies", "mujoco_final_bodies")]
        table += ("\n\nThe arm's box ends {:.3f} m from where it started in signorini, {:.3f} m in MuJoCo "
                  "(the same sweep; the two contact models push it differently).".format(*moved))
    return table, figures


def dynamic_table(figures):
    lines = ["| scene (steps) | MuJoCo µs/step (contacts + joint constraints /step) "
             "| signorini µs/step (contacts + joint blocks /step) | ratio | ratio, each chunk's best round "
             "| ADMM iterations/step, mean (max) | steps polished | ε_abs max (median) | unconverged, fallbacks "
             "| deepest penetration signorini / MuJoCo (m) | lowest body frame signorini / MuJoCo (mm) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, f in figures.items():
        name = dynamic_scenes.SCENES[key.removesuffix("_whole")][0] + (
            ", one problem (`contact.islands: false`)" if key.endswith("_whole") else "")
        steps = f"{f['steps']}" + ("" if f["steps"] == f["steps_asked"] else f" of {f['steps_asked']}")
        lines.append(
            f"| {name} ({steps}) | {f['mujoco_us']:.1f} ({f['mujoco_contacts']:.1f} + {f['mujoco_joint_constraints']:.1f}) "
            f"| {f['us']:.1f} ({f['contacts']:.1f} + {f['joint_blocks']:.1f}) | **{f['ratio']:.2f}** | {f['ratio_best']:.2f} | {f['iterations_mean']:.1f} ({f['iterations_max']:.0f}) "
            f"| {f['polished']} of {f['contact_steps']} | {f['eps_max']:.1e} ({f['eps_median']:.1e}) "
            f"| {f['unconverged']}, {f['fallbacks']} | {f['penetration']:.1e} / {f['mujoco_penetration']:.1e} "
            f"| {1e3 * f['lowest']:.1f} / {1e3 * f['mujoco_lowest']:.1f}"
            + (" **tunnelled**" if f["tunnelled"] else "") + " |")
    return "\n".join(lines)


def dynamic_text(args, table):
    return (
        f"Measured {datetime.date.today()}, MuJoCo {mujoco.__version__} with its defaults, signorini `--release` "
        "with its defaults (ADMM on the NCP, tolerance 1e-6, `contact.polish` on, `contact.fallback` on, "
        "`contact.islands` on unless said); Δt 1 ms on both, the same URDF (MuJoCo through its URDF importer), "
        "the same drive file (scripts/dynamic_scenes.py: its docstring says what each scene does) for both. "
        f"{args.rounds} alternated rounds (per scene: MuJoCo over the scene from its initial state, then "
        "signorini's `cargo run --release --example sim_dynamic`); µs/step: the run's mean (the joint PD "
        "included on both sides), median over the rounds; ratio = median of the per-round ratios signorini / "
        "MuJoCo; each chunk's best round: the run's µs/step with each chunk of at most "
        f"{dynamic_scenes.CHUNK} steps (within a piece of the drive) timed at its fastest round, on both sides "
        "(the same work in every round: a slower round of a chunk is the host's, so this ratio is the least "
        "disturbed by it). Contacts/step: the mean over the steps (signorini counts pairs within its 5 mm "
        "`collision.margin`, MuJoCo its active contacts); + joint blocks: signorini's joint limits within "
        "1 mm and joints with URDF friction, solved with the contacts, MuJoCo's dof friction and active "
        "limit constraints (`nf + nl`). Over the steps with contacts: ADMM iterations, "
        "steps polished (solved by the previous step's contact modes, no iteration), ε_abs (the NCP criterion "
        "of seed 002 in force units, λ/Δt; not the ADMM's own stopping test, which `contact.tolerance` bounds: "
        "a step can pass that test with a large ε_abs). Unconverged: steps whose solve missed the tolerance; "
        "fallbacks: "
        "steps that took `contact.fallback`'s impulses. Penetration: the deepest at the start of a step "
        "(signorini: rigid, MuJoCo: soft contacts). Lowest body frame: the lowest robot link frame or box "
        f"centre over the run; below −{TUNNEL:g} m (or a run cut short) it reads **tunnelled**. Timings on a "
        "shared 2-core machine (other jobs running): read the ratio.\n\n"
        + table + "\n\n"
        f"Command: `scripts/with_ros.sh python scripts/bench_sim.py --part dynamic --rounds {args.rounds} --write` "
        "(`make bench` runs both parts).")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part", choices=["all", "static", "dynamic"], default="all")
    parser.add_argument("--steps", type=int, help="steps of every dynamic scene (default: each its own)")
    parser.add_argument("--scene", action="append", choices=[*dynamic_scenes.SCENES, "pile100_whole"],
                        help="only these dynamic scenes (writes nothing)")
    parser.add_argument("--json", type=pathlib.Path, help="write the dynamic figures here")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--example", "sim_timing", "--example", "sim_accuracy",
                    "--example", "sim_dynamic"], cwd=ROOT, check=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="signorini-sim-"))
    if args.part in ("all", "static"):
        text = static_part(args, work)
        print(text)
        if args.write:
            write_section("sim", "Simulation: signorini / MuJoCo", text)
    if args.part in ("all", "dynamic"):
        if not args.scene:
            args.scene = [*dynamic_scenes.SCENES, "pile100_whole"]
            partial = False
        else:
            partial = True
        table, figures = dynamic_part(args, work)
        text = dynamic_text(args, table)
        print(text)
        if args.json:
            args.json.write_text(json.dumps(figures))
        if args.write and not partial and not args.steps:
            write_section("sim_dynamic", "Simulation in motion: signorini / MuJoCo", text)


if __name__ == "__main__":
    main()

"""The dynamic scenes of scripts/bench_sim.py (issue 28): robots and bodies in motion, built
the same way in MuJoCo and in signorini (examples/sim_dynamic.rs) from one drive file.

A drive (see examples/sim_dynamic.rs) holds everything both simulators share: the joints a
PD drives with their gains, a schedule of pieces of `piece` steps (the PD reference, added
joint torques, a push on the base through its centre of mass, each held over a piece),
the initial posture and height, the boxes. Random torques and pushes are drawn here once
(seeded) and written to it, so that both simulators get the same sequence.

Scenes (Δt 1 ms, default contact settings of each simulator):
  - solo12 and the bundled quadruped, standing under their joint PD (solo12 kp 5, kd 0.1;
    the quadruped config/quadruped.yaml's hold), plus random joint torques uniform in ±30 %
    of the effort limit held for 50 ms pieces (solo12: its URDF says 1000 N·m, no motor's
    figure; 30 % of its actuators' 2.7 N·m peak instead), plus a push through the base's
    centre of mass of 30 % of the weight, horizontal in a random direction, for 0.1 s
    every 0.5 s from 0.25 s;
  - the same two under their PD, their lowest shape released 0.3 m above the ground;
  - talos (example-robot-data) released upright at its neutral configuration, unactuated
    (`signorini bench`'s talos-falling);
  - the bundled arm (config/arm7.yaml's position gains as a joint PD, no integral term)
    reaching down, its tool (a sphere of radius 0.03 m) 1.4 cm over the floor beside a
    1 kg box of side 0.1 m, then sweeping joint 1 from −0.6 to 0.6 rad (minimum jerk over
    1.5 s, the reference held in 10 ms pieces): the tool pushes the box sideways across the
    floor; friction 1 everywhere (MuJoCo's default;
    signorini's ground default, the arm deferring to it); the arm's base is on the floor,
    neither simulator collides a fixed root with the ground;
  - 100 boxes of 1 kg (side 0.1 m, μ 0.6) dropped 0.3 m into a pile: scripts/bench_scale.py's
    jittered lattice and MJCF.
"""

import math
import pathlib
import time

import mujoco
import numpy as np
import yaml

import bench_scale
import mujoco_plant

ROOT = pathlib.Path(__file__).resolve().parents[1]
DT, SEED = 1e-3, 28
STATE = mujoco.mjtState.mjSTATE_INTEGRATION
SOLO_KP, SOLO_KD = 5.0, 0.1
SOLO_PEAK = 2.7  # N·m, solo12's actuators (Grimminger et al. 2020): its URDF says 1000
TORQUE_FRACTION, PIECE = 0.3, 50
PUSH_FRACTION, PUSH_EVERY, PUSH_FROM, PUSH_FOR = 0.3, 0.5, 0.25, 0.1
DROP = 0.3
ARM_POSTURE = {"joint2": 1.3, "joint4": 1.0}  # the wrist over the floor; joint 6 points it down
ARM_SWEEP, ARM_MOVE_FROM, ARM_MOVE_FOR, ARM_PIECE = 0.6, 0.2, 1.5, 10
ARM_BOX_HALF, ARM_BOX_MASS = 0.05, 1.0

# key -> (name, robot of examples/sim_dynamic.rs, default steps)
SCENES = {
    "solo12_torques": ("solo12, random torques and pushes", "solo12", 2000),
    "quadruped_torques": ("quadruped, random torques and pushes", "quadruped", 2000),
    "solo12_drop": ("solo12 dropped from 0.3 m", "solo12", 1000),
    "quadruped_drop": ("quadruped dropped from 0.3 m", "quadruped", 1000),
    "talos_falling": ("talos falling over, unactuated", "talos", 2000),
    "arm_push": ("arm pushing a box across the floor", "arm7", 2000),
    "pile100": ("100 boxes falling into a pile", "none", 1000),
}


def hinge_joints(model):
    return [model.joint(j).name for j in range(model.njnt)
            if int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]


def urdf_model(urdf, share, floating):
    return mujoco_plant.on_ground(mujoco_plant.urdf_spec(urdf, share, floating), DT)


def robot_source(robot):
    """(URDF, share for package://, floating, posture, PD gains per joint or None, effort limits)."""
    if robot == "solo12":
        share, urdf, _ = mujoco_plant.solo12_paths()
        return urdf, share, True, mujoco_plant.solo12_posture(), (SOLO_KP, SOLO_KD)
    if robot == "quadruped":
        config = yaml.safe_load((ROOT / "config" / "quadruped.yaml").read_text())
        gains = float(config["sim"]["hold_kp"]), float(config["sim"]["hold_kd"])
        return ROOT / "urdf" / "quadruped.urdf", None, True, config["robot"]["initial_posture"], gains
    if robot == "talos":
        share = mujoco_plant.erd_share()
        urdf = share / "example-robot-data" / "robots" / "talos_data" / "robots" / "talos_reduced.urdf"
        return urdf, share, True, {}, None
    if robot == "arm7":
        config = yaml.safe_load((ROOT / "config" / "arm7.yaml").read_text())
        gains = {j: (float(g["kp"]), float(g["kd"])) for j, g in config["joint_commands"]["position_gains"].items()}
        return ROOT / "urdf" / "arm7.urdf", None, False, {}, gains
    raise ValueError(robot)


def arm_posture():
    """The arm's reaching posture (joint 6 pointing the wrist straight down) and the box's
    centre: beside the wrist's circle about joint 1's axis, on the floor. Lengths from
    urdf/arm7.urdf: joint 2 at 0.35 m, joint 4 0.4 m further, joint 6 0.38 m further."""
    q2, q4 = ARM_POSTURE["joint2"], ARM_POSTURE["joint4"]
    posture = {"joint1": 0.0, "joint2": q2, "joint4": q4, "joint6": math.pi - q2 - q4}
    reach = 0.4 * math.sin(q2) + 0.38 * math.sin(q2 + q4)
    return posture, [reach, 0.0, ARM_BOX_HALF]


def drive(key, steps):
    """The drive file's content of scene `key` for `steps` steps."""
    name, robot, _ = SCENES[key]
    if robot == "none":
        boxes = bench_scale.layout(1, 100)
        return {"piece": steps, "boxes": boxes, "box_half": bench_scale.HALF, "box_mass": 1.0,
                "box_friction": bench_scale.MU, "ground_friction": bench_scale.MU}
    urdf, share, floating, posture, gains = robot_source(robot)
    if gains is None:  # talos: no drive
        return {"piece": steps}
    model = urdf_model(urdf, share, floating).compile()
    joints = hinge_joints(model)
    if robot == "arm7":
        return arm_drive(joints, gains, steps)
    reference = [float(posture.get(j, 0.0)) for j in joints]
    d = {"piece": PIECE, "joints": joints, "kp": [gains[0]] * len(joints), "kd": [gains[1]] * len(joints),
         "initial": {j: v for j, v in zip(joints, reference)}}
    pieces = max(1, math.ceil(steps / PIECE))
    if key.endswith("_drop"):
        d.update(piece=steps, reference=[reference], lift=DROP)
        return d
    rng = np.random.default_rng(SEED)
    effort = mujoco_plant.effort_limits(urdf)
    amplitude = np.array([TORQUE_FRACTION * (SOLO_PEAK if robot == "solo12" else effort[j]) for j in joints])
    weight = float(model.body_subtreemass[0] * 9.81)
    first, every, length = (round(x / (PIECE * DT)) for x in (PUSH_FROM, PUSH_EVERY, PUSH_FOR))
    push, current = [], [0.0, 0.0, 0.0]
    for p in range(pieces):
        if p >= first and (p - first) % every == 0:
            angle = rng.uniform(0, 2 * math.pi)
            current = [PUSH_FRACTION * weight * math.cos(angle), PUSH_FRACTION * weight * math.sin(angle), 0.0]
        push.append(current if p >= first and (p - first) % every < length else [0.0, 0.0, 0.0])
    d.update(reference=[reference] * pieces,
             tau=[list(rng.uniform(-1, 1, len(joints)) * amplitude) for _ in range(pieces)], push=push)
    return d


def arm_drive(joints, gains, steps):
    posture, centre = arm_posture()
    base = [posture.get(j, 0.0) for j in joints]
    pieces = max(1, math.ceil(steps / ARM_PIECE))
    reference = []
    for p in range(pieces):
        s = mujoco_plant.minimum_jerk((p * ARM_PIECE * DT - ARM_MOVE_FROM) / ARM_MOVE_FOR)
        reference.append([(-ARM_SWEEP + 2 * ARM_SWEEP * s) if j == "joint1" else v for j, v in zip(joints, base)])
    return {"piece": ARM_PIECE, "joints": joints, "kp": [gains[j][0] for j in joints],
            "kd": [gains[j][1] for j in joints], "reference": reference,
            "initial": dict(zip(joints, reference[0])), "boxes": [centre + [0.0]], "box_half": ARM_BOX_HALF,
            "box_mass": ARM_BOX_MASS, "box_friction": 1.0, "ground_friction": 1.0}


# --- MuJoCo ------------------------------------------------------------------------------

# Steps timed at once at most (`MujocoScene.time`).
CHUNK = 50


class MujocoScene:
    """Scene `key` in MuJoCo from its drive: position actuators (kp, kv, force range the
    URDF's effort limit) on the drive's joints with the control reference + τ/kp (the same
    PD plus the same added torque, clamped as signorini clamps τ), the push in
    xfrc_applied of the root body (world axes, at its centre of mass)."""

    def __init__(self, key, d):
        _, robot, _ = SCENES[key]
        self.d, self.piece = d, d["piece"]
        if robot == "none":
            self.model = mujoco.MjModel.from_xml_string(bench_scale.mjcf(d["boxes"]))
            self.data = mujoco.MjData(self.model)
            self.kp, self.actuators = np.zeros(0), []
            self.initial = self.state()
            return
        urdf, share, floating, _, _ = robot_source(robot)
        spec = urdf_model(urdf, share, floating)
        effort = mujoco_plant.effort_limits(urdf)
        for j, kp, kd in zip(d.get("joints", []), d.get("kp", []), d.get("kd", [])):
            a = spec.add_actuator(name=j, target=j, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            a.set_to_position(kp=kp, kv=kd)
            if math.isfinite(effort.get(j, math.inf)):
                a.forcelimited, a.forcerange = True, [-effort[j], effort[j]]
        for k, (x, y, z, yaw) in enumerate(d.get("boxes", [])):
            body = spec.worldbody.add_body(name=f"box{k}", pos=[x, y, z], quat=[math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)])
            body.add_freejoint()
            h = d["box_half"]
            g = body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[h, h, h], mass=d["box_mass"])
            g.contype, g.conaffinity = 3, 3
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        for j, v in d.get("initial", {}).items():
            self.data.qpos[self.model.joint(j).qposadr[0]] = v
        if floating:
            mujoco_plant.place_on_ground(self.model, self.data, d.get("lift", 0.0))
        mujoco.mj_forward(self.model, self.data)
        self.kp = np.array(d.get("kp", []))
        self.actuators = [self.model.actuator(j).id for j in d.get("joints", [])]
        self.initial = self.state()

    def state(self):
        x = np.empty(mujoco.mj_stateSize(self.model, STATE))
        mujoco.mj_getState(self.model, self.data, x, STATE)
        return x

    def reset(self):
        mujoco.mj_setState(self.model, self.data, self.initial, STATE)
        self.data.xfrc_applied[:] = 0.0

    def apply(self, p):
        """The inputs of piece p (the last piece held beyond the schedule)."""
        d = self.d
        if self.kp.size:
            ref = d["reference"][min(p, len(d["reference"]) - 1)]
            tau = d["tau"][min(p, len(d["tau"]) - 1)] if d.get("tau") else np.zeros(len(ref))
            self.data.ctrl[self.actuators] = np.asarray(ref) + np.asarray(tau) / self.kp
        if d.get("push"):
            self.data.xfrc_applied[1, :3] = d["push"][min(p, len(d["push"]) - 1)]

    def chunks(self, steps):
        """The timed chunks of a run of `steps` steps: each piece of the drive in chunks of
        at most CHUNK steps (a piece's inputs are held, so splitting it changes nothing)."""
        sizes, done = [], 0
        while done < steps:
            n = min(self.piece, steps - done)
            sizes += [CHUNK] * (n // CHUNK) + ([n % CHUNK] if n % CHUNK else [])
            done += n
        return sizes

    def time(self, steps):
        """µs per step of each chunk ([`MujocoScene.chunks`]) over `steps` steps from the
        initial state (`mj_step` over the chunk's steps at once, timed around it)."""
        self.reset()
        out, done = [], 0
        for n in self.chunks(steps):
            if done % self.piece == 0:
                self.apply(done // self.piece)
            t0 = time.perf_counter()
            mujoco.mj_step(self.model, self.data, nstep=n)
            out.append((time.perf_counter() - t0) / n * 1e6)
            done += n
        return out

    def statistics(self, steps):
        """Per step (one untimed run, the same trajectory): contacts, joint constraints
        (dof friction and active limits, `nf + nl`), the deepest
        penetration, the lowest frame of a body that has a joint (as signorini's joint
        frames) or box centre; and the final qpos and box centres."""
        self.reset()
        m, d = self.model, self.data
        moving = [b for b in range(1, m.nbody) if m.body_dofnum[b] > 0]  # signorini's joint frames, boxes
        contacts, joints, depth, lowest = [], [], [], []
        for k in range(steps):
            if k % self.piece == 0:
                self.apply(k // self.piece)
            mujoco.mj_step(m, d)
            contacts.append(d.ncon)
            joints.append(d.nf + d.nl)
            depth.append(max(0.0, -float(d.contact.dist[:d.ncon].min())) if d.ncon else 0.0)
            lowest.append(float(d.xpos[moving, 2].min()))
        n = len(self.d.get("boxes", []))
        boxes = d.xpos[m.nbody - n:].tolist() if n else []  # the boxes are the last bodies
        return {"contacts": contacts, "joint_constraints": joints, "penetration": depth, "lowest": lowest, "final_qpos": d.qpos.tolist(),
                "final_bodies": boxes}

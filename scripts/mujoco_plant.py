"""A robot simulated by MuJoCo from its URDF: the independent plant of the controller tests
and the reference of the simulator benchmarks.

MuJoCo compiles the URDF itself (its own importer, meshes by basename, fixed links kept as
bodies), adds a floating joint at the root for a legged robot, and simulates it with its
own contact model (soft constraints: feet sink millimetres under load, default solref and
solimp), its own integrator and Δt. Nothing here comes from signorini but the URDF.

    plant = build("quadruped", mass_scale=1.1, friction=0.8)
    plant.set_torques(tau)          # joint order of plant.joints (the controller's)
    mujoco.mj_step(plant.model, plant.data)
    plant.foot_forces()             # world force on each foot, from MuJoCo's contacts
"""

import dataclasses
import pathlib
import re

import mujoco
import numpy as np
import yaml

from gen_dynamics_fixtures import erd_share

ROOT = pathlib.Path(__file__).resolve().parents[1]


@dataclasses.dataclass
class Robot:
    """A robot the harness can simulate: its URDF, where `package://` resolves, whether it
    has a floating base, its posture (joint name → position), the links whose contact
    force is logged (feet; empty for an arm) and signorini's control configuration (None
    for solo12, whose URDF lives in site-packages: scripts/mujoco_control.py writes one)."""
    name: str
    urdf: pathlib.Path
    share: pathlib.Path | None
    floating: bool
    posture: dict
    feet: list
    config: pathlib.Path | None


def solo12_paths():
    share = erd_share()
    robots = share / "example-robot-data" / "robots" / "solo_description"
    return share, robots / "robots" / "solo12.urdf", robots / "srdf" / "solo.srdf"


def solo12_posture():
    """solo12's `standing` reference configuration from its SRDF (by Pinocchio)."""
    import pinocchio as pin
    _, urdf, srdf = solo12_paths()
    model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, str(srdf))
    q = model.referenceConfigurations["standing"]
    return {name: float(q[model.joints[j].idx_q]) for j, name in enumerate(model.names) if j >= 2}


def robot(name):
    """The robots of the harness: the bundled quadruped and arm, and solo12."""
    if name == "quadruped":
        config = ROOT / "config" / "quadruped_control.yaml"
        posture = {k: float(v) for k, v in yaml.safe_load(config.read_text())["robot"]["initial_posture"].items()}
        return Robot(name, ROOT / "urdf" / "quadruped.urdf", None, True, posture,
                     ["lf_foot", "lh_foot", "rf_foot", "rh_foot"], config)
    if name == "solo12":
        share, urdf, _ = solo12_paths()
        return Robot(name, urdf, share, True, solo12_posture(), ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"], None)
    if name == "arm7":
        config = ROOT / "config" / "arm7_control.yaml"
        posture = {k: float(v) for k, v in yaml.safe_load(config.read_text())["robot"]["initial_posture"].items()}
        return Robot(name, ROOT / "urdf" / "arm7.urdf", None, False, posture, [], config)
    raise ValueError(f"unknown robot {name!r} (quadruped, solo12 or arm7)")


ROBOTS = ["quadruped", "solo12", "arm7"]


def urdf_spec(urdf, share, floating):
    """MjSpec of a URDF (meshes by basename, as MuJoCo's importer wants them; two files of
    one basename, as talos's gripper/ and torso/base_link.STL, by parent_basename), with a
    floating joint at the root when `floating`."""
    text = urdf.read_text()
    mesh = re.compile(r'(<mesh\s[^>]*filename=")([^"]+)"')  # not plugins' files
    uris = sorted({m.group(2) for m in mesh.finditer(text)})
    paths = {u: (share / u.replace("package://", "")) if share else (urdf.parent / u) for u in uris}
    shared = {n for n in (p.name for p in paths.values()) if sum(q.name == n for q in paths.values()) > 1}
    names = {u: f"{p.parent.name}_{p.name}" if p.name in shared else p.name for u, p in paths.items()}
    assets = {names[u]: p.read_bytes() for u, p in paths.items()}
    text = mesh.sub(lambda m: f'{m.group(1)}{names[m.group(2)]}"', text)
    if floating:
        # The root: the link no joint has as its child (talos lists others before it).
        children = set(re.findall(r'<child\s+link="([^"]+)"', text))
        root = next(n for n in re.findall(r'<link\s+name="([^"]+)"', text) if n not in children)
        text = text.replace(
            "</robot>",
            f'<link name="world"/><joint name="floating_base" type="floating"><parent link="world"/>'
            f'<child link="{root}"/></joint></robot>')
    spec = mujoco.MjSpec.from_string(text, assets=assets)
    spec.compiler.fusestatic = False  # keep the feet (fixed links) as bodies of their own
    return spec


def on_ground(spec, dt):
    """`spec` at Δt `dt` with a ground plane (geom `ground`, z = 0) that the robot's geoms
    touch; they do not touch each other (solo12's hulls overlap at the joints)."""
    spec.option.timestep = dt  # the URDF importer's default is 2 ms
    ground = spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[5, 5, 0.1], contype=2, conaffinity=1)
    ground.name = "ground"
    for g in spec.geoms:
        if g.type != mujoco.mjtGeom.mjGEOM_PLANE:
            g.contype, g.conaffinity = 1, 2
    return spec


def minimum_jerk(s):
    """The quintic 10s³ − 15s⁴ + 6s⁵ of s clamped to [0, 1]: from 0 to 1 with zero velocity
    and acceleration at both ends (the references of the controller runs)."""
    s = min(max(s, 0.0), 1.0)
    return s ** 3 * (10 - 15 * s + 6 * s * s)


def out_and_back(t, duration):
    """0 before t = 0, a minimum-jerk move to 1 over `duration`, back to 0 over the next."""
    if t < 0:
        return 0.0
    return minimum_jerk(t / duration) - minimum_jerk(t / duration - 1.0)


def effort_limits(urdf):
    """Joint name → the URDF's effort limit (∞ where none)."""
    limits = {}
    for m in re.finditer(r'<joint\s+name="([^"]+)"[^>]*type="(revolute|continuous|prismatic)"(.*?)</joint>',
                         urdf.read_text(), re.S):
        effort = re.search(r'effort="([^"]+)"', m.group(3))
        value = float(effort.group(1)) if effort else 0.0
        limits[m.group(1)] = value if value > 0 else float("inf")
    return limits


class Plant:
    """A MuJoCo model and data of a robot with the controller's view of it: its joints (in
    the URDF's depth-first order, the controller's), their addresses, torques applied
    through qfrc_applied within the URDF effort limits, and the contact forces on the feet
    and on every other body."""

    def __init__(self, robot, model, data, effort):
        self.robot, self.model, self.data = robot, model, data
        self.joints = [model.joint(j).name for j in range(model.njnt) if int(model.jnt_type[j]) in
                       (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]
        self.qpos = np.array([model.joint(n).qposadr[0] for n in self.joints])
        self.qvel = np.array([model.joint(n).dofadr[0] for n in self.joints])
        self.effort = np.array([effort.get(n, float("inf")) for n in self.joints])
        self.base = 1 if robot.floating else None  # the root body (MuJoCo body 0 is the world)
        self.ground = model.geom("ground").id
        self.feet = [model.body(f).id for f in robot.feet]
        self.applied = np.zeros(len(self.joints))

    def set_torques(self, tau):
        """Joint torques (controller order) applied from the next step on, clamped to the
        URDF's effort limits as a drive would; returns what is applied."""
        self.applied = np.clip(np.asarray(tau, dtype=float), -self.effort, self.effort)
        self.data.qfrc_applied[:] = 0.0
        self.data.qfrc_applied[self.qvel] = self.applied
        return self.applied

    def joint_state(self):
        return self.data.qpos[self.qpos].copy(), self.data.qvel[self.qvel].copy()

    def base_state(self):
        """Base pose (position, quaternion x y z w in the world) and twist in the base frame
        (REP-105's odometry: linear and angular velocity in the child frame)."""
        d = self.data
        p, (w, x, y, z) = d.qpos[:3].copy(), d.qpos[3:7]
        rotation = d.xmat[self.base].reshape(3, 3)
        linear = rotation.T @ d.qvel[:3]  # MuJoCo's free joint: linear in the world,
        angular = d.qvel[3:6].copy()      # angular in the body frame
        return p, np.array([x, y, z, w]), linear, angular

    def contact_forces(self):
        """(per foot: the world force of the ground on it, summed over its contacts), and
        whether any body other than the feet touches the ground."""
        m, d = self.model, self.data
        feet = np.zeros((len(self.feet), 3))
        body_contact = False
        f6 = np.zeros(6)
        for i in range(d.ncon):
            c = d.contact[i]
            if c.efc_address < 0:  # in the margin, no constraint
                continue
            pair = (c.geom1, c.geom2)
            if self.ground not in pair:
                continue
            other = pair[1] if pair[0] == self.ground else pair[0]
            mujoco.mj_contactForce(m, d, i, f6)
            # The contact frame's rows: normal (geom1 → geom2), two tangents; the force acts
            # on geom2 along them (on geom1 opposite).
            force = c.frame.reshape(3, 3).T @ f6[:3]
            if other == pair[0]:
                force = -force
            body = m.geom_bodyid[other]
            if body in self.feet:
                feet[self.feet.index(body)] += force
            elif np.linalg.norm(force) > 0.0:
                body_contact = True
        return feet, body_contact

    def weight(self):
        return float(self.model.body_subtreemass[0] * -self.model.opt.gravity[2])


def build(name, *, dt=1e-3, mass_scale=1.0, mass_jitter=0.0, friction=None, seed=0, posture=None):
    """The robot `name` in MuJoCo at Δt `dt`: every body's mass and inertia scaled by
    `mass_scale` times a factor drawn uniformly in [1 − `mass_jitter`, 1 + `mass_jitter`]
    (`seed`), every geom's sliding friction set to `friction` (MuJoCo's default 1
    otherwise), at `posture` (the robot's own by default) with its lowest shape on a
    ground plane at z = 0 (a floating base)."""
    r = robot(name)
    spec = on_ground(urdf_spec(r.urdf, r.share, r.floating), dt)
    if friction is not None:
        for g in spec.geoms:
            g.friction[0] = friction
    model = spec.compile()
    rng = np.random.default_rng(seed)
    for b in range(1, model.nbody):
        factor = mass_scale * rng.uniform(1 - mass_jitter, 1 + mass_jitter)
        model.body_mass[b] *= factor
        model.body_inertia[b] *= factor
    mujoco.mj_setConst(model, mujoco.MjData(model))  # subtree masses after the change
    data = mujoco.MjData(model)
    plant = Plant(r, model, data, effort_limits(r.urdf))
    for joint, value in (posture or r.posture).items():
        data.qpos[model.joint(joint).qposadr[0]] = value
    if r.floating:
        place_on_ground(model, data)
    mujoco.mj_forward(model, data)
    return plant


def place_on_ground(model, data, height=0.0):
    """Moves a floating base vertically so that its lowest shape is `height` above the
    geom `ground` (signed distances; at 0 it touches)."""
    ground = model.geom("ground").id
    data.qpos[2] = 1.0
    mujoco.mj_forward(model, data)
    lowest = min(mujoco.mj_geomDistance(model, data, ground, g, 10.0, None) for g in range(model.ngeom) if g != ground)
    data.qpos[2] += height - lowest
    mujoco.mj_forward(model, data)

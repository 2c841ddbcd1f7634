"""A cable dragged over the ground (issue 28, item 2; seed 004's experiments): a URDF chain
of N beads behind a sled, and the drive both simulators share (examples/sim_dynamic.rs's
format, scripts/dynamic_scenes.py's MuJoCo side).

The chain, from the fixed root `anchor` (at the world origin):
  - `drag`: a prismatic joint along x, its origin at the beads' height (z = RADIUS), moving
    the `sled` (SLED_MASS, no collision shape): the cable's end, driven by the joint PD
    (DRAG_KP, DRAG_KD) to x_ref(t) = SPEED·t (the reference changes every step). A
    floating end could not be dragged by a joint PD: the sled stays at its height.
  - per bead i: a revolute `pitch_i` (axis y) into a `knuckle_i` (KNUCKLE_MASS at the
    joint: MuJoCo wants a mass on every moving body), a revolute `yaw_i` (axis z) into
    `bead_i`: a sphere of RADIUS and BEAD_MASS (solid-sphere inertia) whose centre is
    SPACING/2 behind its joint along −x; the next joint SPACING behind. Both joints have
    viscous damping DAMPING (N·m·s/rad; URDF `<dynamics damping>`, implicit in both
    simulators) and limits ±LIMIT rad.
So the cable trails behind the sled along −x, a rope of beads of diameter 2 cm touching each
other (no self-collision in either simulator), 11 g and 2 cm per bead (0.55 kg/m), lying
on the ground (the bead centres at z = RADIUS). Its initial shape is a gentle wave: the
heading along the cable θ(s) = WAVE·sin(2π s / WAVELENGTH) at arc length s, so the yaw
joints start at the heading's change from bead to bead and the drag bends and slides it.
μ = MU between the beads and the ground (no rolling friction: beads on hinges do not roll
freely, their joints hold them).

    python scripts/cable.py 30 > cable30.urdf
"""

import math
import sys
import time

import numpy as np

RADIUS, SPACING = 0.01, 0.02  # m
BEAD_MASS, KNUCKLE_MASS, SLED_MASS = 0.010, 0.001, 1.0  # kg
DAMPING, LIMIT = 1e-4, 2.0
SPEED = 0.3  # m/s
DRAG_KP, DRAG_KD = 1e4, 200.0  # N/m, N·s/m: critically damped on the 1 kg sled
MU = 0.6
WAVE, WAVELENGTH = 0.3, 0.5  # rad, m
DT = 1e-3


def _inertial(mass, inertia, x=0.0):
    return (f'<inertial><origin xyz="{x!r} 0 0"/><mass value="{mass!r}"/>'
            f'<inertia ixx="{inertia!r}" iyy="{inertia!r}" izz="{inertia!r}" ixy="0" ixz="0" iyz="0"/></inertial>')


def _revolute(name, parent, child, axis, x):
    return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{x!r} 0 0"/><axis xyz="{axis}"/>'
            f'<limit lower="{-LIMIT!r}" upper="{LIMIT!r}" effort="1" velocity="100"/>'
            f'<dynamics damping="{DAMPING!r}"/></joint>')


def urdf(n):
    """The URDF of a cable of `n` beads behind the sled (see the module doc)."""
    bead_inertia = 0.4 * BEAD_MASS * RADIUS ** 2
    knuckle_inertia = 0.4 * KNUCKLE_MASS * (0.2 * RADIUS) ** 2
    parts = [f'<robot name="cable{n}"><link name="anchor"/>',
             f'<link name="sled">{_inertial(SLED_MASS, 1e-3)}</link>',
             f'<joint name="drag" type="prismatic"><parent link="anchor"/><child link="sled"/>'
             f'<origin xyz="0 0 {RADIUS!r}"/><axis xyz="1 0 0"/>'
             f'<limit lower="-10" upper="10" effort="1000" velocity="100"/></joint>']
    parent = "sled"
    for i in range(n):
        x = 0.0 if i == 0 else -SPACING
        parts += [f'<link name="knuckle_{i}">{_inertial(KNUCKLE_MASS, knuckle_inertia)}</link>',
                  _revolute(f"pitch_{i}", parent, f"knuckle_{i}", "0 1 0", x),
                  f'<link name="bead_{i}">{_inertial(BEAD_MASS, bead_inertia, -SPACING / 2)}'
                  f'<collision><origin xyz="{-SPACING / 2!r} 0 0"/><geometry><sphere radius="{RADIUS!r}"/>'
                  f'</geometry></collision></link>',
                  _revolute(f"yaw_{i}", f"knuckle_{i}", f"bead_{i}", "0 0 1", 0.0)]
        parent = f"bead_{i}"
    return "".join(parts) + "</robot>\n"


def initial(n):
    """The yaw joints' initial positions: the wave's heading change from bead to bead
    (the first bead's joint turns from the sled's axis to the heading at s = 0)."""
    heading = [WAVE * math.sin(2 * math.pi * i * SPACING / WAVELENGTH) for i in range(n)]
    return {f"yaw_{i}": heading[i] - (heading[i - 1] if i else 0.0) for i in range(n)}


def drive(n, steps):
    """The drive of examples/sim_dynamic.rs (and dynamic_scenes.MujocoScene): the sled's PD
    reference SPEED·t per step, the initial wave; μ MU on the ground."""
    return {"piece": 1, "joints": ["drag"], "kp": [DRAG_KP], "kd": [DRAG_KD],
            "reference": [[SPEED * (k + 1) * DT] for k in range(steps)], "initial": initial(n),
            "ground_friction": MU}


if __name__ == "__main__":
    sys.stdout.write(urdf(int(sys.argv[1]) if len(sys.argv) > 1 else 30))


class MujocoCable:
    """The cable of `n` beads in MuJoCo from the same URDF (its own importer; scripts/
    mujoco_plant.py's ground: the beads touch the ground, not each other), every geom's
    friction μ MU (sliding; MuJoCo's default torsional and rolling coefficients), a position
    actuator on `drag` (kp DRAG_KP, kv DRAG_KD, force range ±1000 N: the URDF's effort) fed
    the drive's reference each step, the yaw joints at the drive's initial wave."""

    def __init__(self, n, d):
        import mujoco
        import mujoco_plant
        self.mujoco = mujoco
        spec = mujoco_plant.on_ground(mujoco.MjSpec.from_string(urdf(n)), DT)
        spec.compiler.fusestatic = False
        for g in spec.geoms:
            g.friction = [MU, g.friction[1], g.friction[2]]
        a = spec.add_actuator(name="drag", target="drag", trntype=mujoco.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=DRAG_KP, kv=DRAG_KD)
        a.forcelimited, a.forcerange = True, [-1000.0, 1000.0]
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        for j, v in d["initial"].items():
            self.data.qpos[self.model.joint(j).qposadr[0]] = v
        mujoco.mj_forward(self.model, self.data)
        self.state0 = self.data.qpos.copy()
        self.reference = [r[0] for r in d["reference"]]
        self.drag = self.model.joint("drag").qposadr[0]

    def run(self, steps, budget=math.inf):
        """µs per mj_step (the control set before, untimed) and per step: contacts, the
        deepest penetration (m), the lowest bead centre (m); the sled's final x. Stops
        after `budget` seconds of wall time."""
        mujoco, m, d = self.mujoco, self.model, self.data
        mujoco.mj_resetData(m, d)
        d.qpos[:] = self.state0
        mujoco.mj_forward(m, d)
        beads = [b for b in range(m.nbody) if m.body(b).name.startswith("bead_")]
        times, contacts, depth, lowest = [], [], [], []
        start = time.perf_counter()
        for k in range(steps):
            if time.perf_counter() - start > budget:
                break
            d.ctrl[0] = self.reference[min(k, len(self.reference) - 1)]
            t0 = time.perf_counter()
            mujoco.mj_step(m, d)
            times.append((time.perf_counter() - t0) * 1e6)
            contacts.append(d.ncon)
            depth.append(max(0.0, -float(d.contact.dist[:d.ncon].min())) if d.ncon else 0.0)
            # The bead centres (the sphere geoms), as signorini's lowest frame is checked below.
            lowest.append(float(d.geom_xpos[m.body_geomadr[beads], 2].min()))
        return {"steps": steps, "step_us": times, "contacts": contacts, "penetration": depth, "lowest": lowest,
                "drag": float(d.qpos[self.drag]), "finite": bool(np.isfinite(d.qpos).all())}

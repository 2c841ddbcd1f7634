"""Gymnasium environments over signorini worlds (needs ``gymnasium``: ``pip install
signorini[gym]``; ``import signorini`` does not).

``QuadrupedEnv``: the bundled 12-joint quadruped (config/quadruped.yaml of the repository)
standing, or walking forward at a commanded speed. Registered as ``signorini/Quadruped-v0``
when this module is imported (``gymnasium.make("signorini.envs:signorini/Quadruped-v0")``
imports it for you).

Observation (35 values, float64): base height (m), base orientation quaternion (x y z w),
base twist in the base frame (linear m/s, angular rad/s; Pinocchio's free-flyer velocity),
the 12 joint positions (rad) and velocities (rad/s), in the configuration's joint order.

Action (12 values, physical units): ``action="torque"``, the joint torques (N·m) within the
URDF effort limits; ``action="pd"``, joint position targets (rad) within the URDF limits,
tracked by a joint PD (``kp``, ``kd``) recomputed every simulation step. One environment
step is ``frame_skip`` simulation steps (10 ms at the defaults).

Reward per step (documented in ``QuadrupedEnv.reward``): alive bonus, tracking of the
commanded forward speed (0: standing), penalties for the height error, the tilt and the
torques. The episode terminates when the base falls below ``fall_height`` or tilts past
``max_tilt``; the registered environment truncates it after 1000 steps (10 s).
"""

from __future__ import annotations

import pathlib
from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

import signorini as sg

ENV_ID = "signorini/Quadruped-v0"
# Environment steps per episode in the registered environment (10 s at 100 Hz).
MAX_EPISODE_STEPS = 1000
# The floating base's coordinates in q (x y z qx qy qz qw) and v (linear, angular).
BASE_NQ, BASE_NV = 7, 6


def bundled_config() -> pathlib.Path:
    """config/quadruped.yaml of the repository this package is installed from (an editable
    install: python/signorini/ is in the repository); FileNotFoundError otherwise."""
    path = pathlib.Path(__file__).resolve().parents[2] / "config" / "quadruped.yaml"
    if not path.is_file():
        raise FileNotFoundError(
            f"QuadrupedEnv: the bundled configuration is not at {path}: it ships with the signorini "
            "repository, not with the wheel; install the package from the repository (make python) "
            "or pass config='path/to/quadruped.yaml'"
        )
    return path


class QuadrupedEnv(gymnasium.Env):
    """The bundled quadruped, standing or following a forward speed (module docstring)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        config: Union[str, pathlib.Path, None] = None,
        action: str = "torque",
        target_velocity: float = 0.0,
        frame_skip: int = 10,
        kp: float = 200.0,
        kd: float = 5.0,
        reset_noise: float = 0.02,
        fall_height: float = 0.2,
        max_tilt: float = 0.8,
    ) -> None:
        """``config``: a signorini configuration of a floating-base robot with revolute
        joints (default: the bundled quadruped). ``kp``, ``kd``: the PD of ``action="pd"``
        (N·m/rad, N·m·s/rad; config/quadruped.yaml's hold gains). ``reset_noise``: half-width
        of the uniform noise on the joint positions (rad) and velocities (rad/s) at reset.
        ``fall_height`` (m), ``max_tilt`` (rad): the termination limits."""
        if action not in ("torque", "pd"):
            raise ValueError(f"action: {action!r}, expected 'torque' or 'pd'")
        if frame_skip < 1:
            raise ValueError(f"frame_skip: {frame_skip}, expected at least 1")
        self.world = sg.World.from_config(config if config is not None else bundled_config())
        model = self.world.model
        nu = self.world.nu
        if not model.has_floating_base or (model.nq, model.nv) != (BASE_NQ + nu, BASE_NV + nu):
            raise ValueError("QuadrupedEnv: expected a floating-base robot whose controlled joints are its revolute joints")
        self.action_kind, self.target_velocity, self.frame_skip = action, float(target_velocity), int(frame_skip)
        self.kp, self.kd, self.reset_noise = float(kp), float(kd), float(reset_noise)
        self.fall_height, self.min_up = float(fall_height), float(np.cos(max_tilt))
        # Each control's joint: its q and v index past the floating base.
        offsets = [model.joint_names.index(n) - 2 for n in self.world.control_names]
        self.iq = np.array(offsets) + BASE_NQ
        self.iv = np.array(offsets) + BASE_NV
        self.effort = model.effort_limit[self.iv]
        self.lower, self.upper = model.lower_position_limit[self.iq], model.upper_position_limit[self.iq]
        self.stand_height = float(self.world.q[2])
        self.standing = self.world.q[self.iq].copy()
        if action == "torque":
            self.action_space = spaces.Box(-self.effort, self.effort, dtype=np.float64)
        else:
            self.action_space = spaces.Box(self.lower, self.upper, dtype=np.float64)
        size = 1 + 4 + 6 + 2 * nu
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float64)

    def observation(self) -> np.ndarray:
        """Base height, quaternion, base-frame twist, joint positions, joint velocities."""
        q, v = self.world.q, self.world.v
        return np.concatenate([q[2:3], q[3:7], v[:6], q[self.iq], v[self.iv]])

    def up(self) -> float:
        """The world z component of the base's z axis (1 upright, from the quaternion)."""
        x, y = self.world.q[3], self.world.q[4]
        return 1.0 - 2.0 * (x * x + y * y)

    def reward(self, tau: np.ndarray) -> float:
        """1 (alive) + exp(−((v_x − v_cmd)² + v_y²)/0.25) − 10 (z − z₀)² − 0.5 (1 − up_z)
        − 1e-5 ‖τ‖²: v in the base frame (m/s), z₀ the initial base height (m), up_z the
        base z axis's vertical component, τ the last step's torques (N·m)."""
        v = self.world.v
        tracking = np.exp(-((v[0] - self.target_velocity) ** 2 + v[1] ** 2) / 0.25)
        height = 10.0 * (self.world.q[2] - self.stand_height) ** 2
        tilt = 0.5 * (1.0 - self.up())
        return float(1.0 + tracking - height - tilt - 1e-5 * float(tau @ tau))

    def torques(self, action: np.ndarray) -> np.ndarray:
        """The joint torques of `action` at the current state, within the effort limits."""
        if self.action_kind == "torque":
            tau = action
        else:
            q, v = self.world.q, self.world.v
            tau = self.kp * (action - q[self.iq]) - self.kd * v[self.iv]
        return np.clip(tau, -self.effort, self.effort)

    def step(self, action):
        action = np.asarray(action, dtype=np.float64)
        tau = self.torques(action)
        try:
            if self.action_kind == "torque":
                self.world.step(tau, nstep=self.frame_skip)
            else:
                for k in range(self.frame_skip):
                    tau = self.torques(action) if k else tau
                    self.world.step(tau)
        except sg.Error as e:
            # The state stopped being finite (restored to the step before): the episode ends.
            return self.observation(), 0.0, True, False, {"time": self.world.time, "error": str(e)}
        fallen = self.world.q[2] < self.fall_height or self.up() < self.min_up
        info = {"time": self.world.time, "contacts": len(self.world.contacts())}
        return self.observation(), self.reward(tau), bool(fallen), False, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        """The configured initial state with uniform noise of ±reset_noise on the joint
        positions (within their limits) and velocities, from the environment's generator
        (seeded by `seed`)."""
        super().reset(seed=seed)
        self.world.reset()
        q, v = self.world.q, self.world.v
        n = len(self.iq)
        noise = self.np_random.uniform(-self.reset_noise, self.reset_noise, size=(2, n))
        q[self.iq] = np.clip(q[self.iq] + noise[0], self.lower, self.upper)
        v[self.iv] += noise[1]
        self.world.q, self.world.v = q, v
        return self.observation(), {"time": self.world.time}

    def close(self) -> None:
        self.world.close()


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="signorini.envs:QuadrupedEnv", max_episode_steps=MAX_EPISODE_STEPS)

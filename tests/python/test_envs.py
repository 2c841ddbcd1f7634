"""The Gymnasium environment of the bundled quadruped (signorini.envs): Gymnasium's own API
checker for both action kinds, determinism under a seed, and a PD episode that stands."""

import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import signorini as sg
from signorini.envs import ENV_ID, QuadrupedEnv


@pytest.mark.parametrize("action", ["torque", "pd"])
def test_gymnasium_checker_passes(action):
    env = gymnasium.make(ENV_ID, action=action)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (35,) and env.action_space.shape == (12,)
    env.close()


def rollout(seed, steps=100):
    """Observations and rewards of `steps` random torque actions after reset(seed)."""
    env = QuadrupedEnv(action="torque")
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    observations, rewards = [obs], []
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample() * 0.2)
        observations.append(obs)
        rewards.append(reward)
        if terminated:
            break
    env.close()
    return np.array(observations), np.array(rewards)


def test_the_same_seed_gives_the_same_trajectory():
    a, ra = rollout(seed=11)
    b, rb = rollout(seed=11)
    c, _ = rollout(seed=12)
    assert np.array_equal(a, b) and np.array_equal(ra, rb)
    # The seed randomizes the initial state: another seed starts elsewhere.
    assert not np.array_equal(a[0], c[0])


def test_a_pd_episode_at_the_standing_posture_stands_for_two_seconds():
    env = gymnasium.make(ENV_ID, action="pd")
    base = env.unwrapped
    obs, _ = env.reset(seed=3)
    steps = round(2.0 / (base.frame_skip * base.world.dt))
    heights = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(base.standing)
        assert not terminated and not truncated, info
        heights.append(obs[0])
    assert base.world.time == pytest.approx(2.0)
    # Within 1 cm of the initial height (the feet start ~1 cm above the ground), upright.
    assert abs(heights[-1] - base.stand_height) < 0.02 and base.up() > 0.999
    assert reward > 1.9  # alive + tracking at rest, small penalties
    env.close()


def test_the_registered_environment_truncates_and_the_config_is_found():
    env = gymnasium.make(ENV_ID)
    assert env.spec.max_episode_steps == 1000
    assert env.unwrapped.world.model.name == "quadruped"
    with pytest.raises(ValueError, match="action: 'velocity'"):
        QuadrupedEnv(action="velocity")


def test_import_signorini_needs_no_gymnasium():
    """`import signorini` with gymnasium made unimportable works; signorini.envs says why."""
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "import signorini\n"
        "try:\n    import signorini.envs\nexcept ImportError:\n    print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "ok", out.stderr
    assert sg.World is not None

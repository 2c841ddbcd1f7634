"""Rollouts past one process: the Ray example on a local Ray cluster and the
multiprocessing example give exactly the states of one `signorini.rollout` in this process
(examples/python/rollouts_ray.py, rollouts_multiprocessing.py)."""

import os
import sys

import numpy as np
import pytest

import signorini as sg
from conftest import ROOT

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves the machine
EXAMPLES = ROOT / "examples" / "python"
sys.path.insert(0, str(EXAMPLES))
CONFIG = ROOT / "config" / "quadruped.yaml"
ROWS, STEPS = 6, 40


@pytest.fixture(scope="module")
def problem():
    """Initial states and random torques for ROWS rollouts, and their states in one process."""
    batch = sg.Batch(CONFIG, ROWS)
    initial = batch.get_state()
    rng = np.random.default_rng(5)
    initial[:, 3] += rng.uniform(0.0, 0.05, ROWS)  # each row from its own base height
    control = rng.normal(scale=3.0, size=(ROWS, STEPS, batch.nu))
    return initial, control, sg.rollout(batch, initial, control)


def test_multiprocessing_equals_one_process(problem):
    import rollouts_multiprocessing

    initial, control, expected = problem
    states = rollouts_multiprocessing.pooled_rollout(CONFIG, initial, control, processes=2)
    assert states.shape == expected.shape
    assert np.array_equal(states, expected)


def test_ray_local_cluster_equals_one_process(problem):
    import ray
    import rollouts_ray

    initial, control, expected = problem
    # The workers import the package and the example as this process does.
    path = os.pathsep.join(p for p in [str(EXAMPLES), os.environ.get("SIGNORINI_PYTHON_PATH", ""), os.environ.get("PYTHONPATH", "")] if p)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        states = rollouts_ray.distributed_rollout(CONFIG, initial, control, actors=2)
    finally:
        ray.shutdown()
    assert states.shape == expected.shape
    assert np.array_equal(states, expected)

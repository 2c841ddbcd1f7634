"""Rollouts spread over processes or machines with Ray.

Each Ray actor holds one `signorini.Batch` (its worlds stepped on the actor's cores, the GIL
released); the rows of (initial_state, control) are cut into chunks that go to the actors,
and the states come back in order. The result equals one `signorini.rollout` over all rows in
one process, bit for bit: every world is independent and deterministic.

  scripts/with_ros.sh python examples/python/rollouts_ray.py                  # a local cluster
  scripts/with_ros.sh python examples/python/rollouts_ray.py --address auto   # a running one
  (on each machine of a cluster: `pip install .` of this repository, and the same config path)
"""

import argparse
import time

import numpy as np
import ray

import signorini


@ray.remote
class Roller:
    """One Batch of `worlds` copies of the configured world, on `threads` cores."""

    def __init__(self, config: str, worlds: int, threads: int):
        self.batch = signorini.Batch(config, worlds, num_threads=threads)

    def rollout(self, initial_state: np.ndarray, control: np.ndarray) -> np.ndarray:
        """The states after each step of each row, as `signorini.rollout`."""
        return signorini.rollout(self.batch, initial_state, control)


def distributed_rollout(config, initial_state, control, actors: int, threads: int = 1):
    """`signorini.rollout` of every row of `initial_state` (N, nstate) under `control`
    (N, T, nu), cut into `actors` chunks, each rolled out by its own Ray actor."""
    chunks = np.array_split(np.arange(len(initial_state)), actors)
    size = max(len(c) for c in chunks)
    rollers = [Roller.remote(str(config), size, threads) for _ in chunks]
    futures = [
        r.rollout.remote(_pad(initial_state[c], size), _pad(control[c], size)) for r, c in zip(rollers, chunks)
    ]
    states = [s[: len(c)] for s, c in zip(ray.get(futures), chunks)]
    return np.concatenate(states)


def _pad(rows: np.ndarray, size: int) -> np.ndarray:
    """`rows` repeated at the end up to `size` rows (a Batch has a fixed number of worlds;
    the extra rows are computed and dropped)."""
    if len(rows) == size:
        return np.ascontiguousarray(rows)
    return np.ascontiguousarray(np.concatenate([rows, np.repeat(rows[-1:], size - len(rows), axis=0)]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="config/quadruped.yaml")
    parser.add_argument("--address", default=None, help="a running cluster (auto), or a local one")
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--actors", type=int, default=2)
    args = parser.parse_args()
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    batch = signorini.Batch(args.config, args.rows)
    rng = np.random.default_rng(0)
    initial = batch.get_state()
    control = rng.normal(scale=2.0, size=(args.rows, args.steps, batch.nu))
    start = time.perf_counter()
    states = distributed_rollout(args.config, initial, control, args.actors)
    wall = time.perf_counter() - start
    print(f"{args.rows} rollouts of {args.steps} steps on {args.actors} actors: {wall:.2f} s, "
          f"{args.rows * args.steps / wall:,.0f} steps/s (actor start-up included)")
    print("same as one process:", np.array_equal(states, signorini.rollout(batch, initial, control)))
    ray.shutdown()


if __name__ == "__main__":
    main()

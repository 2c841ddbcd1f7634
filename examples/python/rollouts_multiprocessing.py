"""Rollouts spread over processes with the standard library alone (no Ray).

Each worker process builds one `signorini.Batch` once (the pool's initializer) and rolls out
the chunks of rows it is given; the result equals one `signorini.rollout` in one process.
Threads already use every core of one machine (`Batch(..., num_threads=...)`); processes are
for more than one interpreter's worth of Python around the steps (a policy per worker).

  scripts/with_ros.sh python examples/python/rollouts_multiprocessing.py
"""

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import signorini

_batch = None  # the worker's Batch


def _start(config: str, worlds: int, threads: int):
    global _batch
    _batch = signorini.Batch(config, worlds, num_threads=threads)


def _roll(initial_state: np.ndarray, control: np.ndarray) -> np.ndarray:
    return signorini.rollout(_batch, initial_state, control)


def pooled_rollout(config, initial_state, control, processes: int, threads: int = 1):
    """`signorini.rollout` of every row, cut into `processes` chunks of equal size (the last
    padded with copies of its last row, dropped afterwards)."""
    chunks = np.array_split(np.arange(len(initial_state)), processes)
    size = max(len(c) for c in chunks)

    def pad(rows):
        extra = size - len(rows)
        return np.ascontiguousarray(np.concatenate([rows, np.repeat(rows[-1:], extra, axis=0)]) if extra else rows)

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context, initializer=_start, initargs=(str(config), size, threads)) as pool:
        futures = [pool.submit(_roll, pad(initial_state[c]), pad(control[c])) for c in chunks]
        return np.concatenate([f.result()[: len(c)] for f, c in zip(futures, chunks)])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="config/quadruped.yaml")
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    batch = signorini.Batch(args.config, args.rows)
    rng = np.random.default_rng(0)
    initial = batch.get_state()
    control = rng.normal(scale=2.0, size=(args.rows, args.steps, batch.nu))
    start = time.perf_counter()
    states = pooled_rollout(args.config, initial, control, args.processes)
    wall = time.perf_counter() - start
    print(f"{args.rows} rollouts of {args.steps} steps on {args.processes} processes: {wall:.2f} s, "
          f"{args.rows * args.steps / wall:,.0f} steps/s (process start-up included)")
    print("same as one process:", np.array_equal(states, signorini.rollout(batch, initial, control)))


if __name__ == "__main__":
    main()

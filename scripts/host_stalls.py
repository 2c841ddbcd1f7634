#!/usr/bin/env python3
"""Stalls this host the way a shared VM's stolen time does, to reproduce CI's timing
failures on a quiet machine: on every CPU, a SCHED_FIFO 90 thread (root or CAP_SYS_NICE)
spins for about `--stall-ms` (0.5-1.5x, uniform) at random intervals (exponential, mean
`--gap-ms`), holding off every thread of lower priority there, the node's loop at
`realtime.priority` 50 included.

  sudo python3 scripts/host_stalls.py --stall-ms 4 --gap-ms 50 --seconds 30 &
  target/release/signorini loop --config config/quadruped_sim_control.yaml --duration 20 --empty
"""

import argparse
import math
import os
import random
import threading
import time


def stall_cpu(cpu, args):
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(90))
    rng = random.Random(cpu)
    end = time.monotonic() + args.seconds
    count = 0
    while time.monotonic() < end:
        time.sleep(rng.expovariate(1e3 / args.gap_ms))
        until = time.monotonic() + 1e-3 * args.stall_ms * rng.uniform(0.5, 1.5)
        while time.monotonic() < until:
            pass
        count += 1
    print(f"host_stalls: CPU {cpu}: {count} stalls", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stall-ms", type=float, default=4.0)
    parser.add_argument("--gap-ms", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    for name in ("stall_ms", "gap_ms", "seconds"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            parser.error(f"--{name.replace('_', '-')}: expected a positive number, got {value}")
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(90))
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except PermissionError:
        parser.error("SCHED_FIFO refused: run as root or with CAP_SYS_NICE")
    threads = [threading.Thread(target=stall_cpu, args=(cpu, args)) for cpu in sorted(os.sched_getaffinity(0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()

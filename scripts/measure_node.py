#!/usr/bin/env python3
"""Measure the node's loop timing as a user sees it: the node runs CONFIG for DURATION
seconds while an rclpy subscriber (the independent peer) consumes /joint_states and
/clock; then SIGINT, and the node's whole-run statistics are printed next to the rate
rclpy received.

  scripts/with_ros.sh python scripts/measure_node.py [--config config/quadruped.yaml] [--duration 60]
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(1, 100)))

import rclpy  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config/quadruped.yaml")
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "signorini"))
    args = parser.parse_args()

    node = subprocess.Popen([args.binary, "node", "--config", args.config], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines = []
    threading.Thread(target=lambda: [lines.append(l.rstrip()) for l in node.stdout], daemon=True).start()

    rclpy.init()
    peer = rclpy.create_node("signorini_measure")
    counts = {"joint_states": 0, "clock": 0}
    qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)

    def bump(key):
        def on(_msg):
            counts[key] += 1
        return on

    peer.create_subscription(JointState, "/joint_states", bump("joint_states"), qos)
    peer.create_subscription(Clock, "/clock", bump("clock"), qos)
    executor = SingleThreadedExecutor()
    executor.add_node(peer)
    threading.Thread(target=executor.spin, daemon=True).start()

    deadline = time.monotonic() + 30
    while counts["joint_states"] == 0:
        if time.monotonic() > deadline or node.poll() is not None:
            sys.exit("no /joint_states from the node:\n" + "\n".join(lines))
        time.sleep(0.05)
    counts.update(joint_states=0, clock=0)
    start = time.monotonic()
    time.sleep(args.duration)
    received = dict(counts)
    elapsed = time.monotonic() - start
    node.send_signal(signal.SIGINT)
    node.wait(10)
    time.sleep(0.2)
    executor.shutdown()
    rclpy.try_shutdown()

    summary = [l for l in lines if l.startswith("signorini: stopped")]
    print(f"config {args.config}, {args.duration:.0f} s, {os.cpu_count()} CPUs")
    print(summary[0] if summary else "\n".join(lines[-5:]))
    print(f"rclpy received /joint_states at {received['joint_states'] / elapsed:.1f} Hz, "
          f"/clock at {received['clock'] / elapsed:.1f} Hz")
    return 0 if node.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

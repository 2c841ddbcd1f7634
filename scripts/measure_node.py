#!/usr/bin/env python3
"""Measure the node's loop timing as a user sees it: the node runs CONFIG for DURATION
seconds while an rclpy subscriber (the independent peer) consumes /joint_states and
/clock (and the effort commands); then SIGINT, and the node's whole-run statistics are
printed next to the rates rclpy received. A controller (`mode: control`) is measured
next to a simulator node (`--with-sim`) that feeds it states, as it runs next to a robot.

  scripts/with_ros.sh python scripts/measure_node.py [--config config/quadruped.yaml] [--duration 60]
  scripts/with_ros.sh python scripts/measure_node.py --config config/arm7_control.yaml --rate 4000 \
      --with-sim config/arm7.yaml
"""

import argparse
import os
import re
import tempfile
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
from std_msgs.msg import Float64MultiArray  # noqa: E402


def launch_node(binary, config, *extra):
    """The node on `config` (its output collected in the returned list)."""
    node = subprocess.Popen([binary, "node", "--config", str(config), *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines = []
    threading.Thread(target=lambda: [lines.append(l.rstrip()) for l in node.stdout], daemon=True).start()
    return node, lines


def with_rate(config, rate):
    """A copy of `config` (absolute paths) at `rate` Hz, or `config` itself."""
    if rate is None:
        return config
    path = (ROOT / config).resolve()
    text = path.read_text().replace("urdf: ../", f"urdf: {path.parent.parent}/")
    text = re.sub(r"(?m)^rate_hz: .*$", f"rate_hz: {rate}", text)
    out = Path(tempfile.mkdtemp(prefix="signorini-measure-")) / path.name
    out.write_text(text)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="config/quadruped.yaml")
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "signorini"))
    parser.add_argument("--rate", type=float, help="override the configuration's rate_hz")
    parser.add_argument("--with-sim", help="also run a simulator node on this configuration (to feed a controller)")
    parser.add_argument("--verbose", action="store_true", help="also print the node's status line of every second")
    args = parser.parse_args()

    sim = launch_node(args.binary, args.with_sim) if args.with_sim else None
    extra = ["--ros-args", "-r", "__node:=signorini_controller"] if args.with_sim else []
    node, lines = launch_node(args.binary, with_rate(args.config, args.rate), *extra)

    rclpy.init()
    peer = rclpy.create_node("signorini_measure")
    counts = {"joint_states": 0, "clock": 0, "commands": 0}
    qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)

    def bump(key):
        def on(_msg):
            counts[key] += 1
        return on

    peer.create_subscription(JointState, "/joint_states", bump("joint_states"), qos)
    peer.create_subscription(Clock, "/clock", bump("clock"), qos)
    peer.create_subscription(Float64MultiArray, "/effort_controller/commands", bump("commands"), qos)
    executor = SingleThreadedExecutor()
    executor.add_node(peer)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()

    deadline = time.monotonic() + 30
    while counts["joint_states"] == 0:
        if time.monotonic() > deadline or node.poll() is not None:
            sys.exit("no /joint_states from the node:\n" + "\n".join(lines))
        time.sleep(0.05)
    counts.update(joint_states=0, clock=0, commands=0)
    start = time.monotonic()
    time.sleep(args.duration)
    received = dict(counts)
    elapsed = time.monotonic() - start
    node.send_signal(signal.SIGINT)
    node.wait(10)
    if sim:
        sim[0].send_signal(signal.SIGINT)
        sim[0].wait(10)
    time.sleep(0.2)
    executor.shutdown()
    spinner.join(5)
    rclpy.try_shutdown()

    summary = [l for l in lines if l.startswith("signorini: stopped")]
    rate = f" at {args.rate:.0f} Hz" if args.rate else ""
    beside = f", next to a simulator on {args.with_sim}" if args.with_sim else ""
    print(f"config {args.config}{rate}{beside}, {args.duration:.0f} s, {os.cpu_count()} CPUs")
    if args.verbose:
        print("\n".join(l for l in lines if l.startswith("rate ")))
    print(summary[0] if summary else "\n".join(lines[-5:]))
    print(f"rclpy received /joint_states at {received['joint_states'] / elapsed:.1f} Hz, "
          f"/clock at {received['clock'] / elapsed:.1f} Hz, commands at {received['commands'] / elapsed:.1f} Hz")
    return 0 if node.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

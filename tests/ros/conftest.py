"""Fixtures for the interop tests: the signorini node as a real process, and an rclpy node
(the independent peer) spinning in a background thread.

Environment: run through scripts/with_ros.sh (make test does). SIGNORINI_BIN names the
binary (default target/release/signorini). Each pytest session uses its own ROS_DOMAIN_ID
so that concurrent runs on one machine do not hear each other.
"""

import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(1, 100)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402  (after the environment is set)
from rclpy.executors import SingleThreadedExecutor  # noqa: E402


def binary():
    return os.environ.get("SIGNORINI_BIN", str(ROOT / "target" / "release" / "signorini"))


class NodeProcess:
    """The signorini binary in its own process, with its stdout collected by a thread."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [binary(), *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self):
        return "\n".join(self.lines)

    def wait_for_line(self, prefix, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(line.startswith(prefix) for line in self.lines):
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"node exited with {self.proc.returncode}:\n{self.output()}")
            time.sleep(0.05)
        raise AssertionError(f"no line starting with {prefix!r} within {timeout} s:\n{self.output()}")

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=10.0):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=2)
        return self.proc.returncode


@pytest.fixture(scope="session")
def ros():
    """An rclpy context and node, spun by an executor thread."""
    rclpy.init()
    node = rclpy.create_node("signorini_interop_test")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    thread = threading.Thread(target=executor.spin, daemon=True)
    thread.start()
    yield node
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()


@pytest.fixture(scope="module")
def quadruped_node():
    """The node running the bundled quadruped configuration."""
    node = NodeProcess("node", "--config", "config/quadruped.yaml")
    node.wait_for_line("signorini: quadruped")
    yield node
    code = node.stop()
    assert code == 0, f"exit code {code}:\n{node.output()}"


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")

"""Fixtures for the interop tests: the signorini node as a real process, and an rclpy node
(the independent peer) spinning in a background thread.

Environment: run through scripts/with_ros.sh (make test does). SIGNORINI_BIN names the
binary (default target/release/signorini). Each pytest session uses its own ROS_DOMAIN_ID
so that concurrent runs on one machine do not hear each other.

Every node a test starts through NodeProcess is checked once it has ended (after each test,
and at the end of each module for nodes a module fixture owns): the line it prints at exit,
`signorini: loop allocations after start-up: N`, must say 0 (the binary's counting allocator
counts the loop thread's heap allocations after its first tick). A node that never runs its
loop (a start-up error) says so with NodeProcess.without_loop(why), and must then print no
such line.
"""

import os
import random
import re
import signal
import struct
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
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402


def binary():
    return os.environ.get("SIGNORINI_BIN", str(ROOT / "target" / "release" / "signorini"))


ALLOCATIONS_LINE = "signorini: loop allocations after start-up: "


class NodeProcess:
    """The signorini binary in its own process, with its stdout collected by a thread."""

    # Every node of the session, for the loop-allocation check at teardown.
    started = []

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
        self.no_loop_because = None
        self.checked = False
        NodeProcess.started.append(self)

    def without_loop(self, why):
        """Declares that this node ends before its loop starts (`why`: a start-up error),
        so that it reports no loop allocations; returns the node."""
        self.no_loop_because = why
        return self

    def loop_allocations(self):
        """What the node's exit line says of its loop's allocations after start-up ("0",
        "not counted"), or None without the line."""
        found = [line[len(ALLOCATIONS_LINE):] for line in self.lines if line.startswith(ALLOCATIONS_LINE)]
        return found[-1] if found else None

    def check_loop_allocations(self):
        """Asserts that the ended node reported zero loop allocations after start-up (or,
        declared without a loop, no loop at all)."""
        self.checked = True
        self._reader.join(timeout=2)
        found = self.loop_allocations()
        command = " ".join(self.proc.args[1:])
        if self.no_loop_because is not None:
            assert found is None, f"`{command}` ran its loop although {self.no_loop_because}:\n{self.output()}"
            return
        assert found == "0", (
            f"`{command}` (exit code {self.proc.returncode}) reported loop allocations after start-up: {found!r} "
            f"(a node that never runs its loop must say so with without_loop(why)):\n{self.output()[-3000:]}")

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


WHOLE_RUN = re.compile(r"whole run: (\d+) ticks in [\d.]+ s, (\d+) missed periods .* "
                       r"jitter p50 [\d.]+ p99 ([\d.]+) .* overruns \d+ "
                       r"\(total (\d+), (\d+) beyond 2 periods\)")


class HostBaseline:
    """`signorini loop --empty` for `seconds`, started beside a node: a loop at the node's
    rate with a tick that does nothing, as `config` sets it (the soak: the node's CPU, one
    SCHED_FIFO priority above the node's loop, so that the node's own long ticks and
    catch-up bursts never hold it back, while a VM's stolen time or kernel work on that
    CPU stalls both). Its overruns are the host's: the real-time tests bound the node's by
    this baseline, not by an idle machine's zero. On this shared 2-vCPU VM an empty loop at
    priority 50 has seen 99 overruns beyond two periods in 20 s, and the simulating node
    beside it 83. Its output goes to a file (an hour's status lines would fill a pipe)."""

    def __init__(self, config, seconds, out):
        self.out = Path(out)
        with self.out.open("w") as f:
            self.proc = subprocess.Popen(
                [binary(), "loop", "--config", str(config), "--duration", str(seconds), "--empty"], cwd=ROOT,
                stdout=f, stderr=subprocess.STDOUT, text=True)

    def result(self, timeout=30.0):
        """{ticks, missed_periods, overruns, long_overruns, jitter_p99_us} of the whole run (waits
        for its end)."""
        self.proc.wait(timeout=timeout)
        out = self.out.read_text()
        found = WHOLE_RUN.search(out)
        assert self.proc.returncode == 0 and found, f"the host baseline failed:\n{out[-3000:]}"
        ticks, missed, jitter, overruns, long_overruns = found.groups()
        return dict(ticks=int(ticks), missed_periods=int(missed), overruns=int(overruns),
                    long_overruns=int(long_overruns), jitter_p99_us=float(jitter))

    def stop(self):
        """Ends the run early (a test that failed before reading it)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def check_ended_nodes(stop_running):
    """Checks the loop allocations of every node not yet checked that has ended; with
    `stop_running`, stops the ones still running first (a module's end: its fixtures' nodes
    are stopped by then, so a node still running was left behind by a test)."""
    failures = []
    for node in NodeProcess.started:
        if node.checked:
            continue
        if stop_running and node.alive():
            node.stop()
        if node.alive():
            continue
        try:
            node.check_loop_allocations()
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n\n".join(failures)


@pytest.fixture(autouse=True)
def loop_allocations_checked():
    """After each test: the nodes it started and stopped made no loop allocation."""
    yield
    check_ended_nodes(stop_running=False)


@pytest.fixture(scope="module", autouse=True)
def loop_allocations_checked_at_module_end():
    """After each module: so did the nodes of its module fixtures."""
    yield
    check_ended_nodes(stop_running=True)


@pytest.fixture(scope="session")
def ros():
    """An rclpy context and node, spun by an executor thread."""
    rclpy.init()
    node = rclpy.create_node("signorini_interop_test")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    stop = threading.Event()
    errors = []

    def spin():
        # One failing callback (a test's peer publishing after its test tore it down) must
        # not stop the executor every later test depends on: record it and go on.
        while not stop.is_set():
            try:
                executor.spin_once(timeout_sec=0.1)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    yield node
    stop.set()
    thread.join(timeout=2.0)
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()
    if errors:
        print(f"rclpy callbacks raised {len(errors)} times, first: {errors[0]}")


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


def answer(client, request, timeout):
    """The future of `client`'s call of `request`, once answered within `timeout` s (woken
    by the answer itself); None, the call withdrawn, if not."""
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _: done.set())
    if done.wait(timeout):
        return future
    client.remove_pending_request(future)
    return None


def call(client, request, timeout=10.0):
    """The answer of `client` to `request` (a poll every 20 ms, as wait_until's, would be
    too coarse to time a step's round trip)."""
    future = answer(client, request, timeout)
    assert future is not None, f"no answer of {client.srv_name} within {timeout} s"
    return future.result()


def answered(client, probe, timeout=20.0, each=2.0):
    """Waits for `client`'s service, then sends `probe` until one is answered; the number
    sent (each one reached the node, answered or not).

    wait_for_service tells that the client has matched the service, not that the service
    has matched the client's response reader; Fast DDS's rmw_send_response waits 100 ms for
    that match and then drops the response (ros2/rmw_fastrtps#467, "client will not receive
    response"). On a loaded host the first request of a new client can so go unanswered
    (CI stop 44: SpawnEntity, 10 s). A test sends, before its first real request, a probe
    whose effect it knows: an idempotent query, or a request refused without effect."""
    assert client.wait_for_service(timeout_sec=timeout), client.srv_name
    deadline = time.monotonic() + timeout
    sent = 0
    while time.monotonic() < deadline:
        sent += 1
        if answer(client, probe, each) is not None:
            return sent
    raise AssertionError(f"no answer of {client.srv_name} to {sent} probes within {timeout} s")


RELIABLE = QoSProfile(depth=2000, reliability=ReliabilityPolicy.RELIABLE)
# For a recorder that may fall behind: it drops instead of queueing (its newest sample is
# at most 20 samples old).
RECENT = QoSProfile(depth=20, reliability=ReliabilityPolicy.BEST_EFFORT)
# For a peer that acts on the newest message only (a controller).
RECENT_ONE = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)


def stamp_ns(t):
    return t.sec * 1_000_000_000 + t.nanosec


class Recorder:
    """Collects messages of one topic from the rclpy executor thread."""

    def __init__(self, node, msg_type, topic, convert, qos=RELIABLE):
        self.lock = threading.Lock()
        self.items = []
        self.recording = True
        self.sub = node.create_subscription(msg_type, topic, self._on, qos)
        self.convert = convert

    def _on(self, msg):
        item = (time.monotonic(), self.convert(msg))
        with self.lock:
            if self.recording:
                self.items.append(item)

    def snapshot(self):
        with self.lock:
            return list(self.items)

    def clear(self):
        with self.lock:
            self.items.clear()


def diagnostic_values(msg):
    status = msg.status[0]
    level = status.level[0] if isinstance(status.level, bytes) else status.level  # `byte` field
    return level, status.message, {kv.key: kv.value for kv in status.values}


class RawRecorder(Recorder):
    """A Recorder of serialized messages (`raw=True`: no deserialization in Python), for
    kHz topics: `convert` reads what it needs from the CDR bytes (see cdr_stamp,
    cdr_doubles)."""

    def __init__(self, node, msg_type, topic, convert, qos=RELIABLE):
        self.lock = threading.Lock()
        self.items = []
        self.recording = True
        self.sub = node.create_subscription(msg_type, topic, self._on, qos, raw=True)
        self.convert = convert


def cdr_stamp(data):
    """The header stamp (ns) of a serialized message that starts with one (or /clock's
    time): after the 4-byte encapsulation, int32 sec and uint32 nanosec."""
    sec, nanosec = struct.unpack_from("<iI", data, 4)
    return sec * 1_000_000_000 + nanosec


def cdr_doubles(data, strings, count):
    """`count` doubles after the stamp and `strings` strings of a serialized message
    (WrenchStamped: 1 string, then force and torque; Odometry: 2, then the position...).
    CDR aligns each field on its size, counted from the end of the encapsulation."""
    offset = 12
    for _ in range(strings):
        offset += (-(offset - 4)) % 4
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4 + length
    offset += (-(offset - 4)) % 8
    return struct.unpack_from(f"<{count}d", data, offset)


def compare_predictions(feet, simulated, predicted, weight, step_ns=1_000_000):
    """Pairs the controller's prediction made from the state stamped t with the simulated
    wrench of the step to t + Δt, per foot; returns (pairs, pairs within 5 % of the weight,
    the largest difference). A pair disagrees when the controller's torque reached the
    simulator after the step it was computed for (over DDS, on loaded cores): the
    simulator then stepped on the previous command."""
    pairs, close, worst = 0, 0, 0.0
    for sim_f, pred_f in zip(simulated, predicted):
        for stamp, f in pred_f.items():
            if stamp + step_ns in sim_f:
                error = abs(f - sim_f[stamp + step_ns])
                pairs += 1
                close += error < 0.05 * weight
                worst = max(worst, error)
    return pairs, close, worst

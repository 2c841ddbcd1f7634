"""Fault injection over ROS (issue 10), each test stating what must happen:

- the controller's state publisher changes its joint order mid-run, stops, and restarts in
  yet another order: the torques are the same for the same state whatever the order; while
  silent the controller publishes its safe output and says so; it resumes on the first
  fresh state;
- a publisher floods /joint_states at up to 20 kHz: the controller's loop keeps its rate
  and its period statistics (overruns, jitter) stay as without the flood;
- the simulation is reset while the crate slides: /clock stays monotonic, the crate is back
  at its initial place and at rest, nothing published is NaN, and the simulation goes on.

(Effort commands of the wrong length, NaN or 10⁶ elements: tests/ros/test_node.py; states
missing a joint or holding a NaN: test_modes.py.)
"""

import math
import os
import statistics
import subprocess
import sys
import threading
import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

from conftest import (
    RECENT, ROOT, HostBaseline, NodeProcess, RawRecorder, Recorder, binary, cdr_doubles, cdr_stamp, diagnostic_values, wait_until,
)
from test_modes import config, pinned, stop_all

NAMES = [f"joint{i}" for i in range(1, 8)]
POSTURE = [0.0, 0.5, 0.0, -1.2, 0.0, 0.7, 0.0]


def state_message(order, t_ns):
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(t_ns, 1_000_000_000)
    msg.name = [NAMES[i] for i in order]
    msg.position = [POSTURE[i] for i in order]
    msg.velocity = [0.0] * len(order)
    return msg


def test_the_controller_follows_joints_by_name_through_reorders_and_restarts(ros, tmp_path):
    node = NodeProcess("node", "--config", str(config(tmp_path, "arm_control.yaml", "arm7_control.yaml")))
    states = ros.create_publisher(JointState, "/joint_states", 10)
    commands = Recorder(ros, Float64MultiArray, "/effort_controller/commands", lambda m: list(m.data))
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    stop = threading.Event()
    feed = {"order": list(range(7))}

    def publish():
        t = 0
        while not stop.is_set():
            t += 1_000_000
            if feed["order"] is not None:
                states.publish(state_message(feed["order"], t))
            time.sleep(0.001)

    feeder = threading.Thread(target=publish, daemon=True)

    def steady(what):
        commands.clear()
        time.sleep(0.4)
        got = [c for _, c in commands.snapshot()]
        assert len(got) > 100, f"{what}: {len(got)} commands"
        return got[-1], got

    try:
        node.wait_for_line("signorini: controlling arm7")
        wait_until(lambda: states.get_subscription_count() >= 1, 20.0, "the controller's state subscription")
        feeder.start()
        wait_until(lambda: len(commands.snapshot()) > 100, 10.0, "torques")
        first, _ = steady("configured order")
        feed["order"] = [6, 2, 4, 0, 5, 1, 3]
        reordered, _ = steady("another order")
        feed["order"] = None
        wait_until(lambda: any(v["input_state"] == "stale" for _, (_, _, v) in diagnostics.snapshot()[-2:]),
                   5.0, "the silent state reported stale")
        _, silent = steady("silent")
        feed["order"] = list(reversed(range(7)))
        wait_until(lambda: any(v["input_state"] == "fresh" for _, (_, _, v) in diagnostics.snapshot()[-1:]),
                   5.0, "the state fresh again")
        resumed, _ = steady("restarted in reverse order")
        assert node.alive()
    finally:
        stop.set()
        stop_all(ros, [commands, diagnostics], [states], [node])
    print(f"torques {first[:3]}…; {len(silent)} safe outputs while silent")
    # The same state in any order gives the same torques (by name, to rounding).
    for other in (reordered, resumed):
        assert max(abs(a - b) for a, b in zip(first, other)) < 1e-9, (first, other)
    # Silent: the safe output (the arm's gravity hold at the last state: at rest, the same
    # torques as the controller holding the posture), never NaN.
    assert all(len(c) == 7 and all(math.isfinite(x) for x in c) for c in silent)


FLOOD = r"""
import os, sys, time
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
rclpy.init()
node = rclpy.create_node("flood")
pub = node.create_publisher(JointState, "/joint_states", QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT))
names = [f"joint{i}" for i in range(1, 8)]
posture = [0.0, 0.5, 0.0, -1.2, 0.0, 0.7, 0.0]
msg = JointState(name=names, position=posture, velocity=[0.0] * 7)
duration, rate = float(sys.argv[1]), float(sys.argv[2])
start = time.monotonic()
sent = 0
while True:
    now = time.monotonic()
    if now - start >= duration:
        break
    if sent < (now - start) * rate:
        t = time.time_ns()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(t, 1_000_000_000)
        pub.publish(msg)
        sent += 1
print(sent / (time.monotonic() - start))
"""


def test_a_flood_of_joint_states_does_not_disturb_the_loop(ros, tmp_path):
    """A 20 kHz JointState flood from another process leaves the 1 kHz loop as it was before
    it: the tick's own work (median compute time), its missed periods and overruns, and its
    wake-up jitter. This shared 2-core host's stalls (a VM's stolen time) hold the loop
    below 1 kHz with or without a flood (743 Hz before and 770 Hz during it in one CI run;
    998 Hz before and, for one 1 s window, 950 Hz during it in another, with the tick's
    compute unchanged): a 50 ms stall of the loop's CPU costs 50 periods whatever the node
    does. So each 4 s window has its host baseline, as the soak does: `signorini loop
    --empty` on the node's CPU, one SCHED_FIFO priority above it, running over the whole
    window, and the node's missed periods and overruns are bounded beyond that loop's, the
    flood's window against the one before it."""
    # Windows of 50 ms: the edges of the node's and the baseline's align.
    node_config, host_config = pinned(tmp_path, "arm7", "arm7_control.yaml",
                                      append="diagnostics:\n  rate_hz: 20\n  status_line: false\n")
    node = NodeProcess("node", "--config", str(node_config))
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    states = ros.create_publisher(JointState, "/joint_states", 10)
    stop = threading.Event()
    baselines = []

    def publish():
        while not stop.is_set():
            states.publish(state_message(range(7), time.time_ns()))
            time.sleep(0.001)

    feeder = threading.Thread(target=publish, daemon=True)

    def latest():
        reports = diagnostics.snapshot()
        assert reports, "no /diagnostics from the node"
        return reports[-1][1][2]

    def window(name, seconds):
        """The node's reports over `seconds`, its missed periods and overruns in them, and
        the host baseline's run, which starts before the window and ends after it."""
        baseline = HostBaseline(host_config, seconds + 0.5, tmp_path / f"{name}.log")
        baselines.append(baseline)
        wait_until(lambda: "rate " in baseline.out.read_text(), 10.0, "the host baseline's first report")
        time.sleep(0.1)
        first = latest()
        diagnostics.clear()
        time.sleep(seconds)
        last = latest()
        inside = [v for _, (_, _, v) in diagnostics.snapshot()]
        host = baseline.result()
        missed = int(last["missed_periods_total"]) - int(first["missed_periods_total"])
        overruns = sum(int(v["overruns_window"]) for v in inside)
        return inside, missed, overruns, host

    try:
        node.wait_for_line("signorini: controlling arm7")
        wait_until(lambda: states.get_subscription_count() >= 1, 20.0, "the controller's state subscription")
        feeder.start()
        time.sleep(1.5)
        before = window("before", 4.0)
        flood = subprocess.Popen([sys.executable, "-c", FLOOD, "6", "20000"], cwd=ROOT, stdout=subprocess.PIPE,
                                 text=True, env=dict(os.environ))
        time.sleep(1.5)  # the flood's discovery
        during = window("during", 4.0)
        achieved = float(flood.communicate(timeout=30)[0].strip() or 0)
        assert node.alive()
    finally:
        stop.set()
        for b in baselines:
            b.stop()
        stop_all(ros, [diagnostics], [states], [node])

    def figures(name, w):
        inside, missed, overruns, host = w
        jitter = statistics.median(float(v["jitter_p99_us"]) for v in inside)
        work = statistics.median(float(v["compute_p50_us"]) for v in inside)
        print(f"{name}: missed periods {missed} (host {host['missed_periods']}), overruns {overruns} (host "
              f"{host['overruns']}), jitter p99 median {jitter:.0f} µs (host {host['jitter_p99_us']:.0f}), "
              f"compute p50 {work:.1f} µs")
        return missed - host["missed_periods"], overruns - host["overruns"], jitter, host["jitter_p99_us"], work

    (missed0, overruns0, jitter0, _, work0) = figures("before the flood", before)
    (missed1, overruns1, jitter1, host_jitter1, work1) = figures(f"during the flood at {achieved:.0f} Hz", during)
    assert achieved > 5000, f"the flood reached only {achieved:.0f} Hz"
    assert work1 < 1.5 * work0 + 2.0, f"the tick's compute p50 {work0} → {work1} µs under the flood"
    # 1 % of the window's 4000 periods, and 8 overruns, beyond the host's and the node's own before.
    assert missed1 <= max(missed0, 0) + 40, f"missed periods beyond the host's {missed0} → {missed1} under the flood"
    assert overruns1 <= max(overruns0, 0) + 8, f"overruns beyond the host's {overruns0} → {overruns1} under the flood"
    assert jitter1 < max(3.0 * jitter0, jitter0 + 300.0, 2.0 * host_jitter1), \
        f"jitter p99 {jitter0} → {jitter1} µs under the flood (the host's {host_jitter1} µs)"


def test_a_reset_while_the_crate_slides(ros, tmp_path):
    node = NodeProcess("node", "--config", str(config(tmp_path, "quadruped.yaml", "quadruped.yaml")))
    wrench = ros.create_publisher(WrenchStamped, "/signorini/external_wrench", 10)
    reset = ros.create_client(Trigger, "/signorini/reset")
    clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, RECENT)
    crate = RawRecorder(ros, Odometry, "/crate/odom", lambda d: cdr_doubles(d, 2, 3), RECENT)
    odom = RawRecorder(ros, Odometry, "/odom", lambda d: cdr_doubles(d, 2, 7), RECENT)

    def push(fx):
        msg = WrenchStamped()
        msg.header.frame_id = "crate"
        msg.wrench.force.x = fx
        wrench.publish(msg)

    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: wrench.get_subscription_count() >= 1 and crate.snapshot(), 20.0, "the node")
        start = crate.snapshot()[-1][1]
        push(60.0)
        wait_until(lambda: crate.snapshot()[-1][1][0] - start[0] > 0.1, 5.0, "the crate sliding")
        push(0.0)
        moving = crate.snapshot()[-1][1][0] - start[0]
        assert reset.wait_for_service(timeout_sec=10.0)
        future = reset.call_async(Trigger.Request())
        wait_until(future.done, 5.0, "the reset")
        assert future.result().success
        reset_at = time.monotonic()
        wait_until(lambda: crate.snapshot()[-1][0] > reset_at + 0.3, 5.0, "odometry after the reset")
        after = [p for t, p in crate.snapshot() if t > reset_at + 0.2]
        stamps = [s for _, s in clock.snapshot()]
        bodies = [p for _, p in odom.snapshot()]
        assert node.alive()
    finally:
        ros.destroy_client(reset)
        stop_all(ros, [clock, crate, odom], [wrench], [node])
    print(f"reset {moving * 1000:.0f} mm into the slide; the crate then at {after[-1]}")
    assert all(b > a for a, b in zip(stamps, stamps[1:])), "/clock is monotonic through the reset"
    assert all(abs(p[0] - start[0]) < 1e-3 and abs(p[1] - start[1]) < 1e-3 for p in after), (start, after[-1])
    assert all(math.isfinite(x) for p in after + bodies for x in p)


def test_a_closed_stdout_neither_stops_nor_blocks_the_node(ros, tmp_path):
    """The node's stdout closed under it (a terminal or a pipe gone): the status line's
    printer stops, the lines it drops are counted on /diagnostics
    (`status_lines_dropped_total`), and the node simulates on. (It cannot print its exit
    line: its loop allocations are checked on its last /diagnostics instead.)"""
    path = config(tmp_path, "closed_stdout.yaml", "arm7.yaml")
    read, write = os.pipe()
    os.close(read)  # every write to the node's stdout now fails (EPIPE)
    proc = subprocess.Popen([binary(), "node", "--config", str(path)],
                            cwd=ROOT, stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    try:
        def dropped():
            return any(int(v.get("status_lines_dropped_total", "0")) >= 2 for _, (_, _, v) in diagnostics.snapshot())
        wait_until(dropped, 15.0, "status lines dropped and counted")

        def ticks():
            return [int(v["ticks_total"]) for _, (_, _, v) in diagnostics.snapshot() if "ticks_total" in v]
        # Two reports at least (the first may be the only one received when the drops are).
        wait_until(lambda: len(ticks()) >= 2, 15.0, "a second /diagnostics report")
        ticks = ticks()
        assert proc.poll() is None, proc.stderr.read().decode()
        assert len(ticks) >= 2 and ticks[-1] > ticks[0], ticks
        last = [v for _, (_, _, v) in diagnostics.snapshot() if "loop_allocations_total" in v][-1]
        assert last["loop_allocations_total"] == "0", last
    finally:
        stop_all(ros, [diagnostics])
        proc.send_signal(2)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

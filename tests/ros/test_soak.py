"""Soak (issue 10): the quadruped simulated and controlled in one process at 1 kHz
(config/quadruped_sim_control.yaml), its trunk shifted 3 cm sideways and back every 5 s
over ROS, for SIGNORINI_SOAK_SECONDS (120 in `make test`; `make soak` runs an hour).

Checked from the outside, as an operator would see it: no heap allocation in the loop
after start-up (the node's counting allocator, on /diagnostics), overruns that leave the
loop more than two periods behind at most one per 500 ticks beyond three times what an
empty loop at the same rate saw beside it on the same CPU, one priority above the node's
(conftest.HostBaseline: 0 on an idle machine; the shared CI machine's stalls are the
host's, and both loops suffer them), the rate at 1 kHz, resident memory
growing by less than 1 MB after the first 20 s (half the run if shorter), no NaN in anything published (joint
states, odometry, simulated and predicted contact wrenches), /diagnostics every second and
never at ERROR. The figures are printed (`-s`) for the README."""

import math
import os
import struct
import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, WrenchStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState

from conftest import RECENT, HostBaseline, NodeProcess, RawRecorder, Recorder, cdr_doubles, diagnostic_values, wait_until
from test_modes import pinned, stop_all

SECONDS = float(os.environ.get("SIGNORINI_SOAK_SECONDS", "120"))
# Resident memory is compared from this time on (start-up's allocations are over by then);
# a run shorter than 40 s compares its second half.
RSS_FROM = min(20.0, SECONDS / 2)


def cdr_joint_state(data):
    """Positions, velocities and efforts of a serialized sensor_msgs/JointState."""
    offset = 12  # encapsulation (4) and stamp (8)

    def align(n):
        nonlocal offset
        offset += (-(offset - 4)) % n

    def u32():
        nonlocal offset
        align(4)
        (value,) = struct.unpack_from("<I", data, offset)
        offset += 4
        return value

    def skip_string():
        nonlocal offset
        length = u32()  # (not `offset += u32()`: that adds to the offset before u32 moved it)
        offset += length

    skip_string()  # frame_id
    for _ in range(u32()):
        skip_string()
    arrays = []
    for _ in range(3):
        n = u32()
        align(8)
        arrays.append(struct.unpack_from(f"<{n}d", data, offset))
        offset += 8 * n
    return arrays


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def all_finite(values):
    return all(math.isfinite(x) for x in values)


def test_soak_sim_and_control(ros, tmp_path):
    # The node's loop and the empty loop on one CPU (`realtime.cpu`): a CPU's stalls (a VM's
    # stolen time, kernel work) are its own. On two CPUs (unpinned) the node's loop saw 1.5
    # and 4.1 times the empty loop's long overruns in 60 s (281 against 185, 319 against
    # 77). The empty loop runs one SCHED_FIFO priority above the node's (50): at the same
    # priority the node's long ticks and catch-up bursts would hold it back too (the two
    # counts then agreed within 12 %). Above it, in 60 s, the node's loop saw 1.41 and 2.27
    # times the empty loop's (466 against 330, 681 against 300; 2026-11-28): the node's own
    # part of that is not established (an idle host's hour had 257 in all).
    soak_config, host_config = pinned(tmp_path, "soak", "quadruped_sim_control.yaml")
    node = NodeProcess("node", "--config", str(soak_config))
    bad = {"joint_states": 0, "odom": 0, "wrenches": 0}
    counts = {"joint_states": 0, "odom": 0, "wrenches": 0}

    def check(key, values):
        counts[key] += 1
        if not all_finite(values):
            bad[key] += 1
        return None

    recorders = [
        RawRecorder(ros, JointState, "/joint_states", lambda d: check("joint_states", sum(cdr_joint_state(d), ())), RECENT),
        RawRecorder(ros, Odometry, "/odom", lambda d: check("odom", cdr_doubles(d, 2, 7)), RECENT),
    ]
    for foot in ("lf_foot", "rh_foot"):
        for prefix in ("contact_wrenches", "predicted_contact_wrenches"):
            recorders.append(RawRecorder(ros, WrenchStamped, f"/signorini/{prefix}/{foot}",
                                         lambda d: check("wrenches", cdr_doubles(d, 1, 6)), RECENT))
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    recorders.append(diagnostics)
    base = ros.create_publisher(PoseStamped, "/signorini/base_reference", 10)
    running = []
    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: counts["odom"] > 1000, 30.0, "the simulation's odometry")
        start = time.monotonic()
        host = HostBaseline(host_config, SECONDS, tmp_path / "host.txt")
        running.append(host)
        rss_start = None
        shifts = 0
        x0 = y0 = z0 = None
        while time.monotonic() - start < SECONDS:
            if not node.alive():
                raise AssertionError(f"the node stopped:\n{node.output()}")
            elapsed = time.monotonic() - start
            if rss_start is None and elapsed >= RSS_FROM:
                rss_start = rss_kb(node.proc.pid)
            if int(elapsed / 5.0) >= shifts:
                # Shift the trunk sideways and back, alternately, from where it stood.
                if x0 is None:
                    x0, y0, z0 = 0.0, 0.0, 0.39
                msg = PoseStamped()
                msg.header.frame_id = "world"
                msg.pose.position.x, msg.pose.position.z = x0, z0
                msg.pose.position.y = y0 + (0.03 if shifts % 2 == 0 else 0.0)
                msg.pose.orientation.w = 1.0
                base.publish(msg)
                shifts += 1
            time.sleep(0.1)
        rss_end = rss_kb(node.proc.pid)
        if rss_start is None:  # the loop's last pass came before RSS_FROM
            rss_start = rss_end
        time.sleep(1.5)  # one more /diagnostics window
        reports = diagnostics.snapshot()
        baseline = host.result()
    finally:
        for h in running:
            h.stop()
        ros.destroy_publisher(base)
        stop_all(ros, recorders, [], [node])

    windows = [(t, level, values) for t, (level, _, values) in reports if t >= start]
    assert len(windows) >= 0.9 * SECONDS, f"{len(windows)} /diagnostics in {SECONDS} s"
    first, last = windows[0][2], windows[-1][2]
    ticks = int(last["ticks_total"]) - int(first["ticks_total"])
    long_overruns = int(last["long_overruns_total"]) - int(first["long_overruns_total"])
    allocations = [values["loop_allocations_total"] for _, _, values in windows]
    errors = [values for _, level, values in windows if level >= 2]
    rates = [float(values["rate_hz"]) for _, _, values in windows]
    growth = rss_end - rss_start
    print(
        f"soak {SECONDS:.0f} s: {ticks} ticks, {int(last['overruns_total']) - int(first['overruns_total'])} overruns, "
        f"{long_overruns} beyond two periods (an empty loop beside it: {baseline['overruns']} and "
        f"{baseline['long_overruns']} in {baseline['ticks']} ticks, jitter p99 {baseline['jitter_p99_us']:.0f} µs), "
        f"loop allocations {allocations[-1]}, RSS {rss_start} (at {RSS_FROM:.0f} s) → {rss_end} kB ({growth:+d} kB), rate median "
        f"{sorted(rates)[len(rates) // 2]:.1f} Hz (min {min(rates):.1f}), jitter p99 up to "
        f"{max(float(v['jitter_p99_us']) for _, _, v in windows):.0f} µs, {shifts} base shifts, messages checked "
        f"{counts}, non-finite {bad}"
    )
    assert all(a == "0" for a in allocations), f"allocations in the loop: {allocations}"
    assert not errors, f"/diagnostics at ERROR: {errors[0]}"
    assert long_overruns <= ticks / 500 + 3 * baseline["long_overruns"], (
        f"{long_overruns} overruns beyond two periods in {ticks} ticks; an empty loop beside it: {baseline}")
    assert growth < 1024, f"resident memory grew by {growth} kB"
    assert sorted(rates)[len(rates) // 2] > 990.0, rates
    assert bad == {"joint_states": 0, "odom": 0, "wrenches": 0}, bad
    assert min(counts.values()) > 0, counts

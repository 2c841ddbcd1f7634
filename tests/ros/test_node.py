"""The signorini node against rclpy, the independent peer: topics, rate, stamps, bad input,
diagnostics, clean exit."""

import math
import signal
import time

import pinocchio
import yaml
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from conftest import (
    RECENT, RELIABLE, ROOT, NodeProcess, Recorder, answered, diagnostic_values, stamp_ns, wait_until,
)

RATE_HZ = 1000.0


def test_joint_states_and_clock_at_the_configured_rate(ros, quadruped_node):
    config = yaml.safe_load((ROOT / "config" / "quadruped.yaml").read_text())
    # Pinocchio reads the same URDF: its joint order is the reference.
    model = pinocchio.buildModelFromUrdf(str(ROOT / "urdf" / "quadruped.urdf"))
    expected_names = list(model.names)[1:]
    posture = config["robot"]["initial_posture"]

    states = Recorder(ros, JointState, "/joint_states",
                      lambda m: (stamp_ns(m.header.stamp), list(m.name), list(m.position), list(m.effort)))
    clock = Recorder(ros, Clock, "/clock", lambda m: stamp_ns(m.clock))
    try:
        wait_until(lambda: states.snapshot() and clock.snapshot(), 20.0, "the first /joint_states and /clock")
        time.sleep(0.5)
        states.clear()
        clock.clear()
        start = time.monotonic()
        time.sleep(3.0)
        window = [s for t, s in states.snapshot() if t - start <= 3.0]
        clock_window = [c for t, c in clock.snapshot() if t - start <= 3.0]
    finally:
        ros.destroy_subscription(states.sub)
        ros.destroy_subscription(clock.sub)

    # Every tick is published (no gap in sim time below); how many ticks a loaded machine
    # fits in 3 s is a measured figure, so only a gross shortfall fails here.
    assert len(window) >= 0.3 * 3.0 * RATE_HZ, f"{len(window)} /joint_states in 3 s"
    assert len(clock_window) >= 0.3 * 3.0 * RATE_HZ, f"{len(clock_window)} /clock in 3 s"
    for stamp, names, position, effort in window:
        assert names == expected_names
        assert len(position) == len(effort) == 12
        assert all(math.isfinite(x) for x in position + effort)
    stamps = [s[0] for s in window]
    assert all(b > a for a, b in zip(stamps, stamps[1:])), "joint state stamps strictly increase"
    steps = {b - a for a, b in zip(stamps, stamps[1:])}
    assert steps == {1_000_000}, f"every sample advances sim time by one period, got {sorted(steps)[:5]}"
    assert all(b > a for a, b in zip(clock_window, clock_window[1:])), "/clock strictly increases"
    # The simulator holds the posture with its fallback PD (no command is sent here).
    first_position = window[0][2]
    for name, q in zip(expected_names, first_position):
        assert abs(q - posture.get(name, 0.0)) < 0.05, (name, q)


def test_sim_mode_stands_and_publishes_odometry_and_contact_wrenches(ros, quadruped_node):
    """The simulator in the loop: the quadruped stands on its fallback PD; /odom holds the
    trunk up; the four feet's contact wrenches, stamped like /clock, carry its weight."""
    model = pinocchio.buildModelFromUrdf(str(ROOT / "urdf" / "quadruped.urdf"), pinocchio.JointModelFreeFlyer())
    weight = pinocchio.computeTotalMass(model) * 9.81
    feet = ["lf_foot", "lh_foot", "rf_foot", "rh_foot"]
    odom = Recorder(ros, Odometry, "/odom", lambda m: (stamp_ns(m.header.stamp), m.header.frame_id,
                                                       m.pose.pose.position.z, m.child_frame_id))
    wrenches = {f: Recorder(ros, WrenchStamped, f"/signorini/contact_wrenches/{f}",
                            lambda m: (stamp_ns(m.header.stamp), m.header.frame_id, m.wrench.force.x,
                                       m.wrench.force.y, m.wrench.force.z)) for f in feet}
    try:
        wait_until(lambda: odom.snapshot() and all(w.snapshot() for w in wrenches.values()), 20.0,
                   "the first /odom and contact wrenches")
        time.sleep(2.0)
        for r in [odom, *wrenches.values()]:
            r.clear()
        time.sleep(1.0)
        odoms = [o for _, o in odom.snapshot()]
        by_stamp = [{stamp: (fx, fy, fz) for _, (stamp, _, fx, fy, fz) in w.snapshot()} for w in wrenches.values()]
        frames = {frame for w in wrenches.values() for _, (_, frame, *_) in w.snapshot()}
    finally:
        for r in [odom, *wrenches.values()]:
            ros.destroy_subscription(r.sub)

    assert len(odoms) > 100, f"{len(odoms)} /odom in 1 s"
    assert {o[1] for o in odoms} == {"world"} and {o[3] for o in odoms} == {"base"}
    heights = [o[2] for o in odoms]
    assert all(0.37 < z < 0.40 for z in heights), (min(heights), max(heights))
    assert frames == {"world"}
    common = set.intersection(*(set(b) for b in by_stamp))
    assert len(common) > 100, f"{len(common)} stamps with all four feet"
    for stamp in common:
        total = [sum(b[stamp][a] for b in by_stamp) for a in range(3)]
        # Standing still under gravity: the feet carry the weight (1 %), no net sideways force.
        assert abs(total[2] - weight) < 0.01 * weight, (stamp, total, weight)
        assert abs(total[0]) < 0.01 * weight and abs(total[1]) < 0.01 * weight, (stamp, total)


def test_bad_commands_are_rejected_counted_and_survived(ros, quadruped_node):
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    # 1 kHz, deserialized: dropped rather than queued when the executor falls behind, so
    # that /diagnostics is not held up behind a backlog.
    states = Recorder(ros, JointState, "/joint_states", lambda m: list(m.effort), RECENT)
    pub = ros.create_publisher(Float64MultiArray, "/effort_controller/commands", 10)
    try:
        wait_until(lambda: pub.get_subscription_count() >= 1, 20.0, "the node's command subscription")
        wait_until(lambda: states.snapshot(), 20.0, "/joint_states")

        def send(values, times=1):
            for _ in range(times):
                pub.publish(Float64MultiArray(data=values))
                time.sleep(0.01)

        send([1.0, 2.0, 3.0], times=4)                   # wrong length
        send([0.0] * 11 + [float("nan")], times=2)       # NaN
        send([0.0] * 5 + [float("inf")] + [0.0] * 6)     # infinite
        send([0.5] * 20_000)                             # oversized (160 kB)
        # 8 MB: with the default best-effort subscription DDS drops samples this large
        # before they reach the node (see the reliable variant below); it must not harm.
        send([0.5] * 1_000_000)
        assert quadruped_node.alive()

        states.clear()
        end = time.monotonic() + 0.6
        while time.monotonic() < end:                    # a valid command at 100 Hz
            send([0.5] * 12)
        assert quadruped_node.alive()
        applied = states.snapshot()
        assert any(e == [0.5] * 12 for _, e in applied), "the valid command is applied"

        # Each kind counted. The subscription keeps the newest command (best effort, keep
        # last 1: `qos.commands`), so a burst 10 ms apart can lose one to the next before
        # the node takes it when the host stalls (a fresh clone's run counted fewer than the
        # 4 + 3 above): each is sent again until its counter on /diagnostics has moved.
        def total(key):
            reports = diagnostics.snapshot()
            return int(reports[-1][1][2][key]) if reports else None

        wait_until(lambda: total("commands_rejected_wrong_length_total") is not None, 5.0, "/diagnostics")
        for values, key in (([1.0, 2.0, 3.0], "commands_rejected_wrong_length_total"),
                            ([0.0] * 11 + [float("nan")], "commands_rejected_non_finite_total"),
                            ([0.0] * 5 + [float("inf")] + [0.0] * 6, "commands_rejected_non_finite_total")):
            before = total(key)
            deadline = time.monotonic() + 10.0
            while total(key) <= before:
                assert time.monotonic() < deadline, f"/diagnostics did not count a command {values[:6]}… in {key}"
                send(values)
                time.sleep(0.25)
        warned = [m for _, (level, m, _) in diagnostics.snapshot() if level == 1 and "commands rejected" in m]
        assert warned, "a window with rejections is reported at WARN level"

        # Silence: after the watchdog timeout (100 periods) the node drops the command for
        # its fallback, the posture PD of sim.hold_kp/hold_kd (zero effort without gains).
        states.clear()
        time.sleep(0.5)
        tail = [e for _, e in states.snapshot()][-100:]
        assert tail and all(e != [0.5] * 12 for e in tail), "stale command replaced by the fallback"
        assert len({tuple(e) for e in tail}) > 1, "the fallback PD reacts to the motion"
        wait_until(lambda: any(v["input_state"] == "stale" for _, (_, _, v) in diagnostics.snapshot()),
                   3.0, "/diagnostics to report the stale command")
        for _, efforts in states.snapshot():
            assert all(math.isfinite(x) for x in efforts)
        assert quadruped_node.alive()
    finally:
        ros.destroy_publisher(pub)
        ros.destroy_subscription(diagnostics.sub)
        ros.destroy_subscription(states.sub)


def test_a_million_element_command_is_counted_by_a_reliable_subscription(ros, tmp_path):
    config = tmp_path / "reliable.yaml"
    config.write_text(
        f"robot:\n  urdf: {ROOT / 'urdf' / 'arm7.urdf'}\n"
        "controller: reliable_controller\n"
        "topics: {joint_states: /reliable/joint_states, clock: /reliable/clock, diagnostics: /reliable/diagnostics}\n"
        "qos: {commands: {reliability: reliable}}\n"
    )
    node = NodeProcess("node", "--config", str(config))
    diagnostics = Recorder(ros, DiagnosticArray, "/reliable/diagnostics", diagnostic_values)
    pub = ros.create_publisher(Float64MultiArray, "/reliable_controller/commands", RELIABLE)
    try:
        node.wait_for_line("signorini: arm7")
        wait_until(lambda: pub.get_subscription_count() >= 1, 20.0, "the node's command subscription")
        pub.publish(Float64MultiArray(data=[0.5] * 1_000_000))
        wait_until(lambda: any(int(v["commands_rejected_wrong_length_total"]) >= 1
                               for _, (_, _, v) in diagnostics.snapshot()),
                   10.0, "/diagnostics to count the 10^6-element command")
        assert node.alive()
    finally:
        ros.destroy_publisher(pub)
        ros.destroy_subscription(diagnostics.sub)
        assert node.stop() == 0, node.output()


def test_diagnostics_report_the_loop_statistics(ros, quadruped_node):
    """The loop's figures are consistent with its own accounting, whatever the load.

    A report window is one second of wall time (`diagnostics.rate_hz`); deadlines are
    absolute, so a window holds its ticks plus the periods it skipped after overruns, 1000
    in all at 1 kHz, give or take the steps caught up after a stall (at most 100, run in
    the next window). The rate it reports must match that accounting (a loaded CI machine
    measured 806 Hz with 241 missed periods: still consistent). How close to 1 kHz the loop
    runs is a measured figure (README), not asserted here.
    """
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)

    def consecutive_windows():
        items = diagnostics.snapshot()
        for (t0, (_, _, a)), (t1, (_, _, b)) in zip(items, items[1:]):
            if int(b["ticks_total"]) > int(a["ticks_total"]):
                return t0, a, t1, b
        return None

    try:
        wait_until(consecutive_windows, 20.0, "two consecutive /diagnostics messages")
    finally:
        ros.destroy_subscription(diagnostics.sub)
    t0, first, t1, second = consecutive_windows()
    assert 0.5 < t1 - t0 < 3.0, "published about once per second"
    nominal_hz = 1e6 / float(second["nominal_period_us"])
    assert nominal_hz == 1000.0
    ticks = int(second["ticks_total"]) - int(first["ticks_total"])
    missed = int(second["missed_periods_total"]) - int(first["missed_periods_total"])
    # Steps caught up after a stall (`sim.catch_up`, 0.1 s: up to 100 back to back) run
    # in the window after the one they were due in.
    assert abs(ticks + missed - 1000) <= 102, (ticks, missed)
    expected_hz = nominal_hz * ticks / (ticks + missed)
    rate = float(second["rate_hz"])
    assert abs(rate - expected_hz) <= 0.03 * expected_hz, (rate, ticks, missed)
    assert rate <= 1.11 * nominal_hz, "never faster than the nominal rate and its catch-up"
    assert float(second["period_p50_us"]) > 0.0
    for key in ("jitter_p99_us", "compute_p99_us", "overruns_total", "ticks_total", "input", "input_state"):
        assert key in second
    assert second["input"] == "effort command"


def test_sigint_stops_the_node_cleanly():
    node = NodeProcess("node", "--config", "config/arm7.yaml")
    node.wait_for_line("signorini: arm7")
    time.sleep(1.0)
    node.proc.send_signal(signal.SIGINT)
    node.proc.wait(10)
    node._reader.join(2)
    assert node.proc.returncode == 0, node.output()
    assert any(line.startswith("signorini: stopped after") for line in node.lines), node.output()


def test_a_bad_configuration_exits_with_code_2_and_names_the_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("robot:\n  urdf: ../urdf/quadruped.urdf\nrate_hz: -1\n")
    node = NodeProcess("node", "--config", str(bad)).without_loop("its configuration is refused at load")
    node.proc.wait(20)
    node._reader.join(2)
    assert node.proc.returncode == 2
    assert f"{bad}: key `rate_hz`" in node.output()


def test_parameters_select_the_config_and_override_the_urdf(tmp_path):
    """As launch starts it: no subcommand, a --ros-args block with a parameters file."""
    urdf = (ROOT / "urdf" / "arm7.urdf").read_text()
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"signorini": {"ros__parameters": {
        "config_file": str(ROOT / "config" / "cube.yaml"),
        "robot_description": urdf,
    }}}))
    node = NodeProcess("--ros-args", "--params-file", str(params))
    try:
        # cube.yaml names the cube URDF; robot_description replaces it with the arm.
        node.wait_for_line("signorini: arm7 (7 joints) from parameter robot_description")
    finally:
        assert node.stop() == 0, node.output()

    params.write_text(yaml.safe_dump({"signorini": {"ros__parameters": {"config_file": 42}}}))
    node = NodeProcess("--ros-args", "--params-file", str(params)).without_loop("its parameter is refused at start-up")
    node.proc.wait(20)
    node._reader.join(2)
    assert node.proc.returncode == 2
    assert "ROS parameter `config_file`: expected string" in node.output(), node.output()


def test_pause_step_and_reset_the_simulation(ros, quadruped_node):
    """~/pause stops simulated time (nothing is published), ~/step runs exactly that many
    steps, ~/reset puts the robot back at its initial posture, ~/pause false resumes."""
    from std_msgs.msg import UInt32
    from std_srvs.srv import SetBool, Trigger

    config = yaml.safe_load((ROOT / "config" / "quadruped.yaml").read_text())
    posture = config["robot"]["initial_posture"]
    pause = ros.create_client(SetBool, "/signorini/pause")
    reset = ros.create_client(Trigger, "/signorini/reset")
    step = ros.create_publisher(UInt32, "/signorini/step", 10)
    clock = Recorder(ros, Clock, "/clock", lambda m: stamp_ns(m.clock))
    states = Recorder(ros, JointState, "/joint_states", lambda m: dict(zip(m.name, m.position)))

    def call(client, request):
        assert client.wait_for_service(timeout_sec=10.0)
        future = client.call_async(request)
        wait_until(future.done, 5.0, "the service response")
        return future.result()

    def off_posture(position):
        return max(abs(q - posture.get(name, 0.0)) for name, q in position.items())

    try:
        wait_until(lambda: clock.snapshot(), 20.0, "/clock")
        answered(pause, SetBool.Request(data=False))  # playing already: no effect
        assert call(pause, SetBool.Request(data=True)).success
        time.sleep(0.3)  # samples already on their way
        clock.clear()
        states.clear()
        time.sleep(0.5)
        assert clock.snapshot() == [], "paused: no /clock"

        step.publish(UInt32(data=10))
        wait_until(lambda: len(clock.snapshot()) >= 10, 5.0, "10 steps")
        time.sleep(0.3)
        stamps = [c for _, c in clock.snapshot()]
        assert len(stamps) == 10, stamps
        assert all(b - a == 1_000_000 for a, b in zip(stamps, stamps[1:])), stamps
        loaded = off_posture(states.snapshot()[-1][1])
        # Standing long (after the module's other tests), 5.3e-3 rad; soon after the start,
        # landing, more: either way well clear of the reset's 1e-3 below.
        assert loaded > 3e-3, f"standing, the PD yields to the load: {loaded} rad off the posture"

        assert call(reset, Trigger.Request()).success
        states.clear()
        step.publish(UInt32(data=1))
        wait_until(lambda: states.snapshot(), 5.0, "the step after the reset")
        after = off_posture(states.snapshot()[-1][1])
        assert after < 1e-3, f"reset: {after} rad off the initial posture after one step"
        assert [c for _, c in clock.snapshot()][-1] > stamps[-1], "simulated time runs on"
    finally:
        call(pause, SetBool.Request(data=False))
        ros.destroy_publisher(step)
        ros.destroy_client(pause)
        ros.destroy_client(reset)
        ros.destroy_subscription(clock.sub)
        ros.destroy_subscription(states.sub)
    clock_after = Recorder(ros, Clock, "/clock", lambda m: stamp_ns(m.clock))
    try:
        wait_until(lambda: len(clock_after.snapshot()) > 100, 5.0, "/clock flowing again after resuming")
    finally:
        ros.destroy_subscription(clock_after.sub)

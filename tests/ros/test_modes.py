"""The node's modes against rclpy peers: sim driven by an rclpy PD controller, sim and
controller as two processes (the quadruped shifts its base, the arm follows a
JointTrajectory), both in one process, the real-time factor, external wrenches, contact
markers, and the controller's handling of bad or missing states."""

import math
import os
import threading
import time

import pinocchio
from builtin_interfaces.msg import Duration as DurationMsg
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import MarkerArray

from conftest import (
    RECENT, RECENT_ONE, ROOT, NodeProcess, RawRecorder, Recorder, cdr_doubles, cdr_stamp, compare_predictions,
    diagnostic_values, stamp_ns, wait_until,
)

FEET = ["lf_foot", "lh_foot", "rf_foot", "rh_foot"]


def quadruped_weight():
    model = pinocchio.buildModelFromUrdf(str(ROOT / "urdf" / "quadruped.urdf"), pinocchio.JointModelFreeFlyer())
    return pinocchio.computeTotalMass(model) * 9.81


def config(tmp_path, name, source, replace=(), append=""):
    """A copy of config/<source> with absolute paths, `replace` pairs applied and `append`."""
    text = (ROOT / "config" / source).read_text().replace("urdf: ../urdf/", f"urdf: {ROOT}/urdf/")
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text + append)
    return path


def pinned(tmp_path, name, source, append=""):
    """The configs of a node and of its host baseline (conftest.HostBaseline): a copy of
    config/<source> plus `append` with the loop pinned to this process's last CPU
    (`realtime.cpu`), and the same with the empty loop one SCHED_FIFO priority above the
    node's (its default 50), so that the node's long ticks never hold it back while that
    CPU's stalls hold back both."""
    cpu = max(os.sched_getaffinity(0))
    return (config(tmp_path, f"{name}.yaml", source, append=f"{append}realtime:\n  cpu: {cpu}\n"),
            config(tmp_path, f"{name}_host.yaml", source, append=f"{append}realtime:\n  cpu: {cpu}\n  priority: 51\n"))


def stop_all(ros, recorders, publishers=(), nodes=()):
    for r in recorders:
        ros.destroy_subscription(r.sub)
    for p in publishers:
        ros.destroy_publisher(p)
    codes = [n.stop() for n in nodes]
    for n, code in zip(nodes, codes):
        assert code == 0, f"exit code {code}:\n{n.output()}"


# A reader of every message that may fall seconds behind (the window is 10 s).
EVERY = QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE)


def test_an_rclpy_pd_controller_holds_the_simulated_quadruped(ros, tmp_path):
    """Issue 8, test a. The simulator at real-time factor 1; an rclpy PD (the independent
    peer, one command per /joint_states) holds the quadruped
    for 10 s of simulated time: /clock is monotonic, every step's /joint_states arrives,
    simulated time keeps pace with the wall clock (99 %), the trunk stays up and the
    feet's contact wrenches carry the weight (1 %)."""
    # The simulator's fallback PD holds the robot only until the first command arrives
    # (discovery takes a while); from then on the rclpy PD's commands are fresh throughout
    # (checked on /diagnostics).
    # Keeping pace is measured across the shared machine's stalls (up to 1 s, beyond the
    # default 0.1 s catch-up). Every step's message is checked at this rclpy peer, whose
    # executor takes a whole core at 1 kHz on nine topics and falls seconds behind when
    # the host stalls: a reliable keep-last writer and reader drop what the peer has not
    # taken within their depth (with the default 10: 6104 of 10 531 /clock received; with
    # 2000: 9914 of 10 529, and 7802 of 10 523 with scripts/host_stalls.py stalling each
    # CPU 20 ms in 200, "samples dropped 0" and "publish errors 0" at the node). Both
    # sides keep 10 s here, the whole window (README, `qos`): with the same stalls, every
    # message arrived in three runs of four (the fourth's recorders were still more than
    # 30 s behind at the end).
    path = config(tmp_path, "pd.yaml", "quadruped.yaml",
                  [("sim:\n", "qos:\n  clock: {depth: 10000}\n  joint_states: {depth: 10000}\nsim:\n  catch_up: 1.0\n")])
    node = NodeProcess("node", "--config", str(path))
    weight = quadruped_weight()
    posture = {"lf_hfe": 0.6, "lf_kfe": -1.2, "lh_hfe": 0.6, "lh_kfe": -1.2,
               "rf_hfe": 0.6, "rf_kfe": -1.2, "rh_hfe": 0.6, "rh_kfe": -1.2}
    commands = ros.create_publisher(Float64MultiArray, "/effort_controller/commands", 10)
    sent, running = [0], threading.Event()
    running.set()

    def pd(msg):
        # τ = kp (q₀ − q) − kd v, joints in the order of the message (the configured one).
        if not running.is_set():
            return
        tau = [200.0 * (posture.get(n, 0.0) - q) - 5.0 * v for n, q, v in zip(msg.name, msg.position, msg.velocity)]
        commands.publish(Float64MultiArray(data=tau))
        sent[0] += 1

    # The PD takes the newest state only (a backlog would feed it old states: a delayed PD
    # shakes the robot); every state is counted by a raw subscription (the executor thread
    # has little to spare at 1 kHz, so the kHz topics are read raw).
    controller = ros.create_subscription(JointState, "/joint_states", pd, RECENT_ONE)
    states = RawRecorder(ros, JointState, "/joint_states", cdr_stamp, EVERY)
    clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, EVERY)
    # The pace against the wall clock from the newest /clock only (the reliable recorders
    # queue up to 2 s when the executor falls behind: their receipt time lags).
    pace = RawRecorder(ros, Clock, "/clock", cdr_stamp, RECENT_ONE)
    odom = RawRecorder(ros, Odometry, "/odom", lambda d: cdr_doubles(d, 2, 3)[2])
    wrenches = {f: RawRecorder(ros, WrenchStamped, f"/signorini/contact_wrenches/{f}",
                               lambda d: (cdr_stamp(d), cdr_doubles(d, 1, 3)[2])) for f in FEET}
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    recorders = [states, clock, pace, odom, *wrenches.values(), diagnostics]
    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: sent[0] > 100, 20.0, "the rclpy PD's first commands")
        time.sleep(1.0)  # settled on the PD
        for r in recorders:
            r.clear()
        # The window in simulated time [t0, t1], from the newest /clock at each end; the
        # reliable recorders may lag (the executor thread has 8 kHz of callbacks on shared
        # cores): wait until each has reached t1, then read the window.
        wait_until(lambda: pace.snapshot(), 5.0, "/clock")
        time.sleep(10.5)
        received = pace.snapshot()
        t0, t1 = received[0][1], received[-1][1]

        def caught_up():
            last = [r.snapshot()[-1][1] if r.snapshot() else 0 for r in (clock, states)]
            last += [w.snapshot()[-1][1][0] if w.snapshot() else 0 for w in wrenches.values()]
            return min(last) >= t1

        wait_until(caught_up, 30.0, "the reliable recorders reaching the window's end")
        clocks = [c for _, c in clock.snapshot() if t0 <= c <= t1]
        stamps = [s for _, s in states.snapshot() if t0 <= s <= t1]
        heights = [z for _, z in odom.snapshot()]
        feet = [{t: f for _, (t, f) in w.snapshot() if t0 <= t <= t1} for w in wrenches.values()]
        windows = [v for _, (_, _, v) in diagnostics.snapshot()]
        assert node.alive()
    finally:
        running.clear()
        ros.destroy_subscription(controller)
        stop_all(ros, recorders, [commands], [node])

    assert all(b > a for a, b in zip(clocks, clocks[1:])), "/clock is strictly monotonic"
    span = t1 - t0
    assert span >= 10e9, f"{span * 1e-9} s simulated"
    steps = span // 1_000_000
    # Simulated against wall time over the window: the receiver's delay varies (rclpy on
    # loaded cores), so the offset of each end is the least over its first/last second,
    # min(received − sim time).
    first = min(r - c * 1e-9 for r, c in received if c <= t0 + 1e9)
    last = min(r - c * 1e-9 for r, c in received if c >= t1 - 1e9)
    wall = span * 1e-9 + last - first
    print(f"{len(clocks)} /clock and {len(stamps)} /joint_states for {steps} steps; {span * 1e-9:.2f} s simulated in {wall:.2f} s")
    published = {k: v for k, v in (windows[-1] if windows else {}).items() if k.startswith(("samples_", "publish_"))}
    assert len(clocks) >= 0.99 * steps, f"{len(clocks)} /clock for {steps} steps; the node: {published}"
    assert len(stamps) >= 0.99 * steps, f"{len(stamps)} /joint_states for {steps} steps"
    assert span * 1e-9 >= 0.99 * wall, f"{span * 1e-9:.2f} s simulated in {wall:.2f} s of wall time"
    assert heights and all(0.36 < z < 0.41 for z in heights), (min(heights), max(heights))
    common = set.intersection(*(set(f) for f in feet))
    assert len(common) >= 0.9 * steps, f"{len(common)} steps with all four feet"
    worst = max(abs(sum(f[s] for f in feet) - weight) for s in common)
    print(f"feet carry the weight within {worst / weight:.2e}")
    assert worst < 0.01 * weight, f"the feet's force is off the weight by {worst} N"
    assert windows and all(v["input_state"] == "fresh" for v in windows), "the rclpy PD's commands drove it"


def test_the_controller_shifts_the_quadrupeds_base_over_ros(ros, tmp_path):
    """Issue 8, test b (quadruped): sim and controller as two processes; a base pose
    reference on the controller's ~/base_reference moves the trunk 3 cm sideways (and
    back); the predicted foot forces agree with the simulated ones within 5 % of the
    weight (for the steps the controller's torque reached in time: 95 % at least)."""
    sim = NodeProcess("node", "--config", str(config(tmp_path, "sim.yaml", "quadruped.yaml")))
    control = NodeProcess("node", "--config", str(config(tmp_path, "control.yaml", "quadruped_control.yaml")),
                          "--ros-args", "-r", "__node:=signorini_controller")
    weight = quadruped_weight()
    # Nine kHz topics: read raw, and dropped rather than queued when the executor thread
    # falls behind (the newest /odom is then recent; forces are compared where both came).
    odom = RawRecorder(ros, Odometry, "/odom", lambda d: (cdr_stamp(d), *cdr_doubles(d, 2, 7)), RECENT)
    simulated = {f: RawRecorder(ros, WrenchStamped, f"/signorini/contact_wrenches/{f}",
                                lambda d: (cdr_stamp(d), cdr_doubles(d, 1, 3)[2]), RECENT) for f in FEET}
    predicted = {f: RawRecorder(ros, WrenchStamped, f"/signorini_controller/predicted_contact_wrenches/{f}",
                                lambda d: (cdr_stamp(d), cdr_doubles(d, 1, 3)[2]), RECENT) for f in FEET}
    base = ros.create_publisher(PoseStamped, "/signorini_controller/base_reference", 10)
    recorders = [odom, *simulated.values(), *predicted.values()]
    try:
        control.wait_for_line("signorini: controlling quadruped")
        wait_until(lambda: base.get_subscription_count() >= 1, 20.0, "the controller's base reference")
        wait_until(lambda: len(predicted["lf_foot"].snapshot()) > 500, 20.0, "the controller running")
        wait_until(lambda: odom.snapshot(), 20.0, "/odom")
        _, x0, y0, z0, qx, qy, qz, qw = odom.snapshot()[-1][1]

        def send(y):
            # The pose where the trunk stands, moved sideways.
            msg = PoseStamped()
            msg.header.frame_id = "world"
            msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = x0, y, z0
            o = msg.pose.orientation
            o.x, o.y, o.z, o.w = qx, qy, qz, qw
            base.publish(msg)

        for r in recorders:
            r.clear()
        # Ramp the reference 3 cm sideways in 1 s (100 poses), hold 1 s, back in 1 s.
        for k in range(101):
            send(y0 + 0.03 * k / 100)
            time.sleep(0.01)
        time.sleep(1.0)
        shifted = odom.snapshot()[-1][1][2] - y0
        for k in range(100, -1, -1):
            send(y0 + 0.03 * k / 100)
            time.sleep(0.01)
        time.sleep(1.0)
        back = odom.snapshot()[-1][1][2] - y0
        heights = [z for _, (_, _, _, z, *_) in odom.snapshot()]
        sims = [dict(v for _, v in r.snapshot()) for r in simulated.values()]
        preds = [dict(v for _, v in r.snapshot()) for r in predicted.values()]
        assert sim.alive() and control.alive()
    finally:
        stop_all(ros, recorders, [base], [control, sim])

    print(f"base shifted {shifted * 100:.2f} cm, back to {back * 100:.2f} cm")
    assert 0.025 < shifted < 0.035, f"the trunk moved {shifted} m sideways"
    assert abs(back) < 0.005, f"the trunk is {back} m from where it started"
    assert all(0.36 < z < 0.41 for z in heights), (min(heights), max(heights))
    pairs, close, worst = compare_predictions(FEET, sims, preds, weight)
    print(f"{close} of {pairs} predictions within 5 % of the weight of the simulated step (worst {worst:.1f} N)")
    assert pairs > 500, f"{pairs} predictions matched to a simulated step"
    assert close >= 0.99 * pairs, f"only {close} of {pairs} predictions within 5 % of the weight"


def arm_trajectory(names, start, amplitude, duration, stamp=None):
    """A JointTrajectory of `names` swinging by amplitude·sin(πt) around `start`, one point
    every 10 ms."""
    msg = JointTrajectory()
    msg.joint_names = names
    w = math.pi
    for k in range(int(duration / 0.01) + 1):
        t = k * 0.01
        p = JointTrajectoryPoint()
        p.positions = [s + amplitude * math.sin(w * t) for s in start]
        p.velocities = [amplitude * w * math.cos(w * t)] * len(names)
        p.accelerations = [-amplitude * w * w * math.sin(w * t)] * len(names)
        p.time_from_start = DurationMsg(sec=int(t), nanosec=int(round((t % 1) * 1e9)))
        msg.points.append(p)
    return msg


def track_arm(ros, topic_prefix, reference_topic, nodes):
    """Sends a 2 s trajectory of joint2 and joint4 (listed in that order) to the controller
    and records /joint_states; returns the RMS error of the two after the start-up, the
    largest deviation of the other joints from the posture, and the message count."""
    posture = {"joint2": 0.5, "joint4": -1.2, "joint6": 0.7}
    states = Recorder(ros, JointState, "/joint_states",
                      lambda m: (stamp_ns(m.header.stamp), dict(zip(m.name, m.position))))
    clock = Recorder(ros, Clock, "/clock", lambda m: stamp_ns(m.clock))
    reference = ros.create_publisher(JointTrajectory, reference_topic, 10)
    try:
        wait_until(lambda: reference.get_subscription_count() >= 1, 20.0, "the controller's reference")
        wait_until(lambda: clock.snapshot(), 20.0, "/clock")
        time.sleep(0.5)
        # Start 0.2 s of simulated time from now: the stamp is the start (sim time).
        start_ns = clock.snapshot()[-1][1] + 200_000_000
        msg = arm_trajectory(["joint4", "joint2"], [posture["joint4"], posture["joint2"]], 0.2, 2.0)
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(start_ns, 1_000_000_000)
        states.clear()
        reference.publish(msg)
        wait_until(lambda: states.snapshot() and states.snapshot()[-1][1][0] > start_ns + 2.2e9, 20.0,
                   "the trajectory's 2 s")
        samples = [s for _, s in states.snapshot()]
        assert all(n.alive() for n in nodes)
    finally:
        stop_all(ros, [states, clock], [reference])
    errors, others = [], 0.0
    for stamp, q in samples:
        t = (stamp - start_ns) * 1e-9
        if not 0.3 <= t <= 2.0:  # after the start-up transient, during the trajectory
            continue
        want = 0.2 * math.sin(math.pi * t)
        errors += [q["joint2"] - posture["joint2"] - want, q["joint4"] - posture["joint4"] - want]
        others = max(others, *(abs(q[j] - posture.get(j, 0.0)) for j in q if j not in ("joint2", "joint4")))
    rms = math.sqrt(sum(e * e for e in errors) / len(errors))
    return rms, others, len(errors) // 2


def test_the_controller_tracks_a_joint_trajectory_over_ros(ros, tmp_path):
    """Issue 8, test b (arm): sim and controller as two processes; a JointTrajectory of
    two joints, stamped to start on the simulated clock, on the controller's ~/reference:
    the simulated arm follows it and holds the other joints."""
    sim = NodeProcess("node", "--config", str(config(tmp_path, "arm.yaml", "arm7.yaml")))
    control = NodeProcess("node", "--config", str(config(tmp_path, "arm_control.yaml", "arm7_control.yaml")),
                          "--ros-args", "-r", "__node:=signorini_controller")
    try:
        control.wait_for_line("signorini: controlling arm7")
        rms, others, count = track_arm(ros, "/signorini_controller", "/signorini_controller/reference",
                                       [sim, control])
    finally:
        control.stop()
        sim.stop()
    print(f"two processes: RMS {rms:.2e} rad over {count} states, held joints within {others:.2e} rad")
    assert count > 500, f"{count} states during the trajectory"
    assert rms < 1e-3, f"RMS tracking error {rms} rad"
    assert others < 5e-3, f"the held joints moved {others} rad"


def test_sim_and_control_in_one_process(ros, tmp_path):
    """mode: sim+control: the arm simulated and controlled in one loop follows the same
    trajectory (sent on the node's ~/reference) more closely than over ROS (no transport
    delay); the quadruped stands, its predicted and simulated wrenches both published."""
    arm = NodeProcess("node", "--config", str(config(tmp_path, "arm_sc.yaml", "arm7_sim_control.yaml")))
    try:
        arm.wait_for_line("signorini: arm7")
        rms, others, count = track_arm(ros, "/signorini", "/signorini/reference", [arm])
    finally:
        code = arm.stop()
    print(f"one process: RMS {rms:.2e} rad over {count} states, held joints within {others:.2e} rad")
    assert code == 0, arm.output()
    assert count > 500 and rms < 1e-3 and others < 1e-3, (rms, others, count)

    weight = quadruped_weight()
    node = NodeProcess("node", "--config", str(config(tmp_path, "quad_sc.yaml", "quadruped_sim_control.yaml")))
    simulated = Recorder(ros, WrenchStamped, "/signorini/contact_wrenches/lf_foot", lambda m: m.wrench.force.z)
    predicted = Recorder(ros, WrenchStamped, "/signorini/predicted_contact_wrenches/lf_foot",
                         lambda m: m.wrench.force.z)
    odom = Recorder(ros, Odometry, "/odom", lambda m: m.pose.pose.position.z)
    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: len(odom.snapshot()) > 2000, 20.0, "2 s of /odom")
        heights = [z for _, z in odom.snapshot()[-1000:]]
        sims = [f for _, f in simulated.snapshot()[-1000:]]
        preds = [f for _, f in predicted.snapshot()[-1000:]]
    finally:
        stop_all(ros, [simulated, predicted, odom], [], [node])
    assert all(0.37 < z < 0.40 for z in heights), (min(heights), max(heights))
    # One foot carries about a quarter of the weight, predicted and simulated alike.
    for forces in (sims, preds):
        assert forces and all(0.15 * weight < f < 0.35 * weight for f in forces), (min(forces), max(forces))


def test_realtime_factor_max_runs_faster_than_the_wall_clock(ros, tmp_path):
    """sim.realtime_factor: max: the loop runs free, simulated time outruns the wall clock;
    with sim.publish_every the state is published every 10th step."""
    path = config(tmp_path, "max.yaml", "arm7.yaml", append="sim:\n  realtime_factor: max\n  publish_every: 10\n")
    node = NodeProcess("node", "--config", str(path))
    clock = Recorder(ros, Clock, "/clock", lambda m: stamp_ns(m.clock))
    try:
        node.wait_for_line("signorini: arm7")
        wait_until(lambda: len(clock.snapshot()) > 10, 20.0, "/clock")
        clock.clear()
        time.sleep(2.0)
        seen = clock.snapshot()
    finally:
        stop_all(ros, [clock], [], [node])
    (t0, c0), (t1, c1) = seen[0], seen[-1]
    factor = (c1 - c0) * 1e-9 / (t1 - t0)
    steps = {b - a for (_, a), (_, b) in zip(seen, seen[1:])}
    print(f"real-time factor {factor:.1f}; /clock steps {sorted(steps)[:3]} ns")
    assert factor > 2.0, f"simulated {factor:.2f} s per wall second"
    assert min(steps) == 10_000_000, "one /clock per 10 steps of 1 ms"


def test_external_wrenches_push_links_and_bodies_and_bad_ones_are_counted(ros, tmp_path):
    """~/external_wrench: 30 N sideways on the quadruped's trunk moves it sideways while
    applied and the feet hold it back (the simulated contact forces then have a sideways
    resultant of -30 N); a wrench on the crate (a free body) slides it; an unknown link
    and a NaN are rejected and counted on /diagnostics."""
    path = config(tmp_path, "push.yaml", "quadruped.yaml")
    node = NodeProcess("node", "--config", str(path))
    wrench = ros.create_publisher(WrenchStamped, "/signorini/external_wrench", 10)
    # kHz topics, read raw and dropped rather than queued: the newest sample is recent.
    odom = RawRecorder(ros, Odometry, "/odom", lambda d: cdr_doubles(d, 2, 3)[1], RECENT)
    crate = RawRecorder(ros, Odometry, "/crate/odom", lambda d: cdr_doubles(d, 2, 3)[0], RECENT)
    feet = {f: RawRecorder(ros, WrenchStamped, f"/signorini/contact_wrenches/{f}",
                           lambda d: (cdr_stamp(d), cdr_doubles(d, 1, 3)[1]), RECENT) for f in FEET}
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    recorders = [odom, crate, *feet.values(), diagnostics]

    def push(frame, fx=0.0, fy=0.0):
        msg = WrenchStamped()
        msg.header.frame_id = frame
        msg.wrench.force.x, msg.wrench.force.y = fx, fy
        wrench.publish(msg)

    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: wrench.get_subscription_count() >= 1, 20.0, "the node's wrench subscription")
        wait_until(lambda: odom.snapshot() and crate.snapshot(), 20.0, "/odom and /crate/odom")
        time.sleep(0.5)
        y0, x0 = odom.snapshot()[-1][1], crate.snapshot()[-1][1]
        push("base", fy=30.0)
        time.sleep(1.5)  # the posture PD's sway settles
        for f in feet.values():
            f.clear()
        time.sleep(0.5)
        pushed = odom.snapshot()[-1][1] - y0
        sideways = [dict(v for _, v in f.snapshot()) for f in feet.values()]
        push("base")  # a zero wrench removes it
        push("crate", fx=40.0)  # beyond the crate's friction (μ m g = 19.6 N): it slides
        wait_until(lambda: crate.snapshot()[-1][1] - x0 > 0.05, 5.0, "the crate sliding")
        push("crate")
        slid = crate.snapshot()[-1][1] - x0
        push("no_such_link", fx=1.0)
        push("base", fx=float("nan"))
        wait_until(lambda: any(int(v["external_wrenches_rejected_total"]) >= 2
                               for _, (_, _, v) in diagnostics.snapshot()), 5.0, "the rejected wrenches counted")
        assert node.alive()
    finally:
        stop_all(ros, recorders, [wrench], [node])
    print(f"trunk pushed {pushed * 1000:.1f} mm, crate slid {slid * 1000:.0f} mm")
    assert 0.0 < pushed < 0.05, f"the trunk moved {pushed} m under the push"
    common = set.intersection(*(set(s) for s in sideways))
    assert len(common) > 50
    # At rest under the push the feet hold it back: on average over the window (the trunk
    # still sways a little on its PD).
    mean = sum(sum(s[stamp] for s in sideways) for stamp in common) / len(common)
    assert abs(mean + 30.0) < 1.5, f"the feet resist the push with {mean} N"
    assert slid > 0.01, f"the crate slid {slid} m"


def test_contact_markers_at_most_30_hz(ros, tmp_path):
    """~/contact_markers: a MarkerArray per 1/30 s of simulated time: a DELETEALL then one
    arrow per loaded contact, from the foot along its force, in `world`."""
    node = NodeProcess("node", "--config", str(config(tmp_path, "markers.yaml", "quadruped.yaml")))
    markers = Recorder(ros, MarkerArray, "/signorini/contact_markers",
                       lambda m: [(mk.action, mk.type, mk.header.frame_id, stamp_ns(mk.header.stamp),
                                   [(p.x, p.y, p.z) for p in mk.points]) for mk in m.markers])
    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: len(markers.snapshot()) > 40, 20.0, "40 marker arrays")
        arrays = [a for _, a in markers.snapshot()]
    finally:
        stop_all(ros, [markers], [], [node])
    stamps = [a[0][3] for a in arrays]
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert min(gaps) >= 1e9 / 30 - 1_000_000, f"published every {min(gaps)} ns of simulated time"
    last = arrays[-1]
    assert last[0][0] == 3, "a DELETEALL first"
    arrows = [m for m in last[1:] if m[1] == 0]
    assert len(arrows) >= 8 and all(m[2] == "world" for m in arrows), "the feet's and the crate's"
    # From the ground up, 5 mm per newton: together the weight of the robot and the crate.
    assert all(start[2] < 0.01 and end[2] > start[2] for *_, (start, end) in arrows)
    carried = sum(end[2] - start[2] for *_, (start, end) in arrows) / 0.005
    weight = quadruped_weight() + 2.0 * 9.81
    assert abs(carried - weight) < 0.01 * weight, (carried, weight)


def test_the_controller_survives_bad_and_missing_states(ros, tmp_path):
    """Issue 8, test d (control mode): JointStates with extra joints are used, ones
    missing a configured joint or holding a NaN are rejected and counted, a bad trajectory
    is rejected and counted, and when the state stops the controller publishes its safe
    output (the arm's: gravity hold at the last state) and reports it; it resumes when
    states return. Nothing it publishes is NaN."""
    path = config(tmp_path, "arm_control.yaml", "arm7_control.yaml")
    node = NodeProcess("node", "--config", str(path))
    names = [f"joint{i}" for i in range(1, 8)]
    posture = [0.0, 0.5, 0.0, -1.2, 0.0, 0.7, 0.0]
    states = ros.create_publisher(JointState, "/joint_states", 10)
    reference = ros.create_publisher(JointTrajectory, "/signorini/reference", 10)
    commands = Recorder(ros, Float64MultiArray, "/effort_controller/commands", lambda m: list(m.data))
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    stop = threading.Event()
    mode = {"kind": "good"}

    def publish_states():
        t = 0
        while not stop.is_set():
            t += 1_000_000
            msg = JointState()
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(t, 1_000_000_000)
            kind = mode["kind"]
            if kind != "silent":
                msg.name = list(reversed(names)) + ["gripper_finger"]
                msg.position = list(reversed(posture)) + [0.01]
                # Moving: the controller's torques then differ from the gravity hold.
                msg.velocity = [0.2] * 8
                if kind == "missing":
                    msg.name, msg.position, msg.velocity = msg.name[1:], msg.position[1:], msg.velocity[1:]
                elif kind == "nan":
                    msg.position[2] = float("nan")
                states.publish(msg)
            time.sleep(0.002)

    feeder = threading.Thread(target=publish_states, daemon=True)
    try:
        node.wait_for_line("signorini: controlling arm7")
        wait_until(lambda: states.get_subscription_count() >= 1, 20.0, "the controller's state subscription")
        feeder.start()
        wait_until(lambda: len(commands.snapshot()) > 100, 10.0, "torques from good states (extra joint ignored)")
        mode["kind"] = "missing"
        time.sleep(0.3)
        mode["kind"] = "nan"
        time.sleep(0.3)
        bad = JointTrajectory(joint_names=["elbow"], points=[JointTrajectoryPoint(positions=[1.0])])
        reference.publish(bad)

        def counted():
            return any(int(v["states_rejected_total"]) >= 20 and int(v["references_rejected_total"]) >= 1
                       for _, (_, _, v) in diagnostics.snapshot())
        wait_until(counted, 5.0, "/diagnostics to count the rejected states and the trajectory")
        # Rejected states are no states: the controller's input went stale, and it said so.
        wait_until(lambda: any(v["input_state"] == "stale" and "gravity hold" in v["input_stale_output"]
                               for _, (_, _, v) in diagnostics.snapshot()), 5.0, "the stale state reported")
        commands.clear()
        mode["kind"] = "silent"
        time.sleep(0.5)
        silent = [c for _, c in commands.snapshot()]
        mode["kind"] = "good"
        wait_until(lambda: any(v["input_state"] == "fresh" for _, (_, _, v) in diagnostics.snapshot()[-1:]),
                   5.0, "the state fresh again")
        commands.clear()
        time.sleep(0.3)
        resumed = [c for _, c in commands.snapshot()]
        assert node.alive()
    finally:
        stop.set()
        stop_all(ros, [commands, diagnostics], [states, reference], [node])
    # Silent: the safe output, the gravity torques at the posture, steady.
    assert len(silent) > 100, f"{len(silent)} commands while the state was missing"
    model = pinocchio.buildModelFromUrdf(str(ROOT / "urdf" / "arm7.urdf"))
    q = pinocchio.neutral(model)
    for name, value in zip(names, posture):
        q[model.joints[model.getJointId(name)].idx_q] = value
    gravity = pinocchio.computeGeneralizedGravity(model, model.createData(), q)
    for c in silent[-50:]:
        assert all(abs(a - b) < 1e-6 for a, b in zip(c, gravity)), (c, list(gravity))
    # Controlling the moving arm is not holding it against gravity: the torques differ.
    assert resumed and all(max(abs(a - b) for a, b in zip(c, gravity)) > 0.1 for c in resumed[-50:]), \
        "the controller's torques again once states return"
    for c in silent + resumed:
        assert len(c) == 7 and all(math.isfinite(x) for x in c)

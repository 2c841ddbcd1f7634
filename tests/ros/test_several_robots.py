"""Several robots in one simulation (issue 25, item 3), with rclpy as the independent peer:
config/two_quadrupeds.yaml runs two quadrupeds side by side under the namespaces `a` and
`b`. Two rclpy PD controllers, each reading only its robot's /<ns>/joint_states and writing
only its /<ns>/effort_controller/commands, keep them standing (/<ns>/odom). Then they stop,
the simulator's own posture PD (`sim.hold_kp`, the fallback for stale commands) holds the
robots, and each base is pushed towards the other through the external wrench topic
(frames `a/base`, `b/base`, 150 N each): their legs meet and hold them apart instead of
passing through each other. The depth of the contacts between the two robots is measured
by the Rust test tests/sim_several_robots.rs (0.43 mm with the same push and PD); here the
bases' closest approach is checked against the same geometry.

Why not push against the rclpy PDs: a joint PD a period or more late is unstable on these
light legs under the push. In tests/sim_several_robots.rs's world, kp 200 and kd 5
delayed by 2 ms let the robots flail (bases 0.16 m apart), and no gains tried (kp 100 to
300, kd 0.5 to 5) held at 5 ms, a delay rclpy reaches on a loaded machine."""

import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from conftest import RECENT, RECENT_ONE, NodeProcess, RawRecorder, Recorder, cdr_doubles, diagnostic_values, wait_until

POSTURE = {"haa": 0.0, "hfe": 0.6, "kfe": -1.2}
KP, KD = 200.0, 5.0


class Pd:
    """A joint PD towards the standing posture on one namespace's topics only."""

    def __init__(self, ros, ns):
        self.pub = ros.create_publisher(Float64MultiArray, f"/{ns}/effort_controller/commands",
                                        QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE))
        self.sub = ros.create_subscription(JointState, f"/{ns}/joint_states", self.on_state, RECENT_ONE)
        self.sent = 0
        self.names = None
        self.stopped = False

    def on_state(self, msg):
        if self.stopped:
            return
        self.names = list(msg.name)
        reference = [POSTURE[n.split("_")[-1]] for n in msg.name]
        tau = [KP * (r - q) - KD * v for r, q, v in zip(reference, msg.position, msg.velocity)]
        self.pub.publish(Float64MultiArray(data=tau))
        self.sent += 1


def test_two_namespaced_quadrupeds_stand_under_their_own_pd_and_collide_without_passing_through(ros):
    node = NodeProcess("node", "--config", "config/two_quadrupeds.yaml")
    controllers = {ns: Pd(ros, ns) for ns in ("a", "b")}
    odom = {ns: RawRecorder(ros, Odometry, f"/{ns}/odom", lambda d: cdr_doubles(d, 2, 3), RECENT) for ns in ("a", "b")}
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    wrench = ros.create_publisher(WrenchStamped, "/signorini/external_wrench", 10)

    def push(frame, fy):
        msg = WrenchStamped()
        msg.header.frame_id = frame
        msg.wrench.force.y = fy
        wrench.publish(msg)

    def latest(ns):
        return odom[ns].snapshot()[-1][1]

    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: all(c.sent > 100 for c in controllers.values()), 30.0, "both PDs driving their robots")
        wait_until(lambda: wrench.get_subscription_count() >= 1, 20.0, "the node's wrench subscription")
        time.sleep(2.0)
        standing = {ns: latest(ns) for ns in ("a", "b")}
        accepted = max(int(v["commands_accepted_total"]) for _, (_, _, v) in diagnostics.snapshot())
        names = {ns: c.names for ns, c in controllers.items()}
        for c in controllers.values():
            c.stopped = True
        wait_until(lambda: diagnostics.snapshot()[-1][1][2]["input_state"] == "stale", 10.0,
                   "the simulator's posture PD taking over from the stopped controllers")
        push("a/base", 150.0)
        push("b/base", -150.0)
        closest, end = float("inf"), time.monotonic() + 1.5
        while time.monotonic() < end:
            closest = min(closest, latest("b")[1] - latest("a")[1])
            time.sleep(0.005)
        held = latest("b")[1] - latest("a")[1]
        push("a/base", 0.0)
        push("b/base", 0.0)
        assert node.alive()
    finally:
        for r in [*odom.values(), diagnostics]:
            ros.destroy_subscription(r.sub)
        for c in controllers.values():
            ros.destroy_subscription(c.sub)
            ros.destroy_publisher(c.pub)
        ros.destroy_publisher(wrench)
        code = node.stop()
    assert code == 0, node.output()
    print(f"standing bases {standing}; commands accepted {accepted}; pushed together: closest {closest:.4f} m, "
          f"{held:.4f} m apart at the end of the push")
    assert names["a"] == names["b"] and names["a"][0] == "lf_haa", "each namespace carries its URDF joint names"
    assert accepted > 200, f"only {accepted} effort commands accepted"
    for ns, (x, y, z) in standing.items():
        assert 0.36 < z < 0.40, f"robot {ns} is not standing: base at z = {z}"
        assert abs(abs(y) - 0.35) < 0.01, f"robot {ns} left its place: y = {y}"
    # Apart by 0.70 m, each pushed by more than its feet's friction holds: without contacts
    # between them they would pass through each other. The legs meet at 0.37 m (the Rust
    # test's 0.372 m closest approach, its contacts 0.43 mm deep at most).
    assert closest > 0.36, f"the bases came within {closest} m: the robots interpenetrate"
    assert closest < 0.45, f"the bases stayed {closest} m apart: the push did not bring the robots together"


def test_each_robots_sensors_publish_under_its_namespace(ros, tmp_path):
    """IMUs on each robot's base (`link: a/base`, `b/base`) publish on /a/imu/<name> and
    /b/imu/<name> (beside /a/odom, /b/odom), each measuring its own robot: standing, the
    accelerometer reads g up and the orientation equals that robot's odometry."""
    from sensor_msgs.msg import Imu
    from test_modes import config

    path = config(tmp_path, "two.yaml", "two_quadrupeds.yaml", append=(
        "sensors:\n  imu:\n    - {name: imu_a, link: a/base}\n    - {name: imu_b, link: b/base}\n"))
    node = NodeProcess("node", "--config", str(path))
    imus = {ns: Recorder(ros, Imu, f"/{ns}/imu/imu_{ns}", lambda m: (m.header.frame_id, m.linear_acceleration.z,
                                                                       m.orientation.w), RECENT) for ns in "ab"}
    try:
        node.wait_for_line("signorini:")
        wait_until(lambda: all(r.snapshot() for r in imus.values()), 20.0, "both IMUs")
        time.sleep(0.5)
        for ns, r in imus.items():
            frame, az, w = r.snapshot()[-1][1]
            print(f"/{ns}/imu/imu_{ns}: frame {frame}, a_z {az:.3f} m/s², orientation w {w:.6f}")
            assert frame == f"imu_{ns}"
            assert abs(az - 9.81) < 0.5 and abs(w) > 0.99, (ns, az, w)
        assert node.alive()
    finally:
        for r in imus.values():
            ros.destroy_subscription(r.sub)
        code = node.stop()
    assert code == 0, node.output()


def test_each_robot_takes_joint_state_commands_on_its_own_topic(ros, tmp_path):
    """JointStateTopicSystem per robot: /b/robot_joint_commands with b's URDF joint names
    (position interface for b's lf_haa) moves b's joint; a's stays."""
    from test_modes import config

    path = config(tmp_path, "two.yaml", "two_quadrupeds.yaml",
                  append="joint_commands:\n  interfaces: {b/lf_haa: position}\n"
                         "  position_gains: {b/lf_haa: {kp: 200, kd: 5}}\n")
    node = NodeProcess("node", "--config", str(path))
    command = ros.create_publisher(JointState, "/b/robot_joint_commands", 10)
    states = {ns: Recorder(ros, JointState, f"/{ns}/joint_states",
                           lambda m: dict(zip(m.name, m.position)), RECENT) for ns in "ab"}
    try:
        node.wait_for_line("signorini:")
        wait_until(lambda: command.get_subscription_count() >= 1, 20.0, "the node on /b/robot_joint_commands")
        deadline = time.time() + 3.0
        while time.time() < deadline:
            command.publish(JointState(name=["lf_haa"], position=[0.3]))
            time.sleep(0.05)
        b, a = states["b"].snapshot()[-1][1]["lf_haa"], states["a"].snapshot()[-1][1]["lf_haa"]
        print(f"after 3 s of /b/robot_joint_commands lf_haa 0.3: b {b:.4f} rad, a {a:.4f} rad")
        assert abs(b - 0.3) < 0.03 and abs(a) < 0.05, (a, b)
        assert node.alive()
    finally:
        ros.destroy_publisher(command)
        for r in states.values():
            ros.destroy_subscription(r.sub)
        code = node.stop()
    assert code == 0, node.output()

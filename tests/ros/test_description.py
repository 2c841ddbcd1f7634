"""The robot description from a topic (robot.description_topic), against rclpy publishing
std_msgs/String with robot_state_publisher's QoS (reliable, transient local, depth 1):
started before the node (transient local hands it over) and after it (the node waits), the
node runs exactly as from the URDF file; a changed URDF while running is ignored with a
warning; an empty or malformed text and a silent topic stop it with a one-line error."""

import time

import yaml
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from conftest import RELIABLE, ROOT, NodeProcess, Recorder, stamp_ns, wait_until

# As robot_state_publisher publishes /robot_description.
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
URDF = (ROOT / "urdf" / "quadruped.urdf").read_text()
# Each run is recorded until simulated time RECORD_UNTIL_S: a recorder's discovery of the
# node's publishers takes a variable part of the first second or two (volatile QoS: what
# was published before is not seen), so a fixed wall-clock window could leave two runs
# without a simulated time in common.
RECORD_UNTIL_S = 4.0


def config(tmp_path, name, description_topic=None, timeout=20):
    """config/quadruped.yaml publishing under /desc/ (the runs compared have the same
    topics), the URDF from the file or, with `description_topic`, from that topic only (no
    robot.urdf)."""
    c = yaml.safe_load((ROOT / "config" / "quadruped.yaml").read_text())
    if description_topic is None:
        c["robot"]["urdf"] = str(ROOT / "urdf" / "quadruped.urdf")
    else:
        del c["robot"]["urdf"]
        c["robot"]["description_topic"] = description_topic
        c["robot"]["description_timeout"] = timeout
    c["diagnostics"]["status_line"] = False
    c["topics"] = {"joint_states": "/desc/joint_states", "clock": "/desc/clock",
                   "diagnostics": "/desc/diagnostics", "odometry": "/desc/odom", "tf": ""}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(c))
    return path


def record(ros, start):
    """Starts the node by `start()` and records its /joint_states and /odom by stamp until
    both reached simulated time RECORD_UNTIL_S; returns (the start-up line, states by stamp,
    base poses by stamp, the node, its recorders)."""
    states = Recorder(ros, JointState, "/desc/joint_states",
                      lambda m: (stamp_ns(m.header.stamp), tuple(m.name),
                                 tuple(m.position), tuple(m.velocity), tuple(m.effort)))
    odom = Recorder(ros, Odometry, "/desc/odom",
                    lambda m: (stamp_ns(m.header.stamp), (m.pose.pose.position.x, m.pose.pose.position.y,
                                                          m.pose.pose.position.z, m.pose.pose.orientation.x,
                                                          m.pose.pose.orientation.y, m.pose.pose.orientation.z,
                                                          m.pose.pose.orientation.w)))
    node = start()
    try:
        node.wait_for_line("signorini: quadruped")
        until = int(RECORD_UNTIL_S * 1e9)
        wait_until(lambda: any(s[0] >= until for _, s in states.snapshot())
                   and any(stamp >= until for _, (stamp, _) in odom.snapshot()),
                   RECORD_UNTIL_S + 20.0, f"/desc/joint_states and /desc/odom up to {RECORD_UNTIL_S} s")
    finally:
        for r in (states, odom):
            r.recording = False
    banner = next(line for line in node.lines if line.startswith("signorini: quadruped"))
    by_stamp = {s[0]: s[1:] for _, s in states.snapshot()}
    poses = {stamp: pose for _, (stamp, pose) in odom.snapshot()}
    ros.destroy_subscription(states.sub)
    ros.destroy_subscription(odom.sub)
    return banner, by_stamp, poses, node


def assert_same_run(reference, run, origin):
    """Same start-up line but for where the URDF came from; identical joint states and base
    poses at every simulated time both recorded (the simulation is deterministic without
    inputs: same model, same steps)."""
    ref_banner, ref_states, ref_poses = reference
    banner, states, poses = run
    assert banner == ref_banner.replace(f"from {ROOT / 'urdf' / 'quadruped.urdf'}", f"from {origin}"), \
        (banner, ref_banner)
    common = sorted(set(ref_states) & set(states))
    assert len(common) >= 500, f"{len(common)} simulated times in both runs"
    for stamp in common:
        assert states[stamp] == ref_states[stamp], (stamp, states[stamp], ref_states[stamp])
    assert len(states[common[0]][0]) == 12
    common_poses = sorted(set(ref_poses) & set(poses))
    assert len(common_poses) >= 500, f"{len(common_poses)} base poses in both runs"
    for stamp in common_poses:
        assert poses[stamp] == ref_poses[stamp], (stamp, poses[stamp], ref_poses[stamp])
    return len(common), len(common_poses)


def from_file(ros, tmp_path):
    path = config(tmp_path, "desc_file")
    banner, states, poses, node = record(ros, lambda: NodeProcess("node", "--config", str(path)))
    assert node.stop() == 0, node.output()
    return banner, states, poses


def test_a_description_published_before_the_node_runs_it_as_the_file(ros, tmp_path):
    reference = from_file(ros, tmp_path)
    topic = "/desc_before/robot_description"
    path = config(tmp_path, "desc_before", topic)
    publisher = ros.create_publisher(String, topic, LATCHED)
    try:
        publisher.publish(String(data=URDF))
        time.sleep(0.5)
        banner, states, poses, node = record(ros, lambda: NodeProcess("node", "--config", str(path)))
        assert node.stop() == 0, node.output()
    finally:
        ros.destroy_publisher(publisher)
    pairs = assert_same_run(reference, (banner, states, poses), f"topic {topic}")
    print(f"published before the node: {pairs[0]} joint states and {pairs[1]} base poses identical to the file's")


def test_a_description_published_after_the_node_starts_runs_it_as_the_file_and_a_changed_one_is_ignored(
        ros, tmp_path):
    reference = from_file(ros, tmp_path)
    topic = "/desc_after/robot_description"
    path = config(tmp_path, "desc_after", topic)
    publisher, node = None, None

    def start():
        nonlocal node, publisher
        node = NodeProcess("node", "--config", str(path))
        node.wait_for_line(f"signorini: waiting for the URDF on {topic}")
        time.sleep(1.0)  # the node waits: nothing is published, nothing is built
        assert node.alive() and not any(line.startswith("signorini: quadruped") for line in node.lines)
        # The publisher appears now and publishes at once (before discovery has matched
        # it with the node: transient local keeps the message for the match).
        publisher = ros.create_publisher(String, topic, LATCHED)
        publisher.publish(String(data=URDF))
        return node

    try:
        banner, states, poses, node = record(ros, start)
        pairs = assert_same_run(reference, (banner, states, poses), f"topic {topic}")
        print(f"published after the node: {pairs[0]} joint states and {pairs[1]} base poses identical to the file's")

        # Running: the same text again passes silently, a changed one is ignored with a warning.
        warning = f"{topic}: a changed URDF arrived while running; ignored"
        publisher.publish(String(data=URDF))
        time.sleep(1.0)
        assert not any(warning in line for line in node.lines), node.output()
        publisher.publish(String(data=(ROOT / "urdf" / "arm7.urdf").read_text()))
        wait_until(lambda: any(warning in line for line in node.lines), 10.0, "the warning on the changed URDF")
        names = Recorder(ros, JointState, "/desc/joint_states", lambda m: len(m.name), RELIABLE)
        try:
            wait_until(lambda: names.snapshot(), 10.0, "/joint_states after the changed URDF")
        finally:
            ros.destroy_subscription(names.sub)
        assert {n for _, n in names.snapshot()} == {12}, "still the quadruped"
        assert node.alive()
    finally:
        if publisher is not None:
            ros.destroy_publisher(publisher)
        if node is not None:
            assert node.stop() == 0, node.output()


def test_the_parameter_wins_over_the_topic(tmp_path):
    """Precedence: the robot_description parameter, then the topic, then the file. With the
    parameter given the topic is not waited for."""
    path = config(tmp_path, "desc_param", "/desc_param/robot_description", timeout=1)
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"signorini": {"ros__parameters": {
        "config_file": str(path), "robot_description": (ROOT / "urdf" / "arm7.urdf").read_text()}}}))
    # quadruped.yaml's posture names quadruped joints: the arm needs its own.
    c = yaml.safe_load(path.read_text())
    c["robot"]["floating_base"] = False
    c["robot"]["initial_posture"] = {}
    c["sim"]["bodies"] = []
    c.pop("sensors", None)  # the quadruped's base IMU and feet
    path.write_text(yaml.safe_dump(c))
    node = NodeProcess("--ros-args", "--params-file", str(params))
    try:
        node.wait_for_line("signorini: arm7 (7 joints) from parameter robot_description")
        time.sleep(1.5)  # beyond the topic's timeout: nothing waits for it
        assert node.alive(), node.output()
        assert not any("waiting for the URDF" in line for line in node.lines), node.output()
    finally:
        assert node.stop() == 0, node.output()


def failed_start(path, expected):
    """The node of `path` exits with code 2 and one error line starting with `expected`,
    without a panic."""
    node = NodeProcess("node", "--config", str(path)).without_loop("it gets no usable URDF")
    node.proc.wait(30)
    node._reader.join(2)
    errors = [line for line in node.lines if line.startswith("signorini: error:")]
    assert node.proc.returncode == 2, node.output()
    assert len(errors) == 1 and errors[0].startswith(f"signorini: error: {expected}"), node.output()
    assert "panicked" not in node.output(), node.output()
    return errors[0]


def test_an_empty_or_malformed_description_is_a_one_line_error(ros, tmp_path):
    for name, text, expected in [
        ("desc_empty", "", "the URDF text is empty"),
        ("desc_blank", "  \n ", "the URDF text is empty"),
        ("desc_malformed", "<robot name='broken'><link name='a'>", "not a valid URDF: "),
    ]:
        topic = f"/{name}/robot_description"
        publisher = ros.create_publisher(String, topic, LATCHED)
        try:
            publisher.publish(String(data=text))
            failed_start(config(tmp_path, name, topic), f"topic {topic}: {expected}")
        finally:
            ros.destroy_publisher(publisher)


def test_no_description_within_the_timeout_is_a_one_line_error(tmp_path):
    topic = "/desc_silent/robot_description"
    start = time.monotonic()
    line = failed_start(config(tmp_path, "desc_silent", topic, timeout=1), f"no URDF on {topic} within 1 s")
    assert line.endswith("(robot.description_timeout): is a publisher such as robot_state_publisher running, "
                         "with reliable, transient local QoS?"), line
    assert time.monotonic() - start < 15.0


def test_sigint_while_waiting_ends_the_node_cleanly(tmp_path):
    """Ctrl-C (SIGINT, as `ros2 launch` sends it) while the node waits for its URDF: it says
    so in one line and exits with 0, nothing having been started."""
    topic = "/desc_interrupted/robot_description"
    node = NodeProcess("node", "--config", str(config(tmp_path, "desc_interrupted", topic, timeout=30)))
    node.without_loop("it is interrupted while waiting for its URDF")
    node.wait_for_line("signorini: waiting for the URDF", timeout=30)
    code = node.stop(timeout=10)
    assert code == 0, node.output()
    assert f"signorini: interrupted while waiting for the URDF on {topic}" in node.output(), node.output()

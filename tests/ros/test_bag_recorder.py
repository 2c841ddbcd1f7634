"""Issue 8, test c: an rclpy recorder (tests/ros/record_bag.py, a separate process)
subscribes raw to the simulator's clock, joint-state and contact-wrench topics and writes
a rosbag2 with `rosbags`; the bag reads back (rosbags, and the mcap readers from the
schemas in the file) with simulated-time stamps and the values the node published, as a
deserializing rclpy subscriber received them."""

import subprocess
import sys
import time

from geometry_msgs.msg import WrenchStamped
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore
from sensor_msgs.msg import JointState

from conftest import ROOT, NodeProcess, Recorder, stamp_ns, wait_until

TOPICS = {
    "/clock": "rosgraph_msgs/msg/Clock",
    "/joint_states": "sensor_msgs/msg/JointState",
    "/signorini/contact_wrenches/lf_foot": "geometry_msgs/msg/WrenchStamped",
    "/signorini/contact_wrenches/rh_foot": "geometry_msgs/msg/WrenchStamped",
}


def test_an_rclpy_recorder_writes_a_bag_that_reads_back_with_sim_time_and_the_published_values(ros, tmp_path):
    node = NodeProcess("node", "--config", "config/quadruped.yaml")
    # What a deserializing rclpy subscriber receives, to compare the bag with.
    states = Recorder(ros, JointState, "/joint_states",
                      lambda m: (stamp_ns(m.header.stamp), list(m.name), list(m.position), list(m.velocity),
                                 list(m.effort)))
    foot = Recorder(ros, WrenchStamped, "/signorini/contact_wrenches/lf_foot",
                    lambda m: (stamp_ns(m.header.stamp), m.header.frame_id,
                               (m.wrench.force.x, m.wrench.force.y, m.wrench.force.z),
                               (m.wrench.torque.x, m.wrench.torque.y, m.wrench.torque.z)))
    bag = tmp_path / "recorded"
    recorder = None
    try:
        node.wait_for_line("signorini: quadruped")
        wait_until(lambda: states.snapshot() and foot.snapshot(), 20.0, "/joint_states and the foot's wrench")
        recorder = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "ros" / "record_bag.py"), str(bag), "2.0",
             *(f"{t}:{m}" for t, m in TOPICS.items())],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, _ = recorder.communicate(timeout=60)
        assert recorder.returncode == 0, out
        time.sleep(0.2)
        received_states = {s[0]: s for _, s in states.snapshot()}
        received_foot = {f[0]: f for _, f in foot.snapshot()}
        assert node.alive()
    finally:
        if recorder and recorder.poll() is None:
            recorder.kill()
        ros.destroy_subscription(states.sub)
        ros.destroy_subscription(foot.sub)
        assert node.stop() == 0, node.output()
    counts = {line.split()[0]: int(line.split()[1]) for line in out.splitlines() if line.startswith("/")}
    print(counts)
    assert all(counts[t] > 500 for t in TOPICS), f"recorded in 2 s: {counts}"

    store = get_typestore(Stores.ROS2_JAZZY)
    read = {t: [] for t in TOPICS}
    with Reader(bag) as reader:
        assert {c.topic: c.msgtype for c in reader.connections} == TOPICS
        for conn, log_time, raw in reader.messages():
            read[conn.topic].append((log_time, store.deserialize_cdr(raw, conn.msgtype)))
    assert {t: len(m) for t, m in read.items()} == counts

    # Simulated time: /clock advances one step per message, every message is logged at
    # its stamp, and the stamps are /clock's.
    clocks = [m.clock.sec * 10**9 + m.clock.nanosec for _, m in read["/clock"]]
    assert all(b - a == 1_000_000 for a, b in zip(clocks, clocks[1:])), "every step, in order"
    assert all(t == c for (t, _), c in zip(read["/clock"], clocks))
    for topic in list(TOPICS)[1:]:
        stamps = [m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for _, m in read[topic]]
        assert [t for t, _ in read[topic]] == stamps, f"{topic}: logged at its sim-time stamp"
        # The recorder's subscriptions start (and stop) at slightly different times: a
        # topic's first or last messages may precede or follow the recorded /clock.
        steps = set(clocks) | {clocks[0] - k * 1_000_000 for k in range(1, 50)} | \
            {clocks[-1] + k * 1_000_000 for k in range(1, 50)}
        assert set(stamps) <= steps, topic

    # The values are those the node published, as rclpy deserialized them: exactly.
    compared = 0
    for _, m in read["/joint_states"]:
        t = m.header.stamp.sec * 10**9 + m.header.stamp.nanosec
        if t in received_states:
            _, names, position, velocity, effort = received_states[t]
            assert (list(m.name), list(m.position), list(m.velocity), list(m.effort)) == \
                (names, position, velocity, effort), t
            compared += 1
    for _, m in read["/signorini/contact_wrenches/lf_foot"]:
        t = m.header.stamp.sec * 10**9 + m.header.stamp.nanosec
        if t in received_foot:
            _, frame, force, torque = received_foot[t]
            f, q = m.wrench.force, m.wrench.torque
            assert (m.header.frame_id, (f.x, f.y, f.z), (q.x, q.y, q.z)) == (frame, force, torque), t
            compared += 1
    print(f"{compared} messages compared with rclpy's")
    assert compared > 500

    # The second reader, from the schemas stored in the MCAP file.
    mcaps = list(bag.glob("*.mcap"))
    assert len(mcaps) == 1
    with open(mcaps[0], "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        decoded = [(m.log_time, d) for _, _, m, d in reader.iter_decoded_messages(topics=["/joint_states"])]
    assert [t for t, _ in decoded] == [t for t, _ in read["/joint_states"]]
    assert [list(d.position) for _, d in decoded] == [list(m.position) for _, m in read["/joint_states"]]

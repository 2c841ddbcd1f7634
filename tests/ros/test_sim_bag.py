"""`signorini sim --bag` writes a rosbag2 MCAP file that two independent readers decode
(`rosbags` and `mcap-ros2-support`), with the values the simulator reported."""

import json
import math
import subprocess

import pinocchio
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore

from conftest import ROOT, binary

STEPS = 500


def run_sim(tmp_path):
    bag, summary = tmp_path / "run.mcap", tmp_path / "summary.json"
    subprocess.run([binary(), "sim", "--config", "config/quadruped.yaml", "--duration", str(STEPS / 1000),
                    "--bag", str(bag), "--json", str(summary)], cwd=ROOT, check=True, capture_output=True)
    return bag, json.loads(summary.read_text())


def test_the_bag_is_read_back_by_rosbags_and_mcap(tmp_path):
    bag, summary = run_sim(tmp_path)
    assert summary["steps"] == STEPS
    store = get_typestore(Stores.ROS2_JAZZY)
    last, counts, stamps = {}, {}, {}
    with Reader(bag) as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        assert types["/clock"] == "rosgraph_msgs/msg/Clock"
        assert types["/joint_states"] == "sensor_msgs/msg/JointState"
        assert types["/odom"] == types["/crate/odom"] == "nav_msgs/msg/Odometry"
        assert types["/signorini/contact_wrenches/lf_foot"] == "geometry_msgs/msg/WrenchStamped"
        for conn, t, raw in reader.messages():
            msg = store.deserialize_cdr(raw, conn.msgtype)
            counts[conn.topic] = counts.get(conn.topic, 0) + 1
            last[conn.topic] = msg
            if conn.topic == "/clock":
                stamps.setdefault("/clock", []).append(msg.clock.sec * 10**9 + msg.clock.nanosec)
                assert t == stamps["/clock"][-1], "log time = sim time"
    assert all(counts[topic] == STEPS for topic in types), counts
    assert stamps["/clock"] == [k * 1_000_000 for k in range(1, STEPS + 1)]

    # The robot's final state is the one the summary reports.
    base = last["/odom"].pose.pose.position
    assert [base.x, base.y, base.z] == summary["final_base_position"]
    q = last["/odom"].pose.pose.orientation
    assert abs(q.x**2 + q.y**2 + q.z**2 + q.w**2 - 1.0) < 1e-12
    model = pinocchio.buildModelFromUrdf(str(ROOT / "urdf" / "quadruped.urdf"))
    assert list(last["/joint_states"].name) == list(model.names)[1:]
    assert all(math.isfinite(x) for x in last["/joint_states"].position)

    # The feet carry the robot: Σ normal contact force = m g (it stands still at the end).
    mass = sum(i.mass for i in model.inertias)
    feet = sum(last[f"/signorini/contact_wrenches/{leg}_foot"].wrench.force.z for leg in ("lf", "lh", "rf", "rh"))
    assert abs(feet - mass * 9.81) < 0.01 * mass * 9.81, (feet, mass * 9.81)
    assert last["/signorini/contact_wrenches/base"].wrench.force.z == 0.0, "the trunk touches nothing"

    # The second reader decodes from the schemas stored in the file.
    with open(bag, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        crate = [(m.log_time, decoded) for _, _, m, decoded in reader.iter_decoded_messages(topics=["/crate/odom"])]
    assert len(crate) == STEPS
    log_time, odom = crate[-1]
    p = odom.pose.pose.position
    assert abs(p.z - 0.1) < 1e-6 and abs(p.x - 0.8) < 1e-6, "the crate rests where it was put"
    assert odom.child_frame_id == "crate"
    assert log_time == STEPS * 1_000_000

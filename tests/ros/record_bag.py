"""An rclpy rosbag recorder, the independent peer of the bag test: subscribes raw (no
deserialization: the bytes on the wire) to the given topics and writes them with
`rosbags` into a rosbag2 (MCAP storage), each message logged at its simulated time (its
header stamp; /clock's own time), as `ros2 bag record --use-sim-time` would.

  python tests/ros/record_bag.py OUT_DIR SECONDS TOPIC:TYPE ...   (TYPE: pkg/msg/Name)

Prints "recording" once every subscription is matched to a publisher, then records for
SECONDS of wall time and prints one line per topic: "TOPIC COUNT".
"""

import importlib
import struct
import sys
import threading
import time

import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore


def sim_time(data):
    """Header stamp (or /clock's time) of a serialized message: after the 4-byte CDR
    encapsulation, int32 sec and uint32 nanosec."""
    sec, nanosec = struct.unpack_from("<iI", data, 4)
    return sec * 1_000_000_000 + nanosec


def main():
    out, seconds, specs = sys.argv[1], float(sys.argv[2]), [a.split(":") for a in sys.argv[3:]]
    rclpy.init()
    node = rclpy.create_node("signorini_test_bag_recorder")
    store = get_typestore(Stores.ROS2_JAZZY)
    lock, queue, counts = threading.Lock(), [], {topic: 0 for topic, _ in specs}
    subscriptions = []
    for topic, msgtype in specs:
        package, _, name = msgtype.split("/")
        cls = getattr(importlib.import_module(f"{package}.msg"), name)

        def on(data, topic=topic):
            with lock:
                queue.append((topic, sim_time(data), bytes(data)))

        qos = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
        subscriptions.append(node.create_subscription(cls, topic, on, qos, raw=True))
    deadline = time.monotonic() + 30.0
    while any(node.count_publishers(topic) == 0 for topic, _ in specs):
        if time.monotonic() > deadline:
            sys.exit("no publisher for " + ", ".join(t for t, _ in specs if node.count_publishers(t) == 0))
        rclpy.spin_once(node, timeout_sec=0.05)
    print("recording", flush=True)
    with Writer(out, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        connections = {topic: writer.add_connection(topic, msgtype, typestore=store) for topic, msgtype in specs}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.01)
            with lock:
                batch, queue[:] = list(queue), []
            for topic, stamp, data in batch:
                writer.write(connections[topic], stamp, data)
                counts[topic] += 1
    for topic, count in counts.items():
        print(topic, count, flush=True)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()

"""Entities of the standard simulator API (simulation_interfaces, issue 25 item 2), with rclpy
clients of the generated package as the independent peer, against the node simulating the
quadruped and its crate (config/quadruped.yaml):

- GetEntities lists the robot, its links, the crate and the ground, filtered by a POSIX
  extended expression and by category;
- GetEntityState of the quadruped's base equals /odom of the same stamp to 1e-12 (the
  twist rotated from /odom's body frame to world axes);
- SetEntityState puts the crate 1 m up at rest: it falls and lands (its first upward
  impulse, seen on /crate/odom) after sqrt(2·1/g) within one step;
- bad requests (unknown entity, NaN pose, a link, a malformed expression, tags) get the
  standard error naming what is wrong, are counted on /diagnostics, and the simulation
  plays on.
"""

import math
import time

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from simulation_interfaces.msg import EntityCategory, EntityFilters, EntityState, Result, SimulationState
from simulation_interfaces.srv import (
    GetEntities, GetEntitiesStates, GetEntityState, SetEntityState, SetSimulationState, StepSimulation,
)

from conftest import (
    RELIABLE,
    NodeProcess,
    RawRecorder,
    Recorder,
    call,
    cdr_doubles,
    cdr_stamp,
    diagnostic_values,
    wait_until,
)
from test_modes import config
from test_simulation_interfaces import SETTLE

NS = "/signorini"
G = 9.81
DT = 1e-3


def odometry(data):
    """(stamp, pose: position and quaternion x y z w, twist: linear and angular in the body
    frame)."""
    d = cdr_doubles(data, 2, 49)
    return cdr_stamp(data), d[:7], d[43:49]


def rotation(x, y, z, w):
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


class Peer:
    def __init__(self, ros):
        self.ros = ros
        self.entities = ros.create_client(GetEntities, f"{NS}/get_entities")
        self.get = ros.create_client(GetEntityState, f"{NS}/get_entity_state")
        self.get_all = ros.create_client(GetEntitiesStates, f"{NS}/get_entities_states")
        self.set_entity = ros.create_client(SetEntityState, f"{NS}/set_entity_state")
        self.set_state = ros.create_client(SetSimulationState, f"{NS}/set_simulation_state")
        self.step = ros.create_client(StepSimulation, f"{NS}/step_simulation")
        self.clients = [self.entities, self.get, self.get_all, self.set_entity, self.set_state, self.step]
        self.clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, RELIABLE)
        self.odom = RawRecorder(ros, Odometry, "/odom", odometry, RELIABLE)
        self.crate = RawRecorder(ros, Odometry, "/crate/odom", odometry, RELIABLE)
        self.diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)

    def destroy(self):
        for c in self.clients:
            self.ros.destroy_client(c)
        for r in [self.clock, self.odom, self.crate, self.diagnostics]:
            self.ros.destroy_subscription(r.sub)

    def names(self, pattern="", categories=()):
        filters = EntityFilters(filter=pattern, categories=[EntityCategory(category=c) for c in categories])
        answer = call(self.entities, GetEntities.Request(filters=filters))
        assert answer.result.result == Result.RESULT_OK, answer
        return list(answer.entities)

    def state(self, name):
        answer = call(self.get, GetEntityState.Request(entity=name))
        assert answer.result.result == Result.RESULT_OK, answer
        return answer.state

    def set(self, name, position, orientation=(0.0, 0.0, 0.0, 1.0)):
        state = EntityState()
        state.pose.position.x, state.pose.position.y, state.pose.position.z = map(float, position)
        o = state.pose.orientation
        o.x, o.y, o.z, o.w = map(float, orientation)
        return call(self.set_entity, SetEntityState.Request(entity=name, state=state)).result

    def simulation(self, state):
        return call(self.set_state, SetSimulationState.Request(state=SimulationState(state=state))).result

    def steps(self, n):
        return call(self.step, StepSimulation.Request(steps=n), timeout=30.0).result

    def refused_total(self):
        items = self.diagnostics.snapshot()
        return int(items[-1][1][2]["simulation_requests_refused_total"]) if items else None


@pytest.fixture(scope="module")
def peer(ros, tmp_path_factory):
    path = config(tmp_path_factory.mktemp("entities"), "quadruped.yaml", "quadruped.yaml")
    node = NodeProcess("node", "--config", str(path))
    peer = Peer(ros)
    try:
        node.wait_for_line("signorini: quadruped")
        for client in peer.clients:
            assert client.wait_for_service(timeout_sec=20.0), client.srv_name
        wait_until(lambda: peer.clock.snapshot() and peer.odom.snapshot(), 20.0, "/clock and /odom")
        peer.node = node
        yield peer
        assert node.alive(), node.output()
    finally:
        peer.destroy()
        code = node.stop()
        assert code == 0, f"exit code {code}:\n{node.output()}"


def stamp(header):
    return header.stamp.sec * 1_000_000_000 + header.stamp.nanosec


def test_get_entities_lists_and_filters(peer):
    names = peer.names()
    robot = names[0]
    print(f"{len(names)} entities: {names}")
    assert f"{robot}/lf_foot" in names and "crate" in names and "ground" in names
    assert len(set(names)) == len(names)
    assert sorted(peer.names("_foot$")) == sorted(f"{robot}/{leg}_foot" for leg in ["lf", "lh", "rf", "rh"])
    assert peer.names(categories=[EntityCategory.CATEGORY_OBJECT]) == ["crate"]
    assert peer.names(categories=[EntityCategory.CATEGORY_STATIC_OBJECT]) == ["ground"]
    assert peer.names("^(crate|ground)$", [EntityCategory.CATEGORY_OBJECT, EntityCategory.CATEGORY_STATIC_OBJECT]) \
        == ["crate", "ground"]
    every = call(peer.get_all, GetEntitiesStates.Request(filters=EntityFilters(filter="^crate$")))
    assert every.result.result == Result.RESULT_OK and list(every.entities) == ["crate"], every
    assert abs(every.states[0].pose.position.x - 0.8) < 0.05


def test_the_base_state_equals_odom_at_the_same_stamp(peer):
    assert peer.simulation(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    robot = peer.names()[0]
    worst = 0.0
    for _ in range(5):
        assert peer.steps(7).result == Result.RESULT_OK
        time.sleep(0.05)
        s = peer.state(robot)
        t = stamp(s.header)
        odom = {ns: (pose, twist) for _, (ns, pose, twist) in peer.odom.snapshot()}
        assert t in odom, f"no /odom at {t}"
        pose, twist = odom[t]
        got = [s.pose.position.x, s.pose.position.y, s.pose.position.z,
               s.pose.orientation.x, s.pose.orientation.y, s.pose.orientation.z, s.pose.orientation.w]
        r = rotation(*pose[3:7])
        world = np.concatenate([r @ np.array(twist[:3]), r @ np.array(twist[3:])])
        got_twist = [s.twist.linear.x, s.twist.linear.y, s.twist.linear.z,
                     s.twist.angular.x, s.twist.angular.y, s.twist.angular.z]
        assert s.header.frame_id == "world"
        worst = max(worst, max(abs(a - b) for a, b in zip(got, pose)),
                    max(abs(a - b) for a, b in zip(got_twist, world)))
    print(f"GetEntityState({robot}) vs /odom at the same stamp: largest difference {worst:.1e}")
    assert worst <= 1e-12, worst


def test_a_crate_set_one_metre_up_lands_after_sqrt_2h_over_g(peer):
    assert peer.simulation(SimulationState.STATE_PAUSED).result in (
        Result.RESULT_OK, SetSimulationState.Response.ALREADY_IN_TARGET_STATE)
    # The crate is a 0.2 m box: its bottom 1 m above the ground.
    assert peer.set("crate", (0.8, 0.0, 1.1)).result == Result.RESULT_OK
    start = peer.state("crate")
    t0 = stamp(start.header)
    assert (start.pose.position.z, start.twist.linear.z) == (1.1, 0.0)
    before = len(peer.crate.snapshot())
    assert peer.steps(700).result == Result.RESULT_OK
    time.sleep(SETTLE)
    samples = [m for _, m in peer.crate.snapshot()[before:]]
    assert [ns for ns, _, _ in samples] == [t0 + k * 1_000_000 for k in range(1, 701)], "every step's /crate/odom"
    velocity = [twist[2] for _, _, twist in samples]
    landing = next(k for k in range(1, len(velocity)) if velocity[k] > velocity[k - 1])
    landed = (samples[landing][0] - t0) * 1e-9
    expected = math.sqrt(2 * 1.0 / G)
    print(f"crate set 1 m up: first upward impulse after {landed:.4f} s; sqrt(2h/g) = {expected:.4f} s")
    assert abs(landed - expected) <= DT, (landed, expected)
    rest = peer.state("crate")
    assert abs(rest.pose.position.z - 0.1) < 2e-3 and abs(rest.twist.linear.z) < 1e-3, rest
    assert peer.simulation(SimulationState.STATE_PLAYING).result == Result.RESULT_OK


def test_bad_entity_requests_get_the_standard_error_are_counted_and_the_simulation_plays_on(peer):
    assert peer.simulation(SimulationState.STATE_PLAYING).result in (
        Result.RESULT_OK, SetSimulationState.Response.ALREADY_IN_TARGET_STATE)
    wait_until(lambda: peer.refused_total() is not None, 5.0, "/diagnostics")
    before = peer.refused_total()
    robot = peer.names()[0]
    bad_filter = call(peer.entities, GetEntities.Request(filters=EntityFilters(filter="(")))
    tags = EntityFilters()
    tags.tags.tags = ["red"]
    answers = {
        "GetEntityState of an unknown entity": (
            call(peer.get, GetEntityState.Request(entity="nothing")).result, Result.RESULT_NOT_FOUND, '"nothing"'),
        "SetEntityState of an unknown entity": (peer.set("nothing", (0, 0, 1)), Result.RESULT_NOT_FOUND, '"nothing"'),
        "a NaN pose": (peer.set("crate", (math.nan, 0, 1)), SetEntityState.Response.INVALID_POSE, "finite"),
        "not a unit quaternion": (peer.set("crate", (0.8, 0, 1), (0, 0, 0, 3)), SetEntityState.Response.INVALID_POSE,
                                  "unit quaternion"),
        "a link": (peer.set(f"{robot}/lf_foot", (0, 0, 1)), Result.RESULT_OPERATION_FAILED, "follows its joints"),
        "a malformed expression": (bad_filter.result, Result.RESULT_OPERATION_FAILED, "POSIX"),
        "a tag filter": (call(peer.entities, GetEntities.Request(filters=tags)).result,
                         Result.RESULT_FEATURE_UNSUPPORTED, "tag"),
    }
    for what, (answer, code, words) in answers.items():
        print(f"{what}: result {answer.result}, {answer.error_message!r}")
        assert answer.result == code, (what, answer)
        assert words in answer.error_message, (what, answer)
    wait_until(lambda: peer.refused_total() >= before + len(answers), 5.0, "the refusals on /diagnostics")
    assert peer.refused_total() == before + len(answers)
    n = len(peer.clock.snapshot())
    time.sleep(SETTLE)
    assert len(peer.clock.snapshot()) - n > 100, "the simulation plays on"
    assert peer.node.alive()

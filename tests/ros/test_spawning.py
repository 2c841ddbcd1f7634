"""Spawning and deleting free bodies while the simulation plays (simulation_interfaces,
issue 25 item 2), with rclpy clients of the generated package as the independent peer,
against the node simulating the quadruped with `simulation_interfaces.spawn_capacity: 3`:

- SpawnEntity of a URDF cube at 0.5 m: RESULT_OK with its name; its frame on /tf falls and
  comes to rest on the ground at its half side, 0.1 m (2 mm);
- SpawnEntities: a taken name without renaming fails with NAME_NOT_UNIQUE, with renaming
  it gets a generated name; the whole answers ENTITIES_SPAWN_FAILED with both results;
- bad requests (malformed URDF, a NaN pose, a spawn beyond the capacity, an unknown entity
  on delete) get the standard codes with a message naming what is wrong, are counted on
  /diagnostics (`simulation_requests_refused_total`), and the simulation plays on;
- DeleteEntity removes one (its frame leaves /tf); ResetSimulation SCOPE_SPAWNED removes
  the rest (a delete of them then answers RESULT_NOT_FOUND); the configured crate stays;
- each reset scope touches only what it names: TIME puts time back and leaves a spawned
  body where it lies, STATE puts it back at its spawn pose and leaves time, SPAWNED removes
  it and leaves time and the pushed crate (GetEntities, GetEntityState).
"""

import math
import time

import pytest
from diagnostic_msgs.msg import DiagnosticArray
from rosgraph_msgs.msg import Clock
from simulation_interfaces.msg import Result, SpawnEntity as SpawnRequestMsg
from simulation_interfaces.srv import DeleteEntity, ResetSimulation, SpawnEntities, SpawnEntity

from conftest import (
    RELIABLE,
    NodeProcess,
    RawRecorder,
    Recorder,
    answered,
    call,
    cdr_stamp,
    diagnostic_values,
    wait_until,
)
from test_modes import config

tf2_msgs = pytest.importorskip("tf2_msgs.msg")

NS = "/signorini"
CUBE = """<robot name="cube"><link name="cube">
  <inertial><mass value="1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
  <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>"""


def spawn_fields(msg, name, x, y, z, urdf=CUBE, renaming=False):
    msg.name = name
    msg.allow_renaming = renaming
    msg.initial_pose.header.frame_id = "world"
    msg.initial_pose.pose.position.x, msg.initial_pose.pose.position.y = x, y
    msg.initial_pose.pose.position.z = z
    msg.initial_pose.pose.orientation.w = 1.0
    if hasattr(msg, "resource_string"):
        msg.resource_string = urdf
    else:
        msg.entity_resource.resource_string = urdf
    return msg


def frames(msg):
    return {t.child_frame_id: t.transform.translation.z for t in msg.transforms}


@pytest.fixture(scope="module")
def node(ros, tmp_path_factory):
    path = config(tmp_path_factory.mktemp("spawn"), "quadruped.yaml", "quadruped.yaml",
                  append="\nsimulation_interfaces:\n  spawn_capacity: 3\n")
    process = NodeProcess("node", "--config", str(path))
    try:
        process.wait_for_line("signorini: quadruped")
        yield process
        assert process.alive(), process.output()
    finally:
        code = process.stop()
        assert code == 0, f"exit code {code}:\n{process.output()}"


def test_spawn_delete_and_reset_spawned_while_playing(ros, node):
    spawn = ros.create_client(SpawnEntity, f"{NS}/spawn_entity")
    spawn_all = ros.create_client(SpawnEntities, f"{NS}/spawn_entities")
    delete = ros.create_client(DeleteEntity, f"{NS}/delete_entity")
    reset = ros.create_client(ResetSimulation, f"{NS}/reset_simulation")
    tf = Recorder(ros, tf2_msgs.TFMessage, "/tf", frames, RELIABLE)
    clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, RELIABLE)
    diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)
    refused = lambda: int(diagnostics.snapshot()[-1][1][2]["simulation_requests_refused_total"])
    try:
        # Probes (see `answered`): two refused without effect (counted on /diagnostics),
        # two with nothing to act on yet.
        probes = answered(spawn, SpawnEntity.Request(uri="probe://none")) \
            + answered(delete, DeleteEntity.Request(entity="ghost"))
        answered(spawn_all, SpawnEntities.Request(spawn_requests=[]))
        answered(reset, ResetSimulation.Request(scope=ResetSimulation.Request.SCOPE_SPAWNED))

        def z_of(name):
            seen = [f[name] for _, f in tf.snapshot() if name in f]
            return seen[-1] if seen else None

        answer = call(spawn, spawn_fields(SpawnEntity.Request(), "box", 1.6, 0.0, 0.5))
        assert answer.result.result == Result.RESULT_OK, answer
        assert answer.entity_name == "box"
        wait_until(lambda: z_of("box") is not None and abs(z_of("box") - 0.1) < 2e-3, 10.0, "the box on the ground")
        time.sleep(0.5)
        assert abs(z_of("box") - 0.1) < 2e-3, z_of("box")

        request = SpawnEntities.Request(spawn_requests=[
            spawn_fields(SpawnRequestMsg(), "box", 1.6, 0.8, 0.3),
            spawn_fields(SpawnRequestMsg(), "box", 1.6, 0.8, 0.3, renaming=True),
        ])
        answer = call(spawn_all, request)
        assert answer.result.result == SpawnEntities.Response.ENTITIES_SPAWN_FAILED, answer
        codes = [(r.result.result, r.entity_name) for r in answer.results]
        assert codes == [(SpawnEntity.Response.NAME_NOT_UNIQUE, ""), (Result.RESULT_OK, "box_1")], codes

        # The NAME_NOT_UNIQUE above is one refusal, after the probes'.
        wait_until(lambda: diagnostics.snapshot() and refused() >= probes + 1, 5.0, "the first refusal on /diagnostics")
        before = refused()
        assert before == probes + 1, (before, probes)
        nan = spawn_fields(SpawnEntity.Request(), "nan", math.nan, 0.0, 0.5)
        third = spawn_fields(SpawnEntity.Request(), "third", -1.6, 0.0, 0.3)
        assert call(spawn, third).result.result == Result.RESULT_OK
        fourth = spawn_fields(SpawnEntity.Request(), "fourth", 0.0, 1.6, 0.3)
        malformed = spawn_fields(SpawnEntity.Request(), "bad", 0.0, 1.6, 0.3, urdf="<robot name='bad'><link name='bad'>")
        answers = {
            "malformed URDF": (call(spawn, malformed).result, SpawnEntity.Response.RESOURCE_PARSE_ERROR, "not URDF"),
            "a NaN pose": (call(spawn, nan).result, SpawnEntity.Response.INVALID_POSE, "not finite"),
            "beyond the capacity": (call(spawn, fourth).result, Result.RESULT_OPERATION_FAILED, "all 3 spawn slots"),
            "an unknown entity": (call(delete, DeleteEntity.Request(entity="ghost")).result,
                                  Result.RESULT_NOT_FOUND, "no entity `ghost`"),
        }
        for what, (result, code, words) in answers.items():
            print(f"{what}: result {result.result}, {result.error_message!r}")
            assert result.result == code, (what, result)
            assert words in result.error_message, (what, result)
        wait_until(lambda: refused() >= before + len(answers), 5.0, "the refusals on /diagnostics")
        assert refused() == before + len(answers)

        # The recorder's executor may lag the node under load, so /tf messages of steps
        # before an answer can still arrive after it: a removed frame must leave /tf and
        # stay away for the next 200 messages (0.2 s of simulated time).
        def left(names, messages=200):
            seen = tf.snapshot()
            last = max((i for i, (_, f) in enumerate(seen) if any(n in f for n in names)), default=-1)
            return len(seen) - 1 - last >= messages

        def latest_frames(messages=200):
            return set().union(*(f for _, f in tf.snapshot()[-messages:]))

        assert call(delete, DeleteEntity.Request(entity="box")).result.result == Result.RESULT_OK
        wait_until(lambda: left(["box"]), 10.0, "the deleted box leaving /tf")
        assert {"box_1", "third"} <= latest_frames(), "the others stay on /tf"
        assert call(reset, ResetSimulation.Request(scope=ResetSimulation.Request.SCOPE_SPAWNED)).result.result \
            == Result.RESULT_OK
        before_ticks = len(clock.snapshot())
        wait_until(lambda: left(["box", "box_1", "third"]), 10.0, "SCOPE_SPAWNED removing them from /tf")
        assert "crate" in latest_frames(), "the configured crate stays"
        answer = call(delete, DeleteEntity.Request(entity="third")).result
        assert answer.result == Result.RESULT_NOT_FOUND, answer
        assert len(clock.snapshot()) - before_ticks > 100, "the simulation plays on"
        assert node.alive()
    finally:
        for c in [spawn, spawn_all, delete, reset]:
            ros.destroy_client(c)
        for r in [tf, clock, diagnostics]:
            ros.destroy_subscription(r.sub)


def test_each_reset_scope_touches_only_what_it_names(ros, node):
    """With a body spawned: SCOPE_TIME puts /clock back and leaves the body where it lies;
    SCOPE_STATE puts it back at its spawn pose and leaves time running; SCOPE_SPAWNED
    removes it and leaves time and the other bodies (the crate, pushed) alone."""
    from geometry_msgs.msg import WrenchStamped
    from simulation_interfaces.msg import EntityFilters
    from simulation_interfaces.srv import GetEntities, GetEntityState

    spawn = ros.create_client(SpawnEntity, f"{NS}/spawn_entity")
    reset = ros.create_client(ResetSimulation, f"{NS}/reset_simulation")
    entities = ros.create_client(GetEntities, f"{NS}/get_entities")
    state = ros.create_client(GetEntityState, f"{NS}/get_entity_state")
    wrench = ros.create_publisher(WrenchStamped, f"{NS}/external_wrench", 10)
    clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, RELIABLE)
    try:
        answered(spawn, SpawnEntity.Request(uri="probe://none"))
        answered(reset, ResetSimulation.Request(scope=ResetSimulation.Request.SCOPE_SPAWNED))
        answered(entities, GetEntities.Request())
        answered(state, GetEntityState.Request(entity="crate"))

        def names():
            return list(call(entities, GetEntities.Request(filters=EntityFilters(filter="^(ball|crate)$"))).entities)

        def position(name):
            answer = call(state, GetEntityState.Request(entity=name))
            assert answer.result.result == Result.RESULT_OK, answer
            p = answer.state.pose.position
            return (p.x, p.y, p.z), answer.state.header.stamp.sec * 10**9 + answer.state.header.stamp.nanosec

        def scope(bits):
            assert call(reset, ResetSimulation.Request(scope=bits)).result.result == Result.RESULT_OK

        request = spawn_fields(SpawnEntity.Request(), "ball", -1.0, 0.8, 0.6)
        assert call(spawn, request).result.result == Result.RESULT_OK
        time.sleep(1.0)  # it falls and rests on the ground
        rest, t = position("ball")
        assert abs(rest[2] - 0.1) < 2e-3 and t > 10**9, (rest, t)

        scope(ResetSimulation.Request.SCOPE_TIME)
        time.sleep(0.05)
        after, t_after = position("ball")
        print(f"TIME: the ball at {after} (was {rest}), time {t} -> {t_after} ns")
        assert t_after < 0.5 * 10**9, "time back near 0"
        assert all(abs(a - b) < 1e-3 for a, b in zip(after, rest)), "the ball stays where it lies"
        assert "ball" in names()

        time.sleep(0.3)
        before_state = position("ball")[1]
        scope(ResetSimulation.Request.SCOPE_STATE)
        back, t_state = position("ball")
        print(f"STATE: the ball back at {back}, time {before_state} -> {t_state} ns")
        # Playing: read some steps after the reset, falling again from rest. The reset came
        # after `before_state`, so the ball has fallen at most g·Δt²/2 since, Δt the
        # simulated time between the two reads (a fresh clone's stalled host read it 22 ms
        # on, 1.7 mm down); 1 mm beyond that, and none sideways.
        dt = (t_state - before_state) * 1e-9
        fallen = 0.5 * 9.81 * dt * dt
        assert abs(back[0] + 1.0) < 1e-3 and abs(back[1] - 0.8) < 1e-3, f"back at its spawn pose: {back}"
        assert 0.6 - fallen - 1e-3 < back[2] < 0.6 + 1e-3, f"back at its spawn height: {back}, {dt * 1e3:.1f} ms on"
        assert t_state >= before_state, "time runs on"
        assert "ball" in names()

        # Push the crate, then remove the spawned: the crate stays where it slid.
        msg = WrenchStamped()
        msg.header.frame_id = "crate"
        msg.wrench.force.x = 30.0
        wrench.publish(msg)
        time.sleep(0.2)
        msg.wrench.force.x = 0.0
        wrench.publish(msg)
        time.sleep(0.3)
        crate, t_spawned = position("crate")
        scope(ResetSimulation.Request.SCOPE_SPAWNED)
        time.sleep(0.05)
        assert names() == ["crate"], "the ball is gone"
        crate_after, t_after = position("crate")
        print(f"SPAWNED: entities {names()}, crate {crate} -> {crate_after}, time {t_spawned} -> {t_after} ns")
        assert crate[0] > 0.85 and crate_after[0] >= crate[0] - 1e-6, "the crate is not reset (back at x = 0.8)"
        assert t_after >= t_spawned, "time runs on"
    finally:
        for c in [spawn, reset, entities, state]:
            ros.destroy_client(c)
        ros.destroy_publisher(wrench)
        ros.destroy_subscription(clock.sub)

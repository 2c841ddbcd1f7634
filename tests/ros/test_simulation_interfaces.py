"""The standard simulator API (simulation_interfaces, issue 25 item 2), with rclpy clients of
the generated package as the independent peer, against the node simulating the quadruped
and its crate (config/quadruped.yaml):

- GetSimulatorFeatures lists exactly the implemented features (simulation state, resets of
  TIME, STATE and SPAWNED, stepping single, multiple and by the action, spawning: see
  test_spawning.py), spawn format urdf;
- paused, StepSimulation(1) and StepSimulation(250) return after exactly that many /clock
  ticks, each Δt = 1 ms apart, and nothing more is published while paused;
- SimulateSteps reports feedback and completes; cancelled, it stops at once: fewer steps
  than asked, exactly as many /clock ticks as its last feedback says, the simulation still
  paused;
- ResetSimulation: TIME puts /clock back to Δt at the next step and leaves the pushed
  crate where it is; STATE puts the crate back and leaves time; both (3), DEFAULT and
  STOPPED do both;
- a step while playing, zero steps, an undefined scope bit, STATE_QUITTING and an unknown state get
  the standard error naming what is wrong, are counted on /diagnostics, and the
  simulation plays on;
- the old ~/pause and ~/step still work, over the same requests;
- `mode: sim+control` with `simulation_interfaces: {namespace: /sim, initial_state:
  paused}`: the services under /sim, nothing published until StepSimulation steps.

It also measures the round trip of StepSimulation(1) (the README's figure).
"""

import re
import statistics
import time

import pytest
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.action import ActionClient
from rosgraph_msgs.msg import Clock
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (
    GetSimulationState, GetSimulatorFeatures, ResetSimulation, SetSimulationState, StepSimulation,
)
from std_msgs.msg import UInt32
from std_srvs.srv import SetBool

from conftest import (
    RECENT,
    RELIABLE,
    NodeProcess,
    RawRecorder,
    Recorder,
    answered,
    call,
    cdr_doubles,
    cdr_stamp,
    diagnostic_values,
    wait_until,
)
from test_modes import config

NS = "/signorini"
MS = 1_000_000
# config/quadruped.yaml's crate: a 0.2 m box resting at (0.8, 0, 0.1).
CRATE_START = (0.8, 0.0, 0.1)
# Time for stray messages to arrive (none should).
SETTLE = 0.3


class Peer:
    """rclpy clients of every interface, and recorders of /clock, the crate and
    /diagnostics."""

    def __init__(self, ros):
        self.ros = ros
        self.features = ros.create_client(GetSimulatorFeatures, f"{NS}/get_simulator_features")
        self.get_state = ros.create_client(GetSimulationState, f"{NS}/get_simulation_state")
        self.set_state = ros.create_client(SetSimulationState, f"{NS}/set_simulation_state")
        self.reset = ros.create_client(ResetSimulation, f"{NS}/reset_simulation")
        self.step = ros.create_client(StepSimulation, f"{NS}/step_simulation")
        self.action = ActionClient(ros, SimulateSteps, f"{NS}/simulate_steps")
        self.pause = ros.create_client(SetBool, f"{NS}/pause")
        self.step_topic = ros.create_publisher(UInt32, f"{NS}/step", 10)
        self.wrench = ros.create_publisher(WrenchStamped, f"{NS}/external_wrench", 10)
        self.clock = RawRecorder(ros, Clock, "/clock", cdr_stamp, RELIABLE)
        self.crate = RawRecorder(ros, Odometry, "/crate/odom", lambda d: cdr_doubles(d, 2, 3), RECENT)
        self.diagnostics = Recorder(ros, DiagnosticArray, "/diagnostics", diagnostic_values)

    def destroy(self):
        for c in [self.features, self.get_state, self.set_state, self.reset, self.step, self.pause]:
            self.ros.destroy_client(c)
        self.action.destroy()
        for p in [self.step_topic, self.wrench]:
            self.ros.destroy_publisher(p)
        for r in [self.clock, self.crate, self.diagnostics]:
            self.ros.destroy_subscription(r.sub)

    def call(self, client, request, timeout=10.0):
        return call(client, request, timeout)

    def state(self):
        return self.call(self.get_state, GetSimulationState.Request()).state.state

    def set(self, state):
        return self.call(self.set_state, SetSimulationState.Request(state=SimulationState(state=state))).result

    def reset_scope(self, scope):
        return self.call(self.reset, ResetSimulation.Request(scope=scope)).result

    def steps(self, n):
        return self.call(self.step, StepSimulation.Request(steps=n), timeout=30.0).result

    def ticks_after(self, action):
        """The /clock stamps published from `action` until SETTLE after it returned."""
        before = len(self.clock.snapshot())
        out = action()
        time.sleep(SETTLE)
        return out, [s for _, s in self.clock.snapshot()[before:]]

    def last_stamp(self):
        return self.clock.snapshot()[-1][1]

    def push_crate(self, fx):
        msg = WrenchStamped()
        msg.header.frame_id = "crate"
        msg.wrench.force.x = fx
        self.wrench.publish(msg)

    def refused_total(self):
        items = self.diagnostics.snapshot()
        return int(items[-1][1][2]["simulation_requests_refused_total"]) if items else None


@pytest.fixture(scope="module")
def peer(ros, tmp_path_factory):
    path = config(tmp_path_factory.mktemp("simapi"), "quadruped.yaml", "quadruped.yaml")
    node = NodeProcess("node", "--config", str(path))
    peer = Peer(ros)
    try:
        node.wait_for_line("signorini: quadruped")
        for client in [peer.features, peer.get_state, peer.set_state, peer.reset, peer.step, peer.pause]:
            assert client.wait_for_service(timeout_sec=20.0), client.srv_name
        answered(peer.features, GetSimulatorFeatures.Request())
        answered(peer.get_state, GetSimulationState.Request())
        assert peer.action.wait_for_server(timeout_sec=20.0)
        wait_until(lambda: peer.clock.snapshot() and peer.crate.snapshot(), 20.0, "/clock and the crate")
        wait_until(lambda: peer.wrench.get_subscription_count() >= 1, 20.0, "the wrench subscription")
        peer.node = node
        yield peer
        assert node.alive(), node.output()
    finally:
        peer.destroy()
        code = node.stop()
        assert code == 0, f"exit code {code}:\n{node.output()}"


def test_the_feature_list_is_exactly_the_implemented_ones(peer):
    features = peer.call(peer.features, GetSimulatorFeatures.Request()).features
    f = SimulatorFeatures
    expected = {
        f.SIMULATION_RESET, f.SIMULATION_RESET_TIME, f.SIMULATION_RESET_STATE,
        f.SIMULATION_STATE_GETTING, f.SIMULATION_STATE_SETTING, f.SIMULATION_STATE_PAUSE,
        f.STEP_SIMULATION_SINGLE, f.STEP_SIMULATION_MULTIPLE, f.STEP_SIMULATION_ACTION,
        f.ENTITY_CATEGORIES, f.ENTITY_STATE_GETTING, f.ENTITY_STATE_SETTING,
        # Spawning (the default simulation_interfaces.spawn_capacity is 16): test_spawning.py.
        f.SPAWNING, f.DELETING, f.SPAWNING_RESOURCE_STRING, f.SIMULATION_RESET_SPAWNED, f.SPAWNING_ENTITIES,
    }
    assert sorted(features.features) == sorted(expected), features.features
    assert list(features.spawn_formats) == ["urdf"]
    assert peer.state() == SimulationState.STATE_PLAYING, "the node starts playing"


def test_paused_steps_return_after_exactly_that_many_clock_ticks(peer):
    assert peer.set(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    assert peer.state() == SimulationState.STATE_PAUSED
    time.sleep(SETTLE)  # the last steps' samples before the pause arrive
    again = peer.set(SimulationState.STATE_PAUSED)
    assert again.result == SetSimulationState.Response.ALREADY_IN_TARGET_STATE, again
    _, idle = peer.ticks_after(lambda: None)
    assert idle == [], "paused: nothing published"
    for n in [1, 250]:
        start = peer.last_stamp()
        result, ticks = peer.ticks_after(lambda: peer.steps(n))
        assert result.result == Result.RESULT_OK, result
        print(f"StepSimulation({n}): {len(ticks)} /clock ticks, time {start} -> {ticks[-1]} ns")
        assert len(ticks) == n, f"{len(ticks)} /clock ticks for {n} steps"
        assert ticks == [start + k * MS for k in range(1, n + 1)], "one tick per Δt, in order"

    # The round trip of one step: the request, a period of the loop at most, the sample
    # published, the answer.
    latencies = []
    for _ in range(50):
        t0 = time.perf_counter()
        assert peer.steps(1).result == Result.RESULT_OK
        latencies.append(time.perf_counter() - t0)
    median = statistics.median(latencies)
    print(f"StepSimulation(1) round trip over 50 calls: median {median * 1e3:.2f} ms, "
          f"max {max(latencies) * 1e3:.2f} ms")
    assert median < 0.02, f"median round trip {median * 1e3:.1f} ms"


def test_simulate_steps_reports_feedback_and_can_be_cancelled(peer):
    assert peer.state() == SimulationState.STATE_PAUSED
    feedback = []

    def send(n):
        future = peer.action.send_goal_async(
            SimulateSteps.Goal(steps=n), feedback_callback=lambda m: feedback.append(
                (m.feedback.completed_steps, m.feedback.remaining_steps)))
        wait_until(future.done, 10.0, "the goal's acceptance")
        handle = future.result()
        assert handle.accepted
        return handle

    def result_of(handle, timeout):
        future = handle.get_result_async()
        wait_until(future.done, timeout, "the action's result")
        return future.result()

    before = len(peer.clock.snapshot())
    start = peer.last_stamp()
    done = result_of(send(200), 10.0)
    assert done.status == 4 and done.result.result.result == Result.RESULT_OK, done  # STATUS_SUCCEEDED
    time.sleep(SETTLE)
    ticks = [s for _, s in peer.clock.snapshot()[before:]]
    print(f"SimulateSteps(200): {len(feedback)} feedbacks, {len(ticks)} /clock ticks")
    assert len(feedback) >= 20, f"{len(feedback)} feedbacks for 200 steps"
    assert feedback[-1] == (200, 0), feedback[-1]
    assert all(b[0] > a[0] and b[0] + b[1] == 200 for a, b in zip(feedback, feedback[1:])), feedback
    assert ticks == [start + k * MS for k in range(1, 201)], "exactly 200 ticks"

    feedback.clear()
    before = len(peer.clock.snapshot())
    handle = send(5000)
    time.sleep(0.3)
    cancel = handle.cancel_goal_async()
    wait_until(cancel.done, 10.0, "the cancel's answer")
    cancelled = result_of(handle, 10.0)
    assert cancelled.status == 5, cancelled  # STATUS_CANCELED
    message = cancelled.result.result.error_message
    match = re.fullmatch(r"cancelled after (\d+) of 5000 steps", message)
    assert match, message
    completed = int(match.group(1))
    assert 0 < completed < 5000
    # The node publishes the final count as feedback before the result; on a loaded machine
    # the feedback and /clock may reach this reader after the result.
    wait_until(lambda: feedback and feedback[-1] == (completed, 5000 - completed), 5.0, "the final feedback")
    wait_until(lambda: len(peer.clock.snapshot()) - before >= completed, 5.0, "the steps' /clock ticks")
    time.sleep(SETTLE)
    ticks = [s for _, s in peer.clock.snapshot()[before:]]
    print(f"SimulateSteps(5000) cancelled after {completed} steps ({len(feedback)} feedbacks): {message}")
    assert len(ticks) == completed, f"{len(ticks)} /clock ticks, {completed} steps reported"
    assert peer.state() == SimulationState.STATE_PAUSED
    _, idle = peer.ticks_after(lambda: None)
    assert idle == [], "no step after the cancel"


def crate_pushed(peer):
    """Plays, slides the crate 0.1 m with a push, pauses; returns its position."""
    assert peer.set(SimulationState.STATE_PLAYING).result == Result.RESULT_OK
    start = peer.crate.snapshot()[-1][1]
    peer.push_crate(60.0)
    wait_until(lambda: peer.crate.snapshot()[-1][1][0] - start[0] > 0.1, 5.0, "the crate sliding")
    peer.push_crate(0.0)
    assert peer.set(SimulationState.STATE_PAUSED).result == Result.RESULT_OK
    time.sleep(SETTLE)
    return peer.crate.snapshot()[-1][1]


def near(p, q, tol):
    return all(abs(a - b) < tol for a, b in zip(p, q))


def test_each_reset_scope_resets_only_what_it_names(peer):
    pushed = crate_pushed(peer)
    assert pushed[0] > CRATE_START[0] + 0.09
    t = peer.last_stamp()

    assert peer.reset_scope(ResetSimulation.Request.SCOPE_TIME).result == Result.RESULT_OK
    _, ticks = peer.ticks_after(lambda: peer.steps(1))
    after_time = peer.crate.snapshot()[-1][1]
    print(f"TIME: /clock {t} -> {ticks}; the crate at {after_time} (pushed to {pushed})")
    assert ticks == [MS], "time back to 0: the next step is at Δt"
    assert near(after_time, pushed, 5e-3), "TIME alone leaves the crate where it is"

    assert peer.reset_scope(ResetSimulation.Request.SCOPE_STATE).result == Result.RESULT_OK
    _, ticks = peer.ticks_after(lambda: peer.steps(1))
    after_state = peer.crate.snapshot()[-1][1]
    print(f"STATE: /clock {ticks}; the crate at {after_state}")
    assert ticks == [2 * MS], "STATE alone leaves time running"
    assert near(after_state, CRATE_START, 1e-3), after_state

    for scope in [ResetSimulation.Request.SCOPE_TIME | ResetSimulation.Request.SCOPE_STATE,
                  ResetSimulation.Request.SCOPE_DEFAULT, ResetSimulation.Request.SCOPE_ALL]:
        pushed = crate_pushed(peer)
        assert pushed[0] > CRATE_START[0] + 0.09
        assert peer.reset_scope(scope).result == Result.RESULT_OK
        _, ticks = peer.ticks_after(lambda: peer.steps(1))
        crate = peer.crate.snapshot()[-1][1]
        assert ticks == [MS], f"scope {scope}: {ticks}"
        assert near(crate, CRATE_START, 1e-3), f"scope {scope}: {crate}"


def test_stopped_is_paused_at_the_start_and_can_be_played_or_paused(peer):
    crate_pushed(peer)
    assert peer.set(SimulationState.STATE_PLAYING).result == Result.RESULT_OK
    assert peer.set(SimulationState.STATE_STOPPED).result == Result.RESULT_OK
    assert peer.state() == SimulationState.STATE_STOPPED
    time.sleep(SETTLE)
    _, idle = peer.ticks_after(lambda: None)
    assert idle == [], "stopped: nothing published"
    refused = peer.steps(1)
    assert refused.result == Result.RESULT_OPERATION_FAILED and "STATE_STOPPED" in refused.error_message, refused
    assert peer.set(SimulationState.STATE_PAUSED).result == Result.RESULT_OK, "stopped can be paused"
    _, ticks = peer.ticks_after(lambda: peer.steps(1))
    assert ticks == [MS], ticks
    assert near(peer.crate.snapshot()[-1][1], CRATE_START, 1e-3)


def test_the_old_pause_and_step_still_work(peer):
    assert peer.state() == SimulationState.STATE_PAUSED
    before = len(peer.clock.snapshot())
    peer.step_topic.publish(UInt32(data=3))
    time.sleep(SETTLE + 0.2)
    assert len(peer.clock.snapshot()) - before == 3, "~/step 3: three steps"
    assert peer.call(peer.pause, SetBool.Request(data=False)).success
    assert peer.state() == SimulationState.STATE_PLAYING
    assert peer.call(peer.pause, SetBool.Request(data=True)).success
    assert peer.state() == SimulationState.STATE_PAUSED


def test_bad_requests_get_the_standard_error_are_counted_and_the_simulation_plays_on(peer):
    assert peer.set(SimulationState.STATE_PLAYING).result == Result.RESULT_OK
    # The count before this test's requests: from a /diagnostics message published after
    # they start (the latest one held may predate an earlier test's refusal).
    seen = len(peer.diagnostics.snapshot())
    wait_until(lambda: len(peer.diagnostics.snapshot()) > seen, 5.0, "a fresh /diagnostics message")
    before = peer.refused_total()

    answers = {
        "a step while playing": (peer.steps(1), Result.RESULT_OPERATION_FAILED, "STATE_PLAYING"),
        "zero steps": (peer.steps(0), Result.RESULT_OPERATION_FAILED, "at least 1"),
        "an undefined scope bit": (peer.reset_scope(8), Result.RESULT_FEATURE_UNSUPPORTED, "0x08"),
        "STATE_QUITTING": (peer.set(SimulationState.STATE_QUITTING),
                           Result.RESULT_FEATURE_UNSUPPORTED, "STATE_QUITTING"),
        "an unknown state": (peer.set(42), Result.RESULT_FEATURE_UNSUPPORTED, "unknown state 42"),
    }
    future = peer.action.send_goal_async(SimulateSteps.Goal(steps=10))
    wait_until(future.done, 10.0, "the goal's answer")
    result = future.result().get_result_async()
    wait_until(result.done, 10.0, "the action's result")
    action = result.result()
    assert action.status == 6, action  # STATUS_ABORTED
    answers["SimulateSteps while playing"] = (action.result.result, Result.RESULT_OPERATION_FAILED, "STATE_PLAYING")
    for what, (answer, code, words) in answers.items():
        print(f"{what}: result {answer.result}, {answer.error_message!r}")
        assert answer.result == code, (what, answer)
        assert words in answer.error_message, (what, answer)

    wait_until(lambda: peer.refused_total() >= before + len(answers), 5.0, "the refusals on /diagnostics")
    assert peer.refused_total() == before + len(answers)
    assert peer.state() == SimulationState.STATE_PLAYING
    _, ticks = peer.ticks_after(lambda: None)
    assert len(ticks) > 100, "the simulation plays on"
    assert peer.node.alive()


def test_sim_and_control_in_a_configured_namespace_starting_paused(ros, tmp_path):
    """`mode: sim+control` with `simulation_interfaces: {namespace: /sim, initial_state:
    paused}`: the services are under /sim, nothing steps until asked, and StepSimulation
    steps the simulator (and its controller) exactly. (Its clock on /sim/clock: the
    module's other node still publishes /clock.)"""
    path = config(tmp_path, "sim_control.yaml", "quadruped_sim_control.yaml",
                  append="simulation_interfaces: {namespace: /sim, initial_state: paused}\n"
                         "topics: {clock: /sim/clock}\n")
    node = NodeProcess("node", "--config", str(path))
    get_state = ros.create_client(GetSimulationState, "/sim/get_simulation_state")
    step = ros.create_client(StepSimulation, "/sim/step_simulation")
    clock = RawRecorder(ros, Clock, "/sim/clock", cdr_stamp, RELIABLE)
    try:
        node.wait_for_line("signorini: quadruped")
        answered(get_state, GetSimulationState.Request())
        assert step.wait_for_service(timeout_sec=20.0)
        assert call(get_state, GetSimulationState.Request()).state.state == SimulationState.STATE_PAUSED
        time.sleep(1.0)
        assert clock.snapshot() == [], "paused from the start: nothing published"
        assert call(step, StepSimulation.Request(steps=10)).result.result == Result.RESULT_OK
        time.sleep(SETTLE)
        assert [s for _, s in clock.snapshot()] == [k * MS for k in range(1, 11)]
        assert node.alive()
    finally:
        for c in [get_state, step]:
            ros.destroy_client(c)
        ros.destroy_subscription(clock.sub)
        code = node.stop()
    assert code == 0, node.output()

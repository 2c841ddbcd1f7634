#!/usr/bin/env python3
"""An independent robot on ROS 2: MuJoCo simulates a robot (from its URDF, with its own
contact model and integrator) and presents it as a real robot's drivers would, paced at the
wall clock (a stall of this process beyond a few periods pauses the robot's time).

Out: `/joint_states` (sensor_msgs/JointState: position, velocity, the applied effort),
`/odom` for a floating base (nav_msgs/Odometry as REP-105 has it: pose in `odom`, twist in
the base frame, as a state estimator publishes it) and `/clock`, every period, stamped with
the robot's time. In: joint torques on `/<controller>/commands` (std_msgs/Float64MultiArray,
the order of `--joints`, by default the URDF's depth-first order), applied from the next
period on (a real robot's one period of delay) within the URDF's effort limits; a command
older than `--stale-ms` gives zero torque. Until the commands stream the robot is held still
(as on its stand, its drives off): it is released once they have come without a gap of
`--stale-ms` for `--release-after-ms`, as a robot's drives are enabled once its controller
runs (a release on the first command once met a 333 ms gap straight after it, the two
processes' start-up). `--duration` counts from the release.

What makes it a real robot rather than the controller's own model: soft contacts (MuJoCo's
defaults: feet sink millimetres), masses off by `--mass-scale`/`--mass-jitter`, friction
`--friction`, velocities with white noise (`--velocity-noise`), the state `--state-delay`
periods late, odometry stamped on its own clock (`--odom-offset-us`) with a quaternion that
is not exactly unit (`--quaternion-error`), pushes on the base (`--push T:FX:FY:FZ[:DURATION]`,
seconds after the release), a start on two diagonal feet (`--start diagonal`), and drives
that drop out (`--dropout T:DURATION`: zero torque whatever the commands, as when a motor
driver faults and resets).

Logged (`--log run.npz`): every step's time, base pose and twist, joint state, applied
torques, MuJoCo's contact force on each foot, whether another body touches the ground, the
command's age, and the predicted contact forces the controller publishes
(`--predicted PREFIX`: WrenchStamped on PREFIX/<foot>).

  scripts/with_ros.sh python scripts/mujoco_robot.py --robot quadruped --duration 30 \
      --push 5:52:0:0 --log /tmp/run.npz
"""

import argparse
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mujoco_plant  # noqa: E402

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402
from builtin_interfaces.msg import Time  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

# A wake-up at most this many periods late is caught up, the steps run back to back on the
# commands at hand (a real robot's physics went on); a longer stall of this process pauses
# the robot's time instead (`run`).
CATCH_UP_PERIODS = 5


def parse_push(text):
    """`T:FX:FY:FZ[:DURATION]` → (start s, force N (world), duration s; default 0.2 s)."""
    parts = [float(x) for x in text.split(":")]
    if len(parts) not in (4, 5):
        raise argparse.ArgumentTypeError(f"push {text!r}: expected T:FX:FY:FZ[:DURATION]")
    return parts[0], np.array(parts[1:4]), parts[4] if len(parts) == 5 else 0.2


def parse_dropout(text):
    """`T:DURATION` → (start s, duration s)."""
    parts = text.split(":")
    try:
        start, duration = (float(x) for x in parts)
    except ValueError:
        raise SystemExit(f"mujoco_robot: --dropout {text!r}: expected T:DURATION (seconds)") from None
    return start, duration


def controller_order(plant):
    """The controller's joint order for the plant's URDF: depth first, as Pinocchio (and
    signorini) number the joints."""
    import pinocchio as pin
    model = pin.buildModelFromUrdf(str(plant.robot.urdf))
    return [n for j, n in enumerate(model.names) if j >= 1 and model.joints[j].nq == 1 and n in plant.joints]


def time_msg(ns):
    return Time(sec=int(ns // 1_000_000_000), nanosec=int(ns % 1_000_000_000))


def start_on_diagonal(plant, lift=0.005):
    """Bends the knees of the second and third foot (a diagonal pair of a quadruped whose
    feet are listed left front, left hind, right front, right hind) until they are `lift`
    above the ground, the other diagonal pair carrying the robot."""
    m, d = plant.model, plant.data
    for foot in plant.robot.feet[1:3]:
        body = m.body(foot).id
        knee = max(j for j in range(m.njnt) if _is_ancestor(m, m.jnt_bodyid[j], body))
        adr = m.jnt_qposadr[knee]
        for _ in range(60):
            mujoco.mj_forward(m, d)
            low = min(mujoco.mj_geomDistance(m, d, plant.ground, g, 1.0, None)
                      for g in range(m.ngeom) if m.geom_bodyid[g] == body)
            if low >= lift:
                break
            # Bend the knee further (its sign: the one that raises the foot).
            z0 = d.xpos[body][2]
            d.qpos[adr] += 0.002
            mujoco.mj_forward(m, d)
            if d.xpos[body][2] < z0:
                d.qpos[adr] -= 0.004
    mujoco_plant.place_on_ground(plant.model, plant.data)


def _is_ancestor(m, a, b):
    while b > 0:
        if b == a:
            return True
        b = m.body_parentid[b]
    return False


class Robot:
    """The plant on ROS 2 (see the module)."""

    def __init__(self, args):
        self.args = args
        self.plant = mujoco_plant.build(args.robot, dt=1.0 / args.rate, mass_scale=args.mass_scale,
                                        mass_jitter=args.mass_jitter, friction=args.friction, seed=args.seed)
        if args.start == "diagonal":
            start_on_diagonal(self.plant)
        p = self.plant
        self.order = args.joints.split(",") if args.joints else controller_order(p)
        unknown = [n for n in self.order if n not in p.joints]
        if unknown or len(set(self.order)) != len(self.order):
            raise SystemExit(f"mujoco_robot: --joints {args.joints!r}: expected each of {', '.join(p.joints)} once")
        self.command_index = np.array([p.joints.index(n) for n in self.order])
        self.dt_ns = int(round(1e9 / args.rate))
        self.rng = np.random.default_rng(args.seed + 1)
        self.pushes = [parse_push(x) for x in args.push]
        self.dropouts = [parse_dropout(x) for x in args.dropout]

        self.node = rclpy.create_node("mujoco_robot")
        # The drives' command input on a node (and executor thread) of its own, as a robot's
        # drive interface is: a backlog of the telemetry below (four feet's predicted wrenches
        # at the loop rate, queued 100 deep) must not delay a command behind it (a 332 ms gap,
        # then the stale-command zero torque, laid the quadruped down once). Best effort, keep
        # last 1, as signorini's own command subscription (`qos.commands`): a drive wants the
        # newest command, and a reliable reader holds every later sample back behind a lost one
        # until the writer repairs it (gaps of 184 and 342 ms in CI, both on a 2-core machine).
        self.drive_node = rclpy.create_node("mujoco_robot_drives")
        self.lock = threading.Lock()
        self.command, self.command_at, self.commands, self.bad_commands = None, None, 0, 0
        self.max_command_gap = 0.0  # after the release
        self.streaming_since = None  # the start of the current run of commands without a stale gap
        self.predicted = []
        self.drive_node.create_subscription(Float64MultiArray, f"/{args.controller}/commands", self.on_command,
                                            QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT))
        if args.predicted:
            for i, foot in enumerate(p.robot.feet):
                self.node.create_subscription(WrenchStamped, f"{args.predicted}/{foot}",
                                              lambda msg, i=i: self.on_predicted(i, msg),
                                              QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.joint_states = self.node.create_publisher(JointState, args.joint_states, reliable)
        self.odom = self.node.create_publisher(Odometry, args.odom, reliable) if p.robot.floating else None
        self.clock = self.node.create_publisher(Clock, "/clock", reliable)
        self.js_msg = JointState(name=list(self.order))
        self.history = []  # (stamp, q, v, base) of the last state_delay + 1 periods
        self.log = {k: [] for k in ("t", "base_pose", "base_twist", "q", "v", "tau", "feet", "body_contact",
                                    "command_age", "push")}
        self.stats = dict(steps=0, held=0, stale=0, dropped=0, late=0, max_late_ms=0.0, stalls=0, paused_ms=0.0)
        self.released_at = None

    # --- ROS side (executor thread) ------------------------------------------------------

    def on_command(self, msg):
        data = np.asarray(msg.data, dtype=float)
        with self.lock:
            if data.shape != (len(self.order),) or not np.all(np.isfinite(data)):
                self.bad_commands += 1
                return
            now = time.monotonic()
            if self.command_at is None or now - self.command_at > self.args.stale_ms * 1e-3:
                self.streaming_since = now
            if self.command_at is not None and self.released_at is not None:
                self.max_command_gap = max(self.max_command_gap, now - self.command_at)
            self.command, self.command_at = data, now
            self.commands += 1

    def on_predicted(self, i, msg):
        f = msg.wrench.force
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self.lock:
            self.predicted.append((stamp, i, f.x, f.y, f.z))

    # --- the robot (main thread) ---------------------------------------------------------

    def publish(self, stamp_ns):
        p, a = self.plant, self.args
        q, v = p.joint_state()
        base = p.base_state() if p.robot.floating else None
        self.history.append((stamp_ns, q, v, base))
        if len(self.history) > a.state_delay + 1:
            self.history.pop(0)
        stamp_ns, q, v, base = self.history[0]
        q, v = q[self.command_index], v[self.command_index]
        if a.velocity_noise > 0:
            v = v + self.rng.normal(0.0, a.velocity_noise, v.shape)
        self.clock.publish(Clock(clock=time_msg(self.plant.data.time * 1e9)))
        if base is not None:
            position, quat, linear, angular = base
            if a.velocity_noise > 0:
                linear = linear + self.rng.normal(0.0, a.velocity_noise, 3)
                angular = angular + self.rng.normal(0.0, a.velocity_noise, 3)
            if a.quaternion_error > 0:
                quat = quat * (1.0 + self.rng.uniform(-a.quaternion_error, a.quaternion_error))
            o = Odometry()
            o.header.stamp = time_msg(stamp_ns + int(a.odom_offset_us * 1000))
            o.header.frame_id, o.child_frame_id = "odom", p.model.body(p.base).name
            pp, qq = o.pose.pose.position, o.pose.pose.orientation
            pp.x, pp.y, pp.z = (float(x) for x in position)
            qq.x, qq.y, qq.z, qq.w = (float(x) for x in quat)
            tl, ta = o.twist.twist.linear, o.twist.twist.angular
            tl.x, tl.y, tl.z = (float(x) for x in linear)
            ta.x, ta.y, ta.z = (float(x) for x in angular)
            self.odom.publish(o)
        m = self.js_msg
        m.header.stamp = time_msg(stamp_ns)
        m.position, m.velocity = q.tolist(), v.tolist()
        m.effort = p.applied[self.command_index].tolist()
        self.joint_states.publish(m)

    def step(self, released_at_ns):
        """One period: the latest fresh command (else zero torque), pushes, one MuJoCo step."""
        p, a = self.plant, self.args
        with self.lock:
            command, at = self.command, self.command_at
        now = time.monotonic()
        age = (now - at) if at is not None else math.inf
        tau = np.zeros(len(p.joints))
        if command is not None and age <= a.stale_ms * 1e-3:
            tau[self.command_index] = command
        else:
            self.stats["stale"] += 1
        t_rel = p.data.time - released_at_ns * 1e-9
        if any(start <= t_rel < start + duration for start, duration in self.dropouts):
            tau[:] = 0.0
            self.stats["dropped"] += 1
        p.set_torques(tau)
        push = np.zeros(3)
        for start, force, duration in self.pushes:
            if start <= t_rel < start + duration:
                push += force
        if p.robot.floating:
            p.data.xfrc_applied[p.base, :3] = push
        mujoco.mj_step(p.model, p.data)
        self.stats["steps"] += 1
        if a.log:
            feet, body_contact = p.contact_forces()
            base = p.base_state() if p.robot.floating else (np.zeros(3), np.array([0, 0, 0, 1.0]), np.zeros(3),
                                                             np.zeros(3))
            q, v = p.joint_state()
            L = self.log
            L["t"].append(p.data.time - released_at_ns * 1e-9)
            L["base_pose"].append(np.concatenate(base[:2]))
            L["base_twist"].append(np.concatenate(base[2:]))
            L["q"].append(q[self.command_index])
            L["v"].append(v[self.command_index])
            L["tau"].append(p.applied[self.command_index])
            L["feet"].append(feet)
            L["body_contact"].append(body_contact)
            L["command_age"].append(age)
            L["push"].append(push)

    def run(self, stop):
        a, dt_ns = self.args, self.dt_ns
        sim_ns = 0
        next_wake = time.monotonic_ns()
        released_at = None
        end_at = None
        while not stop.is_set():
            if released_at is None:
                with self.lock:
                    now = time.monotonic()
                    got = (self.command is not None and now - self.command_at <= a.stale_ms * 1e-3
                           and now - self.streaming_since >= a.release_after_ms * 1e-3)
                if got:
                    released_at = sim_ns
                    self.released_at = sim_ns * 1e-9
                    self.plant.data.time = sim_ns * 1e-9
                    end_at = sim_ns + int(a.duration * 1e9) if a.duration > 0 else None
                    print(f"mujoco_robot: released at t = {sim_ns * 1e-9:.3f} s", flush=True)
                elif a.wait > 0 and sim_ns > a.wait * 1e9:
                    print("mujoco_robot: no command came", flush=True)
                    return 1
            if released_at is None:
                self.stats["held"] += 1  # on its stand: time passes, nothing moves
            else:
                self.step(released_at)
            sim_ns += dt_ns
            self.plant.data.time = sim_ns * 1e-9
            self.publish(sim_ns)
            if end_at is not None and sim_ns >= end_at:
                return 0
            next_wake += dt_ns
            late = time.monotonic_ns() - next_wake
            if late > 0:
                self.stats["late"] += 1
                self.stats["max_late_ms"] = max(self.stats["max_late_ms"], late * 1e-6)
                if late > CATCH_UP_PERIODS * dt_ns:
                    # This process stalled (the host, the GIL): the robot's time pauses
                    # rather than running the stall through open loop, the commands the
                    # controller could not send in it held or zeroed as stale. A real
                    # robot's physics never stall, so the stall is the harness's, not a
                    # blackout the controller is judged on.
                    self.stats["stalls"] += 1
                    self.stats["paused_ms"] += late * 1e-6
                    next_wake = time.monotonic_ns()
            else:
                time.sleep(-late * 1e-9)
        return 0

    def save(self, path):
        out = {k: np.asarray(v) for k, v in self.log.items()}
        out["predicted"] = np.asarray(self.predicted, dtype=float).reshape(-1, 5)
        out["weight"] = self.plant.weight()
        out["joints"] = np.asarray(self.order)
        out["feet"] = out.pop("feet") if len(self.log["feet"]) else np.zeros((0, len(self.plant.feet), 3))
        out["foot_names"] = np.asarray(self.plant.robot.feet)
        out["dt"] = 1.0 / self.args.rate
        out["released_at"] = self.released_at if self.released_at is not None else float("nan")
        np.savez(path, **out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", choices=mujoco_plant.ROBOTS, default="quadruped")
    parser.add_argument("--duration", type=float, default=0.0, help="seconds after the release (0: until SIGINT)")
    parser.add_argument("--rate", type=float, default=1000.0, help="steps per second (Δt = 1/rate)")
    parser.add_argument("--controller", default="effort_controller", help="commands on /<controller>/commands")
    parser.add_argument("--joints", help="the commands' joint order, comma separated (default: depth first)")
    parser.add_argument("--joint-states", default="/joint_states")
    parser.add_argument("--odom", default="/odom")
    parser.add_argument("--mass-scale", type=float, default=1.0, help="every body's mass and inertia times this")
    parser.add_argument("--mass-jitter", type=float, default=0.0, help="and each times U(1 - x, 1 + x)")
    parser.add_argument("--friction", type=float, help="sliding friction of every geom (MuJoCo default: 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--push", action="append", default=[], type=str, help="T:FX:FY:FZ[:DURATION] on the base")
    parser.add_argument("--dropout", action="append", default=[], type=str,
                        help="T:DURATION: zero torque (the drives off) from T s after the release")
    parser.add_argument("--start", choices=["stand", "diagonal"], default="stand")
    parser.add_argument("--state-delay", type=int, default=0, help="extra periods of state delay")
    parser.add_argument("--velocity-noise", type=float, default=0.0, help="σ of white noise on velocities")
    parser.add_argument("--odom-offset-us", type=float, default=0.0, help="odometry stamped this much later")
    parser.add_argument("--quaternion-error", type=float, default=0.0, help="|q| within 1 ± this")
    parser.add_argument("--stale-ms", type=float, default=50.0, help="a command older than this: zero torque")
    parser.add_argument("--release-after-ms", type=float, default=100.0,
                        help="release the robot once the commands have streamed this long")
    parser.add_argument("--wait", type=float, default=60.0, help="give up without a first command (s)")
    parser.add_argument("--predicted", help="log the controller's WrenchStamped on PREFIX/<foot>")
    parser.add_argument("--log", help="write the run to this .npz")
    args = parser.parse_args(argv)
    for name in ("stale_ms", "release_after_ms"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value >= 0):
            parser.error(f"--{name.replace('_', '-')}: expected a non-negative number of ms, got {value}")

    rclpy.init()
    robot = Robot(args)
    executor, drive_executor = SingleThreadedExecutor(), SingleThreadedExecutor()
    executor.add_node(robot.node)
    drive_executor.add_node(robot.drive_node)
    spinners = [threading.Thread(target=e.spin, daemon=True) for e in (executor, drive_executor)]
    for spinner in spinners:
        spinner.start()
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"mujoco_robot: {args.robot}, {len(robot.order)} joints, weight {robot.plant.weight():.2f} N, "
          f"waiting for /{args.controller}/commands", flush=True)
    code = robot.run(stop)
    s = robot.stats
    print(f"mujoco_robot: stopped after {s['steps']} steps ({s['held']} held), {robot.commands} commands "
          f"({robot.bad_commands} refused, longest gap {1e3 * robot.max_command_gap:.1f} ms), {s['stale']} steps without a fresh command, {s['dropped']} with the drives "
          f"off, {s['late']} late wake-ups "
          f"(max {s['max_late_ms']:.1f} ms), {s['stalls']} stalls beyond {CATCH_UP_PERIODS} periods "
          f"({s['paused_ms']:.1f} ms of robot time paused)", flush=True)
    if args.log:
        robot.save(args.log)
    for e, spinner in zip((executor, drive_executor), spinners):
        e.shutdown()
        spinner.join(5)
    robot.drive_node.destroy_node()
    robot.node.destroy_node()
    rclpy.try_shutdown()
    return code


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""signorini's controller (`mode: control`, a node as it runs next to a robot) on a robot
simulated by MuJoCo (scripts/mujoco_robot.py: not its own model, soft contacts, one period
of delay over ROS 2), beside a gravity-compensated joint PD (scripts/baseline_pd.py) on the
same robot, in one run; prints the table README quotes.

Scenarios (seconds after the robot is released):
  stand      the posture for 30 s: base height drift, tilt, predicted vs MuJoCo foot forces;
  push       lateral and longitudinal pushes of 30 % of the robot's weight (solo12: 8 N) for
             0.2 s every 3 s: recovery after each, the force prediction during them;
  diagonal   started with two diagonal feet 5 mm above the ground (the other two carry it);
  lift       the base shifted over three feet, the fourth lifted 3 cm for 1 s and put
             down, each foot in turn (a base pose and foot positions through inverse
             kinematics as the reference; signorini only);
  arm        the 7-dof arm: every joint a minimum-jerk (quintic) move and back, 2 s each way:
             RMS tracking error and effort-limit saturation.

  scripts/with_ros.sh python scripts/mujoco_control.py [--robots quadruped solo12 arm7]
      [--scenarios stand push diagonal lift arm] [--controllers signorini pd] [--scale 1]
      [--plant "--mass-scale 1.1 --friction 0.6 ..."] [--write]
"""

import argparse
import datetime
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import mujoco_plant  # noqa: E402

os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(101, 200)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

PUSH_FORCE = {"quadruped": None, "solo12": 8.0}  # None: 30 % of the weight
ARM_MOVE = [0.4, -0.3, 0.5, 0.4, -0.5, 0.4, 0.6]  # rad per joint, out and back
MOVE_TIME = 2.0  # s, each way
MOVE_AT_ABS = 3.0  # the arm's move starts at this robot time (s): after the release
LIFT_HEIGHT, LIFT_HOLD = 0.03, 1.0


# --- processes ---------------------------------------------------------------------------

def signorini_config(robot, directory):
    """The control configuration of `robot` with absolute paths (solo12's written here)."""
    r = mujoco_plant.robot(robot)
    if r.config is not None:
        text = r.config.read_text().replace("urdf: ../urdf/", f"urdf: {ROOT}/urdf/")
    else:
        base = yaml.safe_load((ROOT / "config" / "quadruped_control.yaml").read_text())
        base["robot"] = {"urdf": str(r.urdf), "floating_base": True, "package_dirs": [str(r.share)],
                         "initial_posture": r.posture}
        base["control"]["stance_links"] = list(r.feet)
        text = yaml.safe_dump(base)
    path = Path(directory) / f"{robot}_control.yaml"
    path.write_text(text)
    return path


class Process:
    """A child process with its output collected."""

    def __init__(self, args):
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     bufsize=1)
        self.lines = []
        threading.Thread(target=lambda: [self.lines.append(x.rstrip()) for x in self.proc.stdout], daemon=True).start()

    def wait_line(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                m = re.search(pattern, line)
                if m:
                    return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"no line matching {pattern!r}:\n" + "\n".join(self.lines[-30:]))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def binary():
    return os.environ.get("SIGNORINI_BIN", str(ROOT / "target" / "release" / "signorini"))


# --- references ----------------------------------------------------------------------------

def lift_plan(robot, q0):
    """The lift scenario's reference at times t (s after its start): base pose and joint
    positions (the controller's order) from Pinocchio's inverse kinematics of the legs, the
    stance feet where they stand, the swinging one raised. Returns (times, base poses
    (x y z qx qy qz qw), joint positions, joint names)."""
    import pinocchio as pin
    r = mujoco_plant.robot(robot)
    model = pin.buildModelFromUrdf(str(r.urdf), pin.JointModelFreeFlyer())
    data = model.createData()
    names = [n for j, n in enumerate(model.names) if j >= 2]
    feet = [model.getFrameId(f) for f in r.feet]
    pin.framesForwardKinematics(model, data, q0)
    home = [data.oMf[f].translation.copy() for f in feet]
    centre = np.mean(home, axis=0)
    base0 = q0[:7].copy()

    smooth = mujoco_plant.minimum_jerk

    # Per foot: shift 1 s, lift 0.3 s, hold, lower 0.3 s, shift back 0.7 s.
    phases = [1.0, 0.3, LIFT_HOLD, 0.3, 0.7]
    per_foot = sum(phases)
    order = [0, 2, 3, 1] if len(feet) == 4 else list(range(len(feet)))

    def at(t):
        k = min(int(t // per_foot), len(order) - 1)
        foot, tau = order[k], t - k * per_foot
        others = [home[i] for i in range(len(feet)) if i != foot]
        shift = (np.mean(others, axis=0) - centre) * np.array([1.0, 1.0, 0.0])
        edges = np.cumsum([0.0] + phases)
        s_shift = smooth(tau / phases[0]) - smooth((tau - edges[4]) / phases[4])
        s_lift = smooth((tau - edges[1]) / phases[1]) - smooth((tau - edges[3]) / phases[3])
        base = base0.copy()
        base[:3] += s_shift * shift
        targets = [h.copy() for h in home]
        targets[foot][2] += LIFT_HEIGHT * s_lift
        return base, targets

    times = np.arange(0.0, per_foot * len(order) + 1e-9, 0.02)
    q = q0.copy()
    bases, joints = [], []
    for t in times:
        base, targets = at(t)
        q[:7] = base
        for _ in range(20):  # damped least squares on every foot (the base fixed)
            pin.framesForwardKinematics(model, data, q)
            pin.computeJointJacobians(model, data, q)
            err, rows = [], []
            for f, target in zip(feet, targets):
                err.append(target - data.oMf[f].translation)
                rows.append(pin.getFrameJacobian(model, data, f, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3, 6:])
            e, j = np.concatenate(err), np.vstack(rows)
            if np.abs(e).max() < 1e-7:
                break
            q[7:] += j.T @ np.linalg.solve(j @ j.T + 1e-8 * np.eye(len(e)), e)
        bases.append(base.copy())
        joints.append(q[7:].copy())
    return times, np.array(bases), np.array(joints), names


class References:
    """An rclpy node that sends the lift and arm scenarios' references to signorini."""

    def __init__(self):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rosgraph_msgs.msg import Clock
        # A context of its own: the caller (a test session) may have one initialized.
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node("mujoco_control_references", context=self.context)
        self.now = None
        self.node.create_subscription(Clock, "/clock", self._clock, 10)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        threading.Thread(target=self.executor.spin, daemon=True).start()

    def _clock(self, msg):
        self.now = msg.clock.sec + msg.clock.nanosec * 1e-9

    def trajectory(self, names, times, positions, start, velocities=None, accelerations=None):
        """Publishes the trajectory to start at robot time `start`, or 1 s after the robot's
        time when it is sent if that is later (discovery on a loaded machine can take
        seconds: a trajectory stamped in the past would be joined in its middle, a jump of
        the reference). Returns the start it was stamped with."""
        from builtin_interfaces.msg import Duration as DurationMsg
        from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
        pub = self.node.create_publisher(JointTrajectory, "/signorini/reference", 10)
        deadline = time.monotonic() + 10
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.now is not None and self.now > start - 0.5:
            start = self.now + 1.0
        msg = JointTrajectory(joint_names=list(names))
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(start), int(round((start % 1) * 1e9))
        for k, t in enumerate(times):
            p = JointTrajectoryPoint(positions=[float(x) for x in positions[k]])
            if velocities is not None:
                p.velocities = [float(x) for x in velocities[k]]
            if accelerations is not None:
                p.accelerations = [float(x) for x in accelerations[k]]
            p.time_from_start = DurationMsg(sec=int(t), nanosec=int(round((t % 1) * 1e9)))
            msg.points.append(p)
        pub.publish(msg)
        return start

    def base_poses(self, times, poses, start, stop):
        """Publishes the base pose of `poses` at the robot's time (from /clock) until `stop`."""
        from geometry_msgs.msg import PoseStamped
        pub = self.node.create_publisher(PoseStamped, "/signorini/base_reference", 10)

        def run():
            while not stop.is_set():
                if self.now is not None:
                    k = int(np.clip(np.searchsorted(times, self.now - start), 0, len(times) - 1))
                    m = PoseStamped()
                    p, o = m.pose.position, m.pose.orientation
                    p.x, p.y, p.z, o.x, o.y, o.z, o.w = (float(x) for x in poses[k])
                    pub.publish(m)
                time.sleep(0.005)
        threading.Thread(target=run, daemon=True).start()

    def close(self):
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()


# --- one run -------------------------------------------------------------------------------

def pushes_of(robot, duration, weight):
    force = PUSH_FORCE.get(robot) or 0.3 * weight
    directions = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    return [(t, force * directions[k % 4][0], force * directions[k % 4][1])
            for k, t in enumerate(np.arange(2.0, duration - 1.5, 3.0))]


def run(robot, scenario, controller, duration, work, plant_args=()):
    """Runs one scenario; returns the harness's log (an npz dict), the controller's last
    status line, the robot's output lines and the controller's."""
    r = mujoco_plant.robot(robot)
    log = Path(work) / f"{robot}-{scenario}-{controller}.npz"
    args = [sys.executable, str(ROOT / "scripts" / "mujoco_robot.py"), "--robot", robot, "--duration", str(duration),
            "--log", str(log), *plant_args]
    predicted = "/signorini/predicted_contact_wrenches" if controller == "signorini" else \
        "/baseline/predicted_contact_wrenches"
    if r.feet:
        args += ["--predicted", predicted]
    weight = mujoco_plant.build(robot).weight() if r.floating else 0.0
    if scenario == "push":
        for t, fx, fy in pushes_of(robot, duration, weight):
            args += ["--push", f"{t}:{fx}:{fy}:0"]
    if scenario == "diagonal":
        args += ["--start", "diagonal"]
    if controller == "signorini":
        ctl = Process([binary(), "node", "--config", str(signorini_config(robot, work))])
        ctl.wait_line(r"^signorini: controlling", 60)
    else:
        extra = []
        if scenario == "arm":
            extra = [a for n, d in zip(arm_joints(), ARM_MOVE) for a in ("--move", f"{n}={d}")]
            extra += ["--move-at", str(MOVE_AT_ABS), "--move-time", str(MOVE_TIME)]
        ctl = Process([sys.executable, str(ROOT / "scripts" / "baseline_pd.py"), "--robot", robot, *extra])
        ctl.wait_line(r"^baseline_pd:", 60)
    plant = Process(args)
    refs, stop, move_at = None, threading.Event(), MOVE_AT_ABS
    try:
        if scenario in ("lift", "arm") and controller == "signorini":
            refs = References()
            released = float(plant.wait_line(r"released at t = ([0-9.]+)", 90).group(1))
            if scenario == "lift":
                q0 = initial_configuration(robot)
                times, bases, joints, names = lift_plan(robot, q0)
                start = refs.trajectory(names, times, joints, released + 1.0)
                refs.base_poses(times, bases, start, stop)
            else:
                names = arm_joints()
                posture = np.array([r.posture.get(n, 0.0) for n in names])
                move = np.array(ARM_MOVE)
                zero = np.zeros(len(names))
                move_at = refs.trajectory(names, [0.0, MOVE_TIME, 2 * MOVE_TIME], [posture, posture + move, posture],
                                          MOVE_AT_ABS, [zero] * 3, [zero] * 3)
        plant.proc.wait(duration + 120)
    finally:
        stop.set()
        plant.stop()
        code = ctl.stop()
        if refs:
            refs.close()
    status = next((x for x in reversed(ctl.lines) if "whole run" in x), "")
    if controller == "signorini" and code != 0:
        raise RuntimeError(f"signorini exited with {code}:\n" + "\n".join(ctl.lines[-20:]))
    if not log.exists():
        raise RuntimeError("no log from the robot:\n" + "\n".join(plant.lines[-20:]))
    # The robot time the arm's move was stamped to start at (later than MOVE_AT_ABS when
    # the reference went out late), for `figures`.
    return dict(np.load(log)) | {"move_at": move_at}, status, plant.lines, ctl.lines


def timeline(log, every=0.25):
    """What a failed run looked like, one line per `every` seconds: the base height change,
    tilt, body contact, the largest torque and the command's age (a stale command is zero
    torque on the robot), for a test's failure message."""
    t = log["t"]
    z = log["base_pose"][:, 2] if "base_pose" in log else np.zeros(len(t))
    tilt = tilt_deg(log["base_pose"][:, 3:7]) if "base_pose" in log else np.zeros(len(t))
    lines = ["   t (s)  dz (mm)  tilt (°)  body contact  max |τ|  command age max (ms)"]
    for start in np.arange(0.0, t[-1] if len(t) else 0.0, every):
        k = (t >= start) & (t < start + every)
        if not np.any(k):
            continue
        age = log["command_age"][k]
        lines.append(f"{start:8.2f} {1e3 * (z[k][-1] - z[0]):8.1f} {tilt[k].max():9.2f} "
                     f"{int(np.sum(log['body_contact'][k])):13d} {np.abs(log['tau'][k]).max():8.2f} "
                     f"{1e3 * age.max():20.1f}")
    return "\n".join(lines)


def arm_joints():
    import pinocchio as pin
    model = pin.buildModelFromUrdf(str(mujoco_plant.robot("arm7").urdf))
    return [n for j, n in enumerate(model.names) if j >= 1]


def initial_configuration(robot):
    """The plant's configuration at its start (Pinocchio's convention: base x y z, quaternion
    x y z w, joints in depth-first order)."""
    import pinocchio as pin
    p = mujoco_plant.build(robot)
    model = pin.buildModelFromUrdf(str(p.robot.urdf), pin.JointModelFreeFlyer())
    q = pin.neutral(model)
    pos, quat, _, _ = p.base_state()
    q[:3], q[3:7] = pos, quat
    qj, _ = p.joint_state()
    for j, name in enumerate(model.names):
        if j >= 2:
            q[model.joints[j].idx_q] = qj[p.joints.index(name)]
    return q


# --- figures ---------------------------------------------------------------------------------

def tilt_deg(quat):
    """Angle between the base's z axis and the world's (quaternion x y z w)."""
    x, y, z, w = quat.T
    return np.degrees(np.arccos(np.clip(1 - 2 * (x * x + y * y), -1, 1)))


def force_error(log, window):
    """Σ|F_pred − F_mujoco| / Σ|F_mujoco| of the feet's normal forces, the prediction made
    from the state stamped t against MuJoCo's force of the step its command was applied in
    (t to t + Δt), over the steps where `window(t)` holds (t from the release)."""
    pred = log["predicted"]
    if len(pred) == 0:
        return float("nan")
    dt, released = float(log["dt"]), float(log["released_at"])
    steps = np.rint((log["t"] + released) / dt).astype(np.int64)
    index = {s: k for k, s in enumerate(steps)}
    feet = log["feet"]
    num = den = 0.0
    for stamp, foot, _, _, fz in pred:
        k = index.get(int(round(stamp * 1e-9 / dt)) + 1)
        if k is None or not window(log["t"][k]):
            continue
        num += abs(fz - feet[k, int(foot), 2])
        den += abs(feet[k, int(foot), 2])
    return num / den if den > 0 else float("nan")


def figures(robot, scenario, log, duration):
    t = log["t"]
    out = {"steps": len(t)}
    if robot == "arm7":
        names = arm_joints()
        r = mujoco_plant.robot(robot)
        posture = np.array([r.posture.get(n, 0.0) for n in names])
        released = float(log["released_at"])
        s = t + released - float(log.get("move_at", MOVE_AT_ABS))
        frac = np.array([mujoco_plant.out_and_back(x, MOVE_TIME) for x in s])
        reference = posture + frac[:, None] * np.array(ARM_MOVE)
        moving = (s >= 0) & (s <= 2 * MOVE_TIME + 0.5)
        err = log["q"][moving] - reference[moving]
        out["rms_mrad"] = 1e3 * float(np.sqrt(np.mean(err ** 2)))
        out["max_mrad"] = 1e3 * float(np.abs(err).max())
        limits = mujoco_plant.effort_limits(r.urdf)
        limit = np.array([limits[n] for n in names])
        out["saturated_steps"] = int(np.sum(np.any(np.abs(log["tau"]) >= limit - 1e-9, axis=1)))
        return out
    z = log["base_pose"][:, 2]
    tilt = tilt_deg(log["base_pose"][:, 3:7])
    settled = t >= 0.5
    out["drift_mm"] = 1e3 * float(np.abs(z[settled] - z[0]).max())
    out["tilt_deg"] = float(tilt.max())
    out["body_contact_steps"] = int(np.sum(log["body_contact"]))
    out["fell"] = bool(z.min() < 0.5 * z[0] or not np.all(np.isfinite(z)))
    out["max_torque"] = float(np.abs(log["tau"]).max())
    if scenario == "push":
        weight = float(log["weight"])
        pushes = pushes_of(robot, duration, weight)
        recovered = 0
        xy0 = log["base_pose"][settled][0, :2]
        for start, _, _ in pushes:
            k = np.searchsorted(t, start + 0.2 + 1.5)
            if k < len(t) and abs(z[k] - z[0]) < 0.01 and tilt[k] < 2.0 and \
                    np.linalg.norm(log["base_pose"][k, :2] - xy0) < 0.01:
                recovered += 1
        out["recovered"] = f"{recovered}/{len(pushes)}"
        out["force_error"] = force_error(log, lambda x: any(s <= x < s + 1.0 for s, _, _ in pushes))
    else:
        out["force_error"] = force_error(log, lambda x: x >= 0.5)
    if scenario == "lift":
        # A foot is lifted when MuJoCo's force on it stays zero for most of the hold.
        dt = float(log["dt"])
        lifted = 0
        for foot in range(log["feet"].shape[1]):
            off = log["feet"][:, foot, 2] <= 0.0
            longest = run_length = 0
            for x in off:
                run_length = run_length + 1 if x else 0
                longest = max(longest, run_length)
            lifted += longest * dt >= 0.9 * LIFT_HOLD
        out["lifted"] = f"{lifted}/{log['feet'].shape[1]}"
    return out


def table(rows):
    lines = ["| robot | scenario | controller | base height drift (mm) | tilt max (°) | body contact (steps) "
             "| pushes recovered (feet lifted) | force prediction error | tracking RMS (mrad) | saturated steps | compute p99 (µs) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for robot, scenario, controller, f, status in rows:
        def g(key, fmt):
            return fmt.format(f[key]) if key in f and f[key] == f[key] else "–"
        compute = re.search(r"compute p99 ([0-9.]+)", status)
        lines.append(
            f"| {robot} | {scenario} | {controller} | {g('drift_mm', '{:.1f}')} | {g('tilt_deg', '{:.2f}')} "
            f"| {g('body_contact_steps', '{}')} | {f.get('recovered', f.get('lifted', '–'))} "
            f"| {g('force_error', '{:.2%}')} | {g('rms_mrad', '{:.2f}')} | {g('saturated_steps', '{}')} "
            f"| {compute.group(1) if compute else '–'} |")
    return "\n".join(lines)


DEFAULT = [("quadruped", "stand"), ("quadruped", "push"), ("quadruped", "diagonal"), ("quadruped", "lift"),
           ("solo12", "stand"), ("solo12", "push"), ("solo12", "diagonal"), ("solo12", "lift"), ("arm7", "arm")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", nargs="*", default=["quadruped", "solo12", "arm7"])
    parser.add_argument("--scenarios", nargs="*", default=["stand", "push", "diagonal", "lift", "arm"])
    parser.add_argument("--controllers", nargs="*", default=["signorini", "pd"])
    parser.add_argument("--duration", type=float, default=30.0, help="stand and push (s); diagonal 10, lift 14")
    parser.add_argument("--plant", default="", help="extra arguments of scripts/mujoco_robot.py")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="signorini-mujoco-")
    rows = []
    for robot, scenario in DEFAULT:
        if robot not in args.robots or scenario not in args.scenarios:
            continue
        duration = {"stand": args.duration, "push": args.duration, "diagonal": 10.0, "lift": 15.0,
                    "arm": MOVE_AT_ABS + 2 * MOVE_TIME + 1.5}[scenario]
        for controller in args.controllers:
            if scenario == "lift" and controller != "signorini":
                continue
            log, status, _, _ = run(robot, scenario, controller, duration, work, args.plant.split())
            f = figures(robot, scenario, log, duration)
            rows.append((robot, scenario, controller, f, status))
            print(robot, scenario, controller, f, status.split("|")[-3:], flush=True)
    text = (f"Measured {datetime.date.today()} on {os.cpu_count()} CPUs, MuJoCo robot "
            f"(scripts/mujoco_robot.py{', ' + args.plant if args.plant else ''}), 1 kHz, one period of delay over "
            f"ROS 2; signorini `mode: control` with the robot's configuration; pd: scripts/baseline_pd.py.\n\n"
            + table(rows) + "\n\nCommand: `scripts/with_ros.sh python scripts/mujoco_control.py"
            + (f" --plant \"{args.plant}\"" if args.plant else "") + " --write`.")
    print(text)
    if args.write:
        from bench_dynamics import write_section
        write_section("mujoco_control", "Control next to a MuJoCo robot", text)


if __name__ == "__main__":
    main()

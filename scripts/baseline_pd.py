#!/usr/bin/env python3
"""The baseline controller of the MuJoCo comparisons: a gravity-compensated joint PD, as an
rclpy node over the same topics as signorini's `mode: control` (written with Pinocchio,
nothing of signorini's).

    τ = K_p (q_ref − q) − K_d v + τ_g

K_p and K_d are signorini's acceleration gains (kp, kd of the robot's control
configuration) times the joint-space mass matrix's diagonal at the posture, so that both
controllers are tuned alike. τ_g: for a fixed base the gravity torques g(q); for a floating
base the joint torques that hold the robot's weight on its feet, −J_fᵀ f, with the feet's
forces f the least-norm ones that carry the weight and its moment about the centre of
mass (the usual static distribution). Those forces are its prediction, published as
WrenchStamped on PREFIX/<foot> like signorini's predicted contact wrenches. q_ref: the
posture, or a minimum-jerk (quintic) move from the posture by `--move` joint offsets over
`--move-time` seconds and back, from robot time `--move-at`.

    scripts/with_ros.sh python scripts/baseline_pd.py --robot quadruped
"""

import argparse
import sys
import threading
from pathlib import Path

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mujoco_plant  # noqa: E402

import rclpy  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
import yaml  # noqa: E402


class Baseline:
    def __init__(self, args):
        robot = mujoco_plant.robot(args.robot)
        self.robot = robot
        self.model = (pin.buildModelFromUrdf(str(robot.urdf), pin.JointModelFreeFlyer()) if robot.floating
                      else pin.buildModelFromUrdf(str(robot.urdf)))
        self.data = self.model.createData()
        m = self.model
        self.names = [n for j, n in enumerate(m.names) if j >= (2 if robot.floating else 1) and m.joints[j].nq == 1]
        self.iq = np.array([m.joints[m.getJointId(n)].idx_q for n in self.names])
        self.iv = np.array([m.joints[m.getJointId(n)].idx_v for n in self.names])
        control = yaml.safe_load(robot.config.read_text()).get("control", {}) if robot.config else {}
        kp, kd = float(control.get("kp", 400.0)), float(control.get("kd", 40.0))
        self.posture = np.array([robot.posture.get(n, 0.0) for n in self.names])
        q0 = pin.neutral(m)
        q0[self.iq] = self.posture
        mass = pin.crba(m, self.data, q0)
        diag = np.diag(mass)[self.iv]
        self.kp, self.kd = kp * diag, kd * diag
        self.move = np.zeros(len(self.names))
        for item in args.move or []:
            name, _, value = item.partition("=")
            try:
                self.move[self.names.index(name)] = float(value)
            except ValueError:
                raise SystemExit(f"baseline_pd: --move {item!r}: expected JOINT=OFFSET, JOINT one of "
                                 f"{', '.join(self.names)}") from None
        self.move_time, self.move_at = args.move_time, args.move_at
        self.feet = [m.getFrameId(f) for f in robot.feet]
        self.weight = pin.computeTotalMass(m) * 9.81

        self.node = rclpy.create_node("baseline_pd")
        self.lock = threading.Lock()
        self.odom = None
        self.commands = self.node.create_publisher(Float64MultiArray, f"/{args.controller}/commands",
                                                   QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE))
        self.predicted = [self.node.create_publisher(WrenchStamped, f"{args.predicted}/{f}", 10) for f in robot.feet]
        best_effort = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
        if robot.floating:
            self.node.create_subscription(Odometry, "/odom", self.on_odom, best_effort)
        self.node.create_subscription(JointState, "/joint_states", self.on_state, best_effort)

    def on_odom(self, msg):
        with self.lock:
            self.odom = msg

    def on_state(self, msg):
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        m = self.model
        q, v = pin.neutral(m), np.zeros(m.nv)
        index = [list(msg.name).index(n) for n in self.names]
        pos, vel = np.asarray(msg.position)[index], np.asarray(msg.velocity)[index]
        q[self.iq], v[self.iv] = pos, vel
        if self.robot.floating:
            with self.lock:
                o = self.odom
            if o is None:
                return
            p, r = o.pose.pose.position, o.pose.pose.orientation
            quat = np.array([r.x, r.y, r.z, r.w])
            q[:7] = [p.x, p.y, p.z, *(quat / np.linalg.norm(quat))]
        t = stamp * 1e-9 - self.move_at
        reference = self.posture + self.move * mujoco_plant.out_and_back(t, self.move_time)
        tau = self.kp * (reference - pos) - self.kd * vel
        forces = None
        if self.robot.floating:
            hold, forces = self.weight_on_feet(q)
            tau = tau + hold
        else:
            tau = tau + pin.computeGeneralizedGravity(m, self.data, q)[self.iv]
        self.commands.publish(Float64MultiArray(data=[float(x) for x in tau]))
        if forces is not None:
            for publisher, f in zip(self.predicted, forces):
                w = WrenchStamped()
                w.header.stamp = msg.header.stamp
                w.wrench.force.x, w.wrench.force.y, w.wrench.force.z = (float(x) for x in f)
                publisher.publish(w)

    def weight_on_feet(self, q):
        """(joint torques −J_fᵀ f, the feet's forces f): f the least-norm forces whose sum
        carries the weight and whose moment about the centre of mass vanishes."""
        m, d = self.model, self.data
        pin.computeJointJacobians(m, d, q)
        pin.updateFramePlacements(m, d)
        com = pin.centerOfMass(m, d, q)
        points = [d.oMf[f].translation for f in self.feet]
        # A f = b: Σ f_i = W ẑ, Σ (p_i − c) × f_i = 0.
        a = np.zeros((6, 3 * len(points)))
        for i, p in enumerate(points):
            a[:3, 3 * i:3 * i + 3] = np.eye(3)
            a[3:, 3 * i:3 * i + 3] = pin.skew(p - com)
        b = np.array([0, 0, self.weight, 0, 0, 0])
        f = np.linalg.lstsq(a, b, rcond=None)[0].reshape(-1, 3)
        tau = np.zeros(m.nv)
        for fi, frame in zip(f, self.feet):
            j = pin.getFrameJacobian(m, d, frame, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]
            tau -= j.T @ fi
        return tau[self.iv], f


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robot", choices=mujoco_plant.ROBOTS, default="quadruped")
    parser.add_argument("--controller", default="effort_controller")
    parser.add_argument("--predicted", default="/baseline/predicted_contact_wrenches")
    parser.add_argument("--move", action="append", help="JOINT=OFFSET of the minimum-jerk move (rad)")
    parser.add_argument("--move-time", type=float, default=2.0)
    parser.add_argument("--move-at", type=float, default=5.0, help="the move starts at this robot time (s)")
    args = parser.parse_args()
    rclpy.init()
    baseline = Baseline(args)
    executor = SingleThreadedExecutor()
    executor.add_node(baseline.node)
    print(f"baseline_pd: {args.robot}, {len(baseline.names)} joints", flush=True)
    try:
        executor.spin()
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    baseline.node.destroy_node()
    rclpy.try_shutdown()


if __name__ == "__main__":
    main()

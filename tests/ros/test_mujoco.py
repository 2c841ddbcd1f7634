"""signorini's controller next to a robot that is not its own model: the bundled quadruped
simulated by MuJoCo (scripts/mujoco_robot.py: its own URDF import, soft contacts and
integrator, paced at the wall clock, one period of delay over ROS 2), a few seconds with one
push. The long runs and the comparison with a joint PD are scripts/mujoco_control.py
(README, "Measured")."""

import re
import sys

import numpy as np

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mujoco_control  # noqa: E402


def test_the_quadruped_stands_on_a_mujoco_robot_through_a_push(tmp_path):
    """Issue 22's short version: masses 10 % heavier than the URDF says, friction 0.8,
    velocities with noise, odometry stamped 0.3 ms off the joints' stamp and with a
    quaternion off unit by up to 0.2 %: one lateral push of 30 % of the weight for 0.2 s.
    The base stays within 1 cm and 2°, nothing but the feet touches the ground, the robot
    is back within 1 cm 1.5 s after the push, the predicted foot forces are within 10 % of
    MuJoCo's over the push (Σ|ΔF| / ΣF), every state paired, no tick refused, and the
    loop allocates nothing."""
    plant = ["--mass-scale", "1.1", "--friction", "0.8", "--velocity-noise", "0.005", "--odom-offset-us", "300",
             "--quaternion-error", "0.002"]
    log, status, plant_lines, controller_lines = mujoco_control.run("quadruped", "push", "signorini", 5.0, tmp_path,
                                                                    plant)
    f = mujoco_control.figures("quadruped", "push", log, 5.0)
    print(f, status)
    # On a failure: the figures, then what both sides said and how the run went.
    said = [x for x in controller_lines if re.search(r"WARN|ERROR|refused|rejected|stale|missed|fallback", x)]
    story = "\n".join([str(f), *plant_lines[-3:], *said[-30:], *controller_lines[-3:], mujoco_control.timeline(log)])
    assert f["steps"] == 5000, story
    assert not f["fell"] and f["body_contact_steps"] == 0, story
    assert f["drift_mm"] < 10.0 and f["tilt_deg"] < 2.0, story
    assert f["recovered"] == "1/1", story
    assert f["force_error"] < 0.10, story
    assert "loop allocations 0" in status, status
    assert "overruns" in status


def test_the_quadruped_gets_up_after_its_drives_drop_out(tmp_path):
    """The same robot (10 % heavier, friction 0.8) with its drives off for 0.4 s from
    t = 0.5 s: it drops onto its belly. Standing on its feet alone (`control.stance_links`
    of config/quadruped_control.yaml) the controller raises it: from 1.5 s after the
    drives return to the end, the base is within 1 cm of its height and 2° of level and
    nothing but the feet touches the ground (before issue 23's follow-up the reference held
    the body where it lay, and the base stayed 34 cm down)."""
    start, off, duration = 0.5, 0.4, 4.0
    plant = ["--mass-scale", "1.1", "--friction", "0.8", "--dropout", f"{start}:{off}"]
    log, status, plant_lines, controller_lines = mujoco_control.run("quadruped", "stand", "signorini", duration,
                                                                    tmp_path, plant)
    t, z = log["t"], log["base_pose"][:, 2]
    tilt = mujoco_control.tilt_deg(log["base_pose"][:, 3:7])
    # On a failure: what both sides said (the node's warnings: stale state, refused ticks,
    # unpaired odometry), how the run went, then the timeline.
    said = [x for x in controller_lines if re.search(r"WARN|ERROR|refused|rejected|stale|missed|fallback", x)]
    story = "\n".join([*plant_lines[-3:], *said[-30:], *controller_lines[-3:], mujoco_control.timeline(log)])
    assert z.min() < z[0] - 0.1, "the drop-out laid it down\n" + story
    after = t >= start + off + 1.5
    drift, lean = 1e3 * np.abs(z[after] - z[0]).max(), tilt[after].max()
    print(f"lowest {1e3 * (z.min() - z[0]):.0f} mm; from 1.5 s after: drift {drift:.1f} mm, tilt {lean:.2f}°")
    assert drift < 10.0 and lean < 2.0, story
    assert not np.any(log["body_contact"][after]), story


def test_the_arm_tracks_a_quintic_move_on_a_mujoco_robot(tmp_path):
    """The 7-dof arm on MuJoCo: every joint out and back by a minimum-jerk move of 2 s each
    way: RMS tracking error below 0.5 mrad (issue 22 asks for 5; `make mujoco` measures
    0.02–0.12 over runs), no torque at its effort limit."""
    log, status, plant_lines, controller_lines = mujoco_control.run("arm7", "arm", "signorini",
                                                                    mujoco_control.MOVE_AT_ABS + 5.0, tmp_path)
    f = mujoco_control.figures("arm7", "arm", log, 0.0)
    print(f, status)
    # On a failure: the figures, what both sides said, the run's status and the timeline
    # (the largest torque and the command's age every 0.25 s: a full tests/ros run once saw
    # 20 saturated steps that single runs never show).
    said = [x for x in controller_lines if re.search(r"WARN|ERROR|refused|rejected|stale|missed|fallback", x)]
    story = "\n".join([str(f), status, *plant_lines[-3:], *said[-30:], mujoco_control.timeline(log)])
    assert f["rms_mrad"] < 0.5 and f["saturated_steps"] == 0, story

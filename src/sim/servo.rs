//! Joint servos: the torque a simulated joint motor applies to follow a position, velocity
//! or effort command, as the position and velocity interfaces of ros2_control's simulators
//! do (gazebo_ros2_control's `pos_pid`/`vel_pid`, mujoco_ros2_control's PIDs): a servo,
//! never a teleport.
//!
//! ```text
//! position q*:  e = clamp(q*, q_lo, q_hi) ⊖ q,  I += e·Δt,
//!               τ = kd·(clamp(kp·e/kd, ±v_max) − v) + ki·I   (= kp·e − kd·v + ki·I below v_max)
//! velocity v*:  e = clamp(v*, ±v_max) − v,      I += e·Δt,  τ = kp·e + ki·I
//! effort τ*:    τ = τ*
//! ```
//!
//! then τ clamped to the URDF effort limit. v_max is the URDF velocity limit: a far
//! position target is approached at most that fast (the PD's velocity reference
//! kp·e/kd saturates, as a drive's position loop feeding its velocity loop does), so that
//! an effort-limited joint can brake in time instead of overshooting a large step. ⊖ wraps a continuous joint's error to
//! (−π, π] (the short way round); a bounded joint's target is clamped to its URDF limits
//! (the simulator also enforces them as constraints). The integral is kept within
//! |ki·I| ≤ the effort limit (anti-windup: it never asks for more than the motor has), and
//! is not integrated while the output is saturated in the direction of the error
//! (conditional integration), so that a large step does not overshoot on a wound-up
//! integral. The law is explicit in the state at the start of the step: it is stable for
//! kd·Δt and kp·Δt² small against the joint's effective inertia (the defaults of the
//! shipped configurations are tuned so; see README's configuration reference).

use std::f64::consts::PI;

/// The command interface of a joint, as ros2_control names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Interface {
    /// A position target (rad or m), followed by a PID.
    Position,
    /// A velocity target (rad/s or m/s), followed by a PI.
    Velocity,
    /// An effort (N·m or N), applied as is (within the effort limit).
    Effort,
}

/// A servo's gains. Position: kp in N·m/rad, kd in N·m·s/rad, ki in N·m/(rad·s);
/// velocity: kp in N·m·s/rad, ki in N·m/rad (kd unused).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Gains {
    /// Proportional gain.
    pub kp: f64,
    /// Derivative gain (position servos).
    pub kd: f64,
    /// Integral gain.
    pub ki: f64,
}

/// One joint's servo: its interface, gains and the URDF limits it respects.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointServo {
    /// What the command means.
    pub interface: Interface,
    /// Its gains (unused for effort).
    pub gains: Gains,
    /// Position limits (rad or m); infinite for a continuous joint.
    pub lower: f64,
    /// Upper position limit.
    pub upper: f64,
    /// A continuous joint: position errors wrap to (−π, π].
    pub unbounded: bool,
    /// The URDF effort limit (N·m or N); infinite when the URDF gives none.
    pub effort_limit: f64,
    /// The URDF velocity limit (rad/s or m/s); infinite when the URDF gives none.
    pub velocity_limit: f64,
}

impl JointServo {
    /// The torque towards `target` at the joint's `position` and `velocity`, updating its
    /// `integral` over a step `dt` (see the module's law).
    pub fn torque(&self, target: f64, position: f64, velocity: f64, integral: &mut f64, dt: f64) -> f64 {
        let Gains { kp, kd, ki } = self.gains;
        let (error, pd, approaching) = match self.interface {
            Interface::Effort => return clamp(target, self.effort_limit),
            Interface::Position => {
                let e = self.position_error(target, position);
                let limited = kd > 0.0 && (kp * e / kd).abs() > self.velocity_limit;
                let pd = match limited {
                    true => kd * ((kp * e / kd).clamp(-self.velocity_limit, self.velocity_limit) - velocity),
                    false => kp * e - kd * velocity,
                };
                (e, pd, limited)
            }
            Interface::Velocity => {
                let e = clamp(target, self.velocity_limit) - velocity;
                (e, kp * e, false)
            }
        };
        let unsaturated = pd + ki * *integral;
        // Integrate unless the motor is saturated pushing the same way, or the joint still
        // approaches a far target at the velocity limit (no steady error to remove yet).
        let saturated = unsaturated.abs() >= self.effort_limit && unsaturated * error > 0.0;
        if !saturated && !approaching {
            *integral += error * dt;
        }
        if ki > 0.0 && self.effort_limit.is_finite() {
            let bound = self.effort_limit / ki;
            *integral = integral.clamp(-bound, bound);
        }
        clamp(pd + ki * *integral, self.effort_limit)
    }

    /// clamp(q*, q_lo, q_hi) − q, the short way round for a continuous joint.
    fn position_error(&self, target: f64, position: f64) -> f64 {
        if self.unbounded {
            let e = (target - position).rem_euclid(2.0 * PI);
            if e > PI { e - 2.0 * PI } else { e }
        } else {
            target.clamp(self.lower, self.upper) - position
        }
    }
}

/// `x` within ±`limit` (a non-finite or non-positive limit: no clamp).
fn clamp(x: f64, limit: f64) -> f64 {
    if limit > 0.0 && limit.is_finite() { x.clamp(-limit, limit) } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servo(interface: Interface, kp: f64, kd: f64, ki: f64) -> JointServo {
        let gains = Gains { kp, kd, ki };
        JointServo {
            interface,
            gains,
            lower: -1.0,
            upper: 1.0,
            unbounded: false,
            effort_limit: 10.0,
            velocity_limit: 2.0,
        }
    }

    #[test]
    fn a_position_servo_is_a_pid_on_the_clamped_target_within_the_effort_limit() {
        let s = servo(Interface::Position, 20.0, 2.0, 100.0);
        let mut integral = 0.0;
        // e = 0.1, I = 0.1·0.01: τ = 2 + 0.1 − 2·0.5.
        let tau = s.torque(0.3, 0.2, 0.5, &mut integral, 0.01);
        assert!((integral - 1e-3).abs() < 1e-15 && (tau - 1.1).abs() < 1e-12, "{tau} {integral}");
        // A target beyond the upper limit 1 is the limit: e = 0.5, and without a velocity
        // limit τ = 20·0.5 = 10, the effort limit: saturated the way of the error, no
        // integration.
        let free = JointServo { velocity_limit: f64::INFINITY, ..s };
        let mut integral = 0.0;
        assert_eq!(free.torque(5.0, 0.5, 0.0, &mut integral, 0.01), 10.0);
        assert_eq!(integral, 0.0);
        let tau = s.torque(0.6, 0.5, 0.0, &mut integral, 0.01);
        assert!((tau - (20.0 * 0.1 + 100.0 * 1e-3)).abs() < 1e-12);
    }

    #[test]
    fn the_integral_never_asks_for_more_than_the_effort_limit() {
        let s = servo(Interface::Velocity, 0.0, 0.0, 1000.0);
        let mut integral = 0.0;
        for _ in 0..1000 {
            s.torque(1.0, 0.0, 0.0, &mut integral, 0.01);
        }
        assert!((integral - 10.0 / 1000.0).abs() < 1e-15, "{integral}");
        assert_eq!(s.torque(1.0, 0.0, 0.0, &mut integral, 0.01), 10.0);
    }

    #[test]
    fn a_velocity_servo_is_a_pi_on_the_velocity_error_and_ignores_kd() {
        let s = servo(Interface::Velocity, 4.0, 99.0, 10.0);
        let mut integral = 0.0;
        let tau = s.torque(1.8, 0.0, 1.3, &mut integral, 0.1);
        assert!((tau - (4.0 * 0.5 + 10.0 * 0.05)).abs() < 1e-12, "{tau}");
        // Beyond the velocity limit 2: the limit is the target.
        let mut integral = 0.0;
        let tau = s.torque(7.0, 0.0, 1.5, &mut integral, 0.1);
        assert!((tau - (4.0 * 0.5 + 10.0 * 0.05)).abs() < 1e-12, "{tau}");
    }

    /// A far position target is approached at the velocity limit at most: the PD's
    /// velocity reference kp·e/kd saturates at v_max.
    #[test]
    fn a_far_position_target_is_approached_at_the_velocity_limit() {
        let s = servo(Interface::Position, 20.0, 2.0, 0.0);
        let mut integral = 0.0;
        // e = 0.9: kp·e/kd = 9 > 2, so τ = 2·(2 − 1.5) = 1, not 20·0.9 − 2·1.5 = 15.
        assert!((s.torque(0.9, 0.0, 1.5, &mut integral, 1e-3) - 1.0).abs() < 1e-12);
        // Near it, the plain PD: e = 0.05, τ = 1 − 0.2.
        assert!((s.torque(0.05, 0.0, 0.1, &mut integral, 1e-3) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_continuous_joint_goes_the_short_way_and_an_effort_is_clamped() {
        let mut s = servo(Interface::Position, 1.0, 0.0, 0.0);
        s.unbounded = true;
        let mut integral = 0.0;
        // From 3 to −3 (+ 2π·5): the short way is +0.283.
        let tau = s.torque(-3.0 + 10.0 * PI, 3.0, 0.0, &mut integral, 1e-3);
        assert!((tau - (2.0 * PI - 6.0)).abs() < 1e-9, "{tau}");
        let e = servo(Interface::Effort, 0.0, 0.0, 0.0);
        assert_eq!(e.torque(-25.0, 0.0, 0.0, &mut integral, 1e-3), -10.0);
        assert_eq!(e.torque(3.0, 0.0, 0.0, &mut integral, 1e-3), 3.0);
    }
}

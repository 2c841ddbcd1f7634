//! Inverse dynamics by the Recursive Newton-Euler Algorithm (Featherstone, RBDA §5.3),
//! in the joint frames, with Pinocchio's conventions (gravity as a fictitious base
//! acceleration; external forces per joint, in the joint frame).

use nalgebra::DVector;

use super::kinematics::{joint_velocity, place_joint};
use crate::model::{Data, JointType, Model};
use crate::spatial::{Force, Mat3, Motion, SE3, Vec3};

/// `τ = M(q)·a + C(q, v)·v + g(q)` into `data.tau` (and returned).
pub fn rnea<'d>(model: &Model, data: &'d mut Data, q: &[f64], v: &[f64], a: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, q, v, a, None);
    backward_pass(model, data);
    &data.tau
}

/// RNEA with external forces `fext[i]` acting on the body of joint `i`, expressed in that
/// joint's frame: `τ = M·a + C·v + g − Σ Jᵢᵀ·fextᵢ`.
pub fn rnea_with_external_forces<'d>(
    model: &Model,
    data: &'d mut Data,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    fext: &[Force],
) -> &'d DVector<f64> {
    debug_assert_eq!(fext.len(), model.njoints());
    forward_pass(model, data, q, v, a, Some(fext));
    backward_pass(model, data);
    &data.tau
}

/// Generalized gravity `g(q)` into `data.g` (RNEA with v = a = 0).
pub fn gravity_torque<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DVector<f64> {
    let gravity = model.gravity;
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
        let parent = model.parents[i];
        let a_parent = if parent > 0 { data.a_gf[parent] } else { -gravity };
        data.v[i] = Motion::ZERO;
        data.a_gf[i] = data.li_m_i[i].act_inv_motion(&a_parent);
        data.f[i] = model.inertias[i].apply(&data.a_gf[i]);
    }
    backward_pass(model, data);
    data.g.copy_from(&data.tau);
    &data.g
}

/// Coriolis, centrifugal and gravity terms `b(q, v) = C(q, v)·v + g(q)` into `data.tau`.
pub fn nonlinear_effects<'d>(model: &Model, data: &'d mut Data, q: &[f64], v: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, q, v, &[], None);
    backward_pass(model, data);
    &data.tau
}

/// [`rnea`] at the placements already in `data` (after a kinematics pass at the same q:
/// [`super::crba`], [`super::compute_joint_jacobians`]); `a` empty means zero, which is
/// [`nonlinear_effects`].
pub(crate) fn rnea_placed<'d>(model: &Model, data: &'d mut Data, v: &[f64], a: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, &[], v, a, None);
    backward_pass(model, data);
    &data.tau
}

/// Velocities, accelerations (with gravity) and body forces. `a` empty means zero; `q`
/// empty means the placements in `data` are current.
#[inline]
fn forward_pass(model: &Model, data: &mut Data, q: &[f64], v: &[f64], a: &[f64], fext: Option<&[Force]>) {
    let minus_gravity = -model.gravity;
    for i in 1..model.njoints() {
        if !q.is_empty() {
            place_joint(model, data, i, q);
        }
        let t = &model.joint_types[i];
        let (iv, nv) = (model.idx_v[i], t.nv());
        let parent = model.parents[i];
        let li_m_i = &data.li_m_i[i];
        let (vi, a_gf) = match t {
            // S = (0, axis): the joint velocity is an angular w, and vᵢ × (0, w) = (vᵢ_lin × w,
            // vᵢ_ang × w): the general formulas without their zero terms (the same numbers).
            JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis } => {
                let w = axis.vector * v[iv];
                let turn = Turn::of(t, &model.joint_placements[i], li_m_i);
                let act_inv = |m: &Motion| match &turn {
                    Some(turn) => turn.act_inv_motion(&li_m_i.translation, m),
                    None => li_m_i.act_inv_motion(m),
                };
                if parent > 0 {
                    let mut vi = act_inv(&data.v[parent]);
                    vi.angular += w;
                    let mut a_gf = act_inv(&data.a_gf[parent]);
                    if !a.is_empty() {
                        a_gf.angular += axis.vector * a[iv];
                    }
                    a_gf.linear += vi.linear.cross(&w);
                    a_gf.angular += vi.angular.cross(&w);
                    (vi, a_gf)
                } else {
                    let mut a_gf = act_inv(&minus_gravity);
                    if !a.is_empty() {
                        a_gf.angular += axis.vector * a[iv];
                    }
                    (Motion::new(Vec3::zeros(), w), a_gf)
                }
            }
            _ => {
                let vj = joint_velocity(t, &v[iv..iv + nv]);
                let aj = if a.is_empty() { Motion::ZERO } else { joint_velocity(t, &a[iv..iv + nv]) };
                if parent > 0 {
                    let vi = li_m_i.act_inv_motion(&data.v[parent]) + vj;
                    (vi, li_m_i.act_inv_motion(&data.a_gf[parent]) + aj + vi.cross(&vj))
                } else {
                    (vj, li_m_i.act_inv_motion(&minus_gravity) + aj)
                }
            }
        };
        let inertia = &model.inertias[i];
        let mut f = inertia.apply(&a_gf) + inertia.vxiv(&vi);
        if let Some(fext) = fext {
            f -= fext[i];
        }
        data.v[i] = vi;
        data.a_gf[i] = a_gf;
        data.f[i] = f;
    }
}

/// τᵢ = Sᵢᵀ·fᵢ, then each joint's force is transmitted to its parent.
#[inline]
fn backward_pass(model: &Model, data: &mut Data) {
    for i in (1..model.njoints()).rev() {
        let t = &model.joint_types[i];
        let iv = model.idx_v[i];
        let f = data.f[i];
        match t {
            JointType::FreeFlyer => data.tau.fixed_rows_mut::<6>(iv).copy_from(&f.to_vector()),
            JointType::Universe => {}
            JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis } => {
                data.tau[iv] = axis.vector.dot(&f.angular)
            }
            one_dof => data.tau[iv] = one_dof.axis_motion().dot(&f),
        }
        let parent = model.parents[i];
        if parent > 0 {
            let li_m_i = &data.li_m_i[i];
            let fp = match Turn::of(t, &model.joint_placements[i], li_m_i) {
                Some(turn) => turn.act_force(&li_m_i.translation, &f),
                None => li_m_i.act_force(&f),
            };
            data.f[parent] += fp;
        }
    }
}

/// The rotation of a revolute joint's frame relative to its parent's when it is a plane
/// rotation about a coordinate axis e_k (an aligned axis and a placement that only
/// translates, URDF rpy 0: most joints): Rᵀx and Rx then take 4 products instead of 9,
/// and give the same numbers (the general products' other terms are exact zeros).
#[derive(Copy, Clone, Debug)]
struct Turn {
    /// The axis k; columns i = k + 1 and j = k + 2 (mod 3) turn.
    k: usize,
    cos: f64,
    /// sin θ times the axis' sign.
    sin: f64,
}

impl Turn {
    /// The turn of joint `t` at `li_m_i` (its placement `placement` times the joint's
    /// rotation), if it is one.
    #[inline]
    fn of(t: &JointType, placement: &SE3, li_m_i: &SE3) -> Option<Turn> {
        let (JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis }) = t else { return None };
        let (k, _) = axis.aligned()?;
        if placement.rotation != Mat3::identity() {
            return None;
        }
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        // Column i of R is e_i cos + e_j sin.
        Some(Turn { k, cos: li_m_i.rotation[(i, i)], sin: li_m_i.rotation[(j, i)] })
    }

    /// Rᵀx: component k stays, i ← cos x_i + sin x_j, j ← cos x_j − sin x_i.
    #[inline]
    fn tr_mul(&self, x: &Vec3) -> Vec3 {
        let (c, s) = (self.cos, self.sin);
        match self.k {
            0 => Vec3::new(x.x, c * x.y + s * x.z, c * x.z - s * x.y),
            1 => Vec3::new(c * x.x - s * x.z, x.y, c * x.z + s * x.x),
            _ => Vec3::new(c * x.x + s * x.y, c * x.y - s * x.x, x.z),
        }
    }

    /// Rx: component k stays, i ← cos x_i − sin x_j, j ← sin x_i + cos x_j.
    #[inline]
    fn mul(&self, x: &Vec3) -> Vec3 {
        let (c, s) = (self.cos, self.sin);
        match self.k {
            0 => Vec3::new(x.x, c * x.y - s * x.z, s * x.y + c * x.z),
            1 => Vec3::new(s * x.z + c * x.x, x.y, c * x.z - s * x.x),
            _ => Vec3::new(c * x.x - s * x.y, s * x.x + c * x.y, x.z),
        }
    }

    /// [`SE3::act_inv_motion`] of (R, `translation`).
    #[inline]
    fn act_inv_motion(&self, translation: &Vec3, m: &Motion) -> Motion {
        Motion { linear: self.tr_mul(&(m.linear - translation.cross(&m.angular))), angular: self.tr_mul(&m.angular) }
    }

    /// [`SE3::act_force`] of (R, `translation`).
    #[inline]
    fn act_force(&self, translation: &Vec3, f: &Force) -> Force {
        let linear = self.mul(&f.linear);
        Force { linear, angular: self.mul(&f.angular) + translation.cross(&linear) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::joint::Axis;

    #[test]
    fn a_plane_turn_gives_the_numbers_of_the_full_transform() {
        let placement = SE3::from_translation(Vec3::new(0.1, -0.2, 0.3));
        let m = Motion::new(Vec3::new(0.7, -1.3, 2.1), Vec3::new(-0.4, 0.9, 1.7));
        let f = Force::new(Vec3::new(3.0, -2.0, 0.5), Vec3::new(0.25, 1.5, -0.75));
        for k in 0..3 {
            for sign in [1.0, -1.0] {
                let mut vector = Vec3::zeros();
                vector[k] = sign;
                let axis = Axis::new(vector);
                let (sin, cos) = 0.83f64.sin_cos();
                let li_m_i = axis.rotate(&placement, cos, sin);
                let turn = Turn::of(&JointType::Revolute { axis }, &placement, &li_m_i).unwrap();
                let t = &li_m_i.translation;
                assert_eq!(turn.act_inv_motion(t, &m), li_m_i.act_inv_motion(&m), "axis {k} sign {sign}");
                assert_eq!(turn.act_force(t, &f), li_m_i.act_force(&f), "axis {k} sign {sign}");
            }
        }
        // Not a turn: a rotated placement, an oblique axis.
        let tilted = SE3::new(crate::spatial::rotation_from_rpy(0.1, 0.0, 0.0), Vec3::zeros());
        let x = Axis::unit(0);
        assert!(Turn::of(&JointType::Revolute { axis: x }, &tilted, &x.rotate(&tilted, 1.0, 0.0)).is_none());
        let oblique = Axis::new(Vec3::new(0.6, 0.8, 0.0));
        let li = oblique.rotate(&placement, 1.0, 0.0);
        assert!(Turn::of(&JointType::Revolute { axis: oblique }, &placement, &li).is_none());
    }
}

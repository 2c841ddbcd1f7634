//! Several robots as one model: a forest of kinematic trees under one universe, the way
//! Pinocchio's `appendModel` and MuJoCo's single `mjModel` with several free joints hold
//! them.
//!
//! Why one model rather than a list of robots: every algorithm (RNEA, CRBA, ABA, the
//! tree-sparse LTDL factorization, the Jacobians) already walks a tree whose joint 0 is the
//! universe and whose dofs carry an expanded parent array with [`NO_PARENT`] at a root; a
//! forest is such a tree with several children of the universe, so the mass matrix comes
//! out block diagonal and its factorization never couples the robots. The stepper, the
//! contact assembly and the solvers then see one robot of nq = Σ nq_k, nv = Σ nv_k and need
//! no change; a single robot is not touched at all (no model is appended). What the
//! forest needs elsewhere is where "the base" was assumed to be joint 1: each robot's root
//! is its own child of the universe, and the collision world must test shapes of
//! different robots against each other whatever the self-collision settings say
//! ([`CollisionGeometry::robot`]).

use super::multibody::{Model, NO_PARENT};
use crate::spatial::SE3;

impl Model {
    /// This model with `other` appended as robot number `robot` (its shapes'
    /// [`CollisionGeometry::robot`]): its joints after this model's, its roots children of
    /// the universe placed at `world_m_root` (a free-flyer root keeps an identity placement
    /// only if `world_m_root` is the identity: give a floating base its pose in q instead),
    /// and every joint, frame, link and shape name prefixed by `prefix` (e.g. `"a/"`).
    /// This model's gravity is kept. Pinocchio: `appendModel(self, other, universe,
    /// world_m_root)`.
    pub fn append(&self, other: &Model, robot: usize, prefix: &str, world_m_root: &SE3) -> Model {
        let mut m = self.clone();
        let (joint_offset, frame_offset, nq, nv) = (self.njoints() - 1, self.nframes() - 1, self.nq, self.nv);
        let joint = |j: usize| if j == 0 { 0 } else { j + joint_offset };
        let frame = |f: usize| if f == 0 { 0 } else { f + frame_offset };
        let on_universe = |j: usize, placement: &SE3| if j == 0 { world_m_root.compose(placement) } else { *placement };
        for i in 1..other.njoints() {
            m.joint_types.push(other.joint_types[i]);
            m.joint_names.push(format!("{prefix}{}", other.joint_names[i]));
            m.parents.push(joint(other.parents[i]));
            m.joint_placements.push(on_universe(other.parents[i], &other.joint_placements[i]));
            m.inertias.push(other.inertias[i]);
            m.idx_q.push(other.idx_q[i] + nq);
            m.idx_v.push(other.idx_v[i] + nv);
            m.nv_subtree.push(other.nv_subtree[i]);
        }
        m.nq += other.nq;
        m.nv += other.nv;
        m.nv_subtree[0] = m.nv;
        m.dof_parent.extend(other.dof_parent.iter().map(|&p| if p == NO_PARENT { NO_PARENT } else { p + nv }));
        m.dof_subtree_end.extend(other.dof_subtree_end.iter().map(|&e| e + nv));
        for f in &other.frames[1..] {
            let mut f = f.clone();
            f.name = format!("{prefix}{}", f.name);
            f.placement = on_universe(f.parent_joint, &f.placement);
            (f.parent_joint, f.parent_frame) = (joint(f.parent_joint), frame(f.parent_frame));
            m.frames.push(f);
        }
        let extend = |a: &mut nalgebra::DVector<f64>, b: &nalgebra::DVector<f64>| {
            *a = nalgebra::DVector::from_iterator(a.len() + b.len(), a.iter().chain(b.iter()).copied());
        };
        extend(&mut m.lower_position_limit, &other.lower_position_limit);
        extend(&mut m.upper_position_limit, &other.upper_position_limit);
        extend(&mut m.velocity_limit, &other.velocity_limit);
        extend(&mut m.effort_limit, &other.effort_limit);
        extend(&mut m.damping, &other.damping);
        extend(&mut m.friction, &other.friction);
        for g in &other.collision_geometries {
            let mut g = g.clone();
            g.name = format!("{prefix}{}", g.name);
            g.link = format!("{prefix}{}", g.link);
            g.placement = on_universe(g.parent_joint, &g.placement);
            (g.parent_joint, g.parent_frame, g.robot) = (joint(g.parent_joint), frame(g.parent_frame), robot);
            m.collision_geometries.push(g);
        }
        m
    }

    /// A model of nothing but the universe, to append robots to.
    pub fn universe(name: &str) -> Model {
        super::build::universe(name)
    }

    /// The free-flyer joints hanging from the universe: each floating base of a model of
    /// one or several robots, in joint order (`[1]` for a single floating-base robot).
    pub fn floating_roots(&self) -> impl Iterator<Item = usize> + '_ {
        (1..self.njoints()).filter(|&j| self.parents[j] == 0 && self.joint_types[j] == super::JointType::FreeFlyer)
    }
}

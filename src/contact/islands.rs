//! Islands: the contacts of a step split into independent problems.
//!
//! Two contacts are coupled (G_ab ≠ 0) only when they share a body that moves: G = J M⁻¹ Jᵀ
//! and M is block-diagonal over the trees of the robot's model (the subtree under each
//! child of the universe: one per robot of a world of several, and each arm of a fixed
//! base that carries two) and the free bodies; the LTDL factor U = M's is too, so the
//! rows of W = J U⁻ᵀ D^{-1/2} of a contact are zero outside its trees' dofs. The connected
//! components of the graph whose nodes are the trees and the free bodies and whose edges
//! are the contacts (a tree one node, since its M couples all its joints; the static
//! environment, and the robot's shapes fixed to the world (joint 0), no node, since they
//! move nothing and so connect nothing) are independent contact problems: G is
//! block-diagonal over them after a permutation, and each is solved on its own (Bullet's
//! and ODE's simulation islands; MuJoCo's `mj_island`, whose nodes are trees too). Ten
//! separate piles of ten boxes are then ten problems of 3·n/10 rows each instead of one
//! of 3·n: the dense G and its Cholesky cost ten times (3n/10)² and (3n/10)³ instead of
//! (3n)² and (3n)³.
//!
//! A joint block (a limit or the friction of a dof, [`JointBlock`]) belongs to the island
//! of its dof's tree, one of its own when that tree touches nothing.
//!
//! The partition is a union–find over the nodes (path halving, union by index), then a
//! stable counting sort of the contacts and of the joint blocks by island: islands in the
//! order of their first contact (then of their first joint block), contacts and joint
//! blocks in their order within each. Buffers are sized once; a partition allocates
//! nothing.

use super::joint_blocks::JointBlock;
use crate::collision::{Contact, Owner};
use crate::model::{Model, NO_PARENT};

/// No island (or tree) yet (a label).
const NONE: usize = usize::MAX;

/// The islands of the last [`Islands::partition`], in buffers sized once.
#[derive(Clone, Debug, Default)]
pub struct Islands {
    /// The tree of each robot joint (NONE: the universe, or fixed to it).
    tree_of_joint: Vec<usize>,
    /// The tree of each robot dof.
    tree_of_dof: Vec<usize>,
    /// The robot model's trees: nodes 0..trees, then free body b is node trees + b.
    trees: usize,
    /// Union–find parent of each node.
    parent: Vec<usize>,
    /// The island of each root node (NONE: none yet).
    label: Vec<usize>,
    /// The island of each contact, then of each joint block.
    island_of: Vec<usize>,
    joint_island_of: Vec<usize>,
    /// Where each island's contacts (joint blocks) start in `order` (`joint_order`):
    /// islands + 1 entries.
    start: Vec<usize>,
    joint_start: Vec<usize>,
    /// The contacts' (joint blocks') indices, island by island.
    order: Vec<usize>,
    joint_order: Vec<usize>,
}

/// The tree of each dof and of each joint of `model` (NONE for the universe and joints
/// fixed to it), trees numbered in depth-first order, and their count. A tree starts at
/// each dof without a parent dof ([`Model::dof_parent`]); its dofs are the contiguous
/// range of its root joint's subtree.
fn trees(model: &Model) -> (Vec<usize>, Vec<usize>, usize) {
    let mut of_dof = vec![NONE; model.nv];
    let mut trees = 0;
    for k in 0..model.nv {
        of_dof[k] = match model.dof_parent[k] {
            NO_PARENT => {
                trees += 1;
                trees - 1
            }
            p => of_dof[p], // p < k: depth-first order
        };
    }
    let mut of_joint = vec![NONE; model.njoints()];
    for j in 1..model.njoints() {
        of_joint[j] = if model.joint_types[j].nv() > 0 { of_dof[model.idx_v[j]] } else { of_joint[model.parents[j]] };
    }
    (of_dof, of_joint, trees)
}

impl Islands {
    /// Room for the trees of `robot`'s model (none without one), `free_bodies` free
    /// bodies, `contacts` contacts and `joint_blocks` joint blocks.
    pub fn new(robot: Option<&Model>, free_bodies: usize, contacts: usize, joint_blocks: usize) -> Self {
        let (tree_of_dof, tree_of_joint, trees) = robot.map_or((Vec::new(), Vec::new(), 0), trees);
        let nodes = trees + free_bodies;
        let islands = contacts + trees + 1;
        Self {
            tree_of_joint,
            tree_of_dof,
            trees,
            parent: Vec::with_capacity(nodes),
            label: Vec::with_capacity(nodes),
            island_of: Vec::with_capacity(contacts),
            joint_island_of: Vec::with_capacity(joint_blocks),
            start: Vec::with_capacity(islands + 1),
            joint_start: Vec::with_capacity(islands + 1),
            order: Vec::with_capacity(contacts),
            joint_order: Vec::with_capacity(joint_blocks),
        }
    }

    /// The robot model's trees (union–find nodes before the free bodies').
    pub fn trees(&self) -> usize {
        self.trees
    }

    /// The node of a contact's body: its tree for a robot's link, the free body's, none
    /// for the static environment and the robot's shapes fixed to the world.
    fn node(&self, owner: &Owner) -> Option<usize> {
        match *owner {
            Owner::Robot { joint } => self.tree_of_joint.get(joint).copied().filter(|&t| t != NONE),
            Owner::Free { body } => Some(self.trees + body),
            Owner::Static => None,
        }
    }

    /// The root of `x`'s tree (path halving).
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// The island of node `n`'s component, a new one if it has none yet; a new one of
    /// its own without a node.
    fn island(&mut self, n: Option<usize>) -> usize {
        let Some(n) = n else {
            self.start.push(0);
            return self.start.len() - 2;
        };
        let root = self.find(n);
        if self.label[root] == NONE {
            self.label[root] = self.start.len() - 1;
            self.start.push(0);
        }
        self.label[root]
    }

    /// Splits `contacts` between the robot's trees and `free_bodies` free bodies, and the
    /// robot's `joints` blocks (limits, friction), into islands: a joint block belongs
    /// to its dof's tree's island, one of its own when the tree touches nothing.
    /// Contacts (joint blocks) beyond the capacity given at construction are not
    /// expected (the contact buffer drops them first).
    pub fn partition(&mut self, contacts: &[Contact], free_bodies: usize, joints: &[JointBlock]) {
        let nodes = self.trees + free_bodies;
        self.parent.clear();
        self.parent.extend(0..nodes);
        for c in contacts {
            if let (Some(a), Some(b)) = (self.node(&c.body1), self.node(&c.body2)) {
                let (ra, rb) = (self.find(a), self.find(b));
                if ra != rb {
                    let (lo, hi) = (ra.min(rb), ra.max(rb));
                    self.parent[hi] = lo;
                }
            }
        }
        self.label.clear();
        self.label.resize(nodes, NONE);
        self.island_of.clear();
        self.joint_island_of.clear();
        self.start.clear();
        // Islands in order of first contact, then of first joint block (static against
        // static is never detected; alone if it were).
        self.start.push(0);
        for c in contacts {
            let island = self.island(self.node(&c.body1).or(self.node(&c.body2)));
            self.island_of.push(island);
        }
        for b in joints {
            let island = self.island(self.tree_of_dof.get(b.dof).copied());
            self.joint_island_of.push(island);
        }
        let islands = self.start.len() - 1;
        self.start.fill(0);
        self.joint_start.clear();
        self.joint_start.resize(islands + 1, 0);
        sort_by_island(&self.island_of, &mut self.start, &mut self.order);
        sort_by_island(&self.joint_island_of, &mut self.joint_start, &mut self.joint_order);
    }

    /// Islands of the last partition.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether the last partition found no island.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The indices of island `i`'s contacts (into the partitioned slice), in detection
    /// order.
    pub fn contacts(&self, i: usize) -> &[usize] {
        &self.order[self.start[i]..self.start[i + 1]]
    }

    /// The indices of island `i`'s joint blocks (into the partitioned slice), in their
    /// order.
    pub fn joints(&self, i: usize) -> &[usize] {
        &self.joint_order[self.joint_start[i]..self.joint_start[i + 1]]
    }
}

/// A stable counting sort of the items (`island`: each one's island) into `order`, island
/// by island; `start` (islands + 1 zeros) ends holding where each island's items start.
fn sort_by_island(island: &[usize], start: &mut [usize], order: &mut Vec<usize>) {
    for &i in island {
        start[i + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    // `start` ends shifted back by one island, then restored.
    order.clear();
    order.resize(island.len(), 0);
    for (k, &i) in island.iter().enumerate() {
        order[start[i]] = k;
        start[i] += 1;
    }
    for i in (1..start.len()).rev() {
        start[i] = start[i - 1];
    }
    start[0] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::ContactId;
    use crate::contact::JointBlockKind;
    use crate::model::ModelOptions;
    use crate::spatial::{Mat3, SE3, Vec3};

    fn contact(body1: Owner, body2: Owner) -> Contact {
        Contact {
            object1: 0,
            object2: 0,
            body1,
            body2,
            point: Vec3::zeros(),
            frame: Mat3::identity(),
            distance: 0.0,
            friction: 0.5,
            restitution: 0.0,
            id: ContactId::default(),
        }
    }

    fn limit(dof: usize) -> JointBlock {
        JointBlock { dof, kind: JointBlockKind::Limit { sign: 1.0, gap: 0.0, friction: 0.0 }, id: ContactId::default() }
    }

    /// A fixed-base arm of two revolute joints (joints 1, 2; dofs 0, 1).
    fn arm() -> Model {
        let link = |name: &str| {
            format!(
                "<link name=\"{name}\"><inertial><mass value=\"1\"/>\
                 <inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>"
            )
        };
        let joint = |name: &str, parent: &str, child: &str| {
            format!(
                "<joint name=\"{name}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"{child}\"/>\
                 <origin xyz=\"0 0 0.1\"/><axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>"
            )
        };
        let xml = format!(
            "<robot name=\"arm\">{}{}{}{}{}</robot>",
            link("base"),
            link("l1"),
            link("l2"),
            joint("j1", "base", "l1"),
            joint("j2", "l1", "l2")
        );
        Model::from_urdf_xml(&xml, "arm", &ModelOptions::default()).unwrap()
    }

    /// Two piles and the robot: the components, in the order of their first contact,
    /// contacts in detection order, the static ground connecting nothing.
    #[test]
    fn components_of_the_bodies_through_contacts() {
        let model = arm();
        let free = |body| Owner::Free { body };
        let contacts = [
            contact(free(0), Owner::Static),                   // pile A
            contact(free(2), Owner::Static),                   // pile B
            contact(free(1), free(0)),                         // pile A
            contact(Owner::Robot { joint: 2 }, Owner::Static), // robot
            contact(free(3), free(2)),                         // pile B
            contact(Owner::Robot { joint: 1 }, free(4)),       // robot
        ];
        let mut islands = Islands::new(Some(&model), 5, contacts.len(), 4);
        assert_eq!(islands.trees(), 1);
        islands.partition(&contacts, 5, &[]);
        assert_eq!(islands.len(), 3);
        assert_eq!(islands.contacts(0), &[0, 2]);
        assert_eq!(islands.contacts(1), &[1, 4]);
        assert_eq!(islands.contacts(2), &[3, 5]);
        assert!((0..3).all(|i| islands.joints(i).is_empty()));

        // A box bridging the piles joins them; joint blocks go to the robot's island.
        let mut bridged = contacts.to_vec();
        bridged.push(contact(free(3), free(1)));
        islands.partition(&bridged, 5, &[limit(1), limit(0)]);
        assert_eq!(islands.len(), 2);
        assert_eq!(islands.contacts(0), &[0, 1, 2, 4, 6]);
        assert!(islands.joints(0).is_empty());
        assert_eq!(islands.joints(1), &[0, 1]);

        // A robot touching nothing still has an island for its joint limits.
        islands.partition(&contacts[..3], 5, &[limit(0)]);
        assert_eq!(islands.len(), 3);
        assert!(islands.contacts(2).is_empty());
        assert_eq!(islands.joints(2), &[0]);
        islands.partition(&[], 5, &[]);
        assert!(islands.is_empty());
    }

    /// Two robots in one model (two trees: joints 1, 2 and 3, 4; dofs 0, 1 and 2, 3): their
    /// contacts are two islands, each with its tree's joint blocks, until a contact
    /// between the trees (or a box both touch) joins them; a tree touching nothing has
    /// its joint blocks in an island of its own; a shape fixed to the world (joint 0)
    /// connects nothing.
    #[test]
    fn each_tree_of_the_robot_model_is_a_node() {
        let one = arm();
        let two = Model::universe("w").append(&one, 0, "a/", &SE3::IDENTITY).append(&one, 1, "b/", &SE3::IDENTITY);
        let mut islands = Islands::new(Some(&two), 2, 8, 8);
        assert_eq!(islands.trees(), 2);
        let (a, b) = (Owner::Robot { joint: 2 }, Owner::Robot { joint: 3 });
        let contacts = [
            contact(b, Owner::Static),
            contact(a, Owner::Static),
            contact(Owner::Robot { joint: 0 }, Owner::Free { body: 0 }),
            contact(b, Owner::Static),
        ];
        let joints = [limit(0), limit(3), limit(2), limit(1)];
        islands.partition(&contacts, 2, &joints);
        assert_eq!(islands.len(), 3);
        assert_eq!((islands.contacts(0), islands.joints(0)), (&[0, 3][..], &[1, 2][..]));
        assert_eq!((islands.contacts(1), islands.joints(1)), (&[1][..], &[0, 3][..]));
        assert_eq!((islands.contacts(2), islands.joints(2)), (&[2][..], &[][..]));

        // Tree a touching nothing: its limits alone, after the islands of contacts.
        islands.partition(&contacts[..1], 2, &joints);
        assert_eq!(islands.len(), 2);
        assert_eq!((islands.contacts(0), islands.joints(0)), (&[0][..], &[1, 2][..]));
        assert_eq!((islands.contacts(1), islands.joints(1)), (&[][..], &[0, 3][..]));

        // The robots touching each other, or the same box, are one island.
        let free1 = Owner::Free { body: 1 };
        for links in [vec![contact(a, b)], vec![contact(b, free1), contact(a, free1)]] {
            let mut joined = contacts.to_vec();
            joined.extend(links);
            islands.partition(&joined, 2, &joints);
            assert_eq!(islands.len(), 2);
            assert_eq!(islands.joints(0), &[0, 1, 2, 3]);
        }
    }
}

//! Islands: the contacts of a step split into independent problems.
//!
//! Two contacts are coupled (G_ab ≠ 0) only when they share a body that moves: G = J M⁻¹ Jᵀ
//! and M is block-diagonal over the robot's tree and the free bodies. The connected
//! components of the graph whose nodes are the bodies and whose edges are the contacts
//! (the robot's whole tree one node, since its M couples all its joints; the static
//! environment no node, since it connects nothing) are independent contact problems:
//! G is block-diagonal over them after a permutation, and each is solved on its own
//! (Bullet's and ODE's simulation islands; MuJoCo's `mj_island`). Ten separate piles of
//! ten boxes are then ten problems of 3·n/10 rows each instead of one of 3·n: the dense
//! G and its Cholesky cost ten times (3n/10)² and (3n/10)³ instead of (3n)² and (3n)³.
//!
//! The partition is a union–find over the nodes (path halving, union by index), then a
//! stable counting sort of the contacts by island: islands in the order of their first
//! contact, contacts in detection order within each. Buffers are sized once; a partition
//! allocates nothing.

use crate::collision::{Contact, Owner};

/// No island yet (a label).
const NONE: usize = usize::MAX;

/// The islands of the last [`Islands::partition`], in buffers sized once.
#[derive(Clone, Debug, Default)]
pub struct Islands {
    /// Union–find parent of each node: 0 the robot, 1 + b free body b.
    parent: Vec<usize>,
    /// The island of each root node (NONE: none yet).
    label: Vec<usize>,
    /// The island of each contact.
    island_of: Vec<usize>,
    /// Where each island's contacts start in `order` (islands + 1 entries).
    start: Vec<usize>,
    /// The contacts' indices, island by island.
    order: Vec<usize>,
    /// The island holding the robot's joint blocks, if it has any.
    joints: Option<usize>,
}

impl Islands {
    /// Room for `free_bodies` free bodies (and a robot) and `contacts` contacts.
    pub fn with_capacity(free_bodies: usize, contacts: usize) -> Self {
        let nodes = free_bodies + 1;
        Self {
            parent: Vec::with_capacity(nodes),
            label: Vec::with_capacity(nodes),
            island_of: Vec::with_capacity(contacts),
            start: Vec::with_capacity(contacts + 2),
            order: Vec::with_capacity(contacts),
            joints: None,
        }
    }

    /// The node of a contact's body: the robot's tree is one, the static environment none.
    fn node(owner: &Owner) -> Option<usize> {
        match *owner {
            Owner::Robot { .. } => Some(0),
            Owner::Free { body } => Some(1 + body),
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

    /// Splits `contacts` between `free_bodies` free bodies (and a robot) into islands;
    /// `joints` says whether the robot has joint blocks (limits, friction) in the
    /// problem: they belong to the robot's island, one of its own when the robot touches
    /// nothing. Contacts beyond the capacity given at construction are not expected (the
    /// contact buffer drops them first).
    pub fn partition(&mut self, contacts: &[Contact], free_bodies: usize, joints: bool) {
        let nodes = free_bodies + 1;
        self.parent.clear();
        self.parent.extend(0..nodes);
        for c in contacts {
            if let (Some(a), Some(b)) = (Self::node(&c.body1), Self::node(&c.body2)) {
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
        self.start.clear();
        // Island sizes first (in `start`, shifted by one), labels in order of first contact.
        self.start.push(0);
        for c in contacts {
            let island = match Self::node(&c.body1).or(Self::node(&c.body2)) {
                Some(n) => {
                    let root = self.find(n);
                    if self.label[root] == NONE {
                        self.label[root] = self.start.len() - 1;
                        self.start.push(0);
                    }
                    self.label[root]
                }
                None => {
                    // Static against static is never detected; alone if it were.
                    self.start.push(0);
                    self.start.len() - 2
                }
            };
            self.start[island + 1] += 1;
            self.island_of.push(island);
        }
        self.joints = None;
        if joints {
            let root = self.find(0);
            if self.label[root] == NONE {
                self.label[root] = self.start.len() - 1;
                self.start.push(0);
            }
            self.joints = Some(self.label[root]);
        }
        for i in 1..self.start.len() {
            self.start[i] += self.start[i - 1];
        }
        // Stable counting sort; `start` ends shifted back by one island, then restored.
        self.order.clear();
        self.order.resize(contacts.len(), 0);
        for (k, &island) in self.island_of.iter().enumerate() {
            self.order[self.start[island]] = k;
            self.start[island] += 1;
        }
        for i in (1..self.start.len()).rev() {
            self.start[i] = self.start[i - 1];
        }
        self.start[0] = 0;
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

    /// Whether island `i` holds the robot's joint blocks.
    pub fn has_joints(&self, i: usize) -> bool {
        self.joints == Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::ContactId;
    use crate::spatial::{Mat3, Vec3};

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

    /// Two piles and the robot: the components, in the order of their first contact,
    /// contacts in detection order, the static ground connecting nothing.
    #[test]
    fn components_of_the_bodies_through_contacts() {
        let free = |body| Owner::Free { body };
        let contacts = [
            contact(free(0), Owner::Static),                   // pile A
            contact(free(2), Owner::Static),                   // pile B
            contact(free(1), free(0)),                         // pile A
            contact(Owner::Robot { joint: 3 }, Owner::Static), // robot
            contact(free(3), free(2)),                         // pile B
            contact(Owner::Robot { joint: 1 }, free(4)),       // robot
        ];
        let mut islands = Islands::with_capacity(5, contacts.len());
        islands.partition(&contacts, 5, false);
        assert_eq!(islands.len(), 3);
        assert_eq!(islands.contacts(0), &[0, 2]);
        assert_eq!(islands.contacts(1), &[1, 4]);
        assert_eq!(islands.contacts(2), &[3, 5]);
        assert!(!(0..3).any(|i| islands.has_joints(i)));

        // A box bridging the piles joins them; joint blocks go to the robot's island.
        let mut bridged = contacts.to_vec();
        bridged.push(contact(free(3), free(1)));
        islands.partition(&bridged, 5, true);
        assert_eq!(islands.len(), 2);
        assert_eq!(islands.contacts(0), &[0, 1, 2, 4, 6]);
        assert!(islands.has_joints(1));

        // A robot touching nothing still has an island for its joint limits.
        islands.partition(&contacts[..3], 5, true);
        assert_eq!(islands.len(), 3);
        assert!(islands.contacts(2).is_empty() && islands.has_joints(2));
        islands.partition(&[], 5, false);
        assert!(islands.is_empty());
    }
}

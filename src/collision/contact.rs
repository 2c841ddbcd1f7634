//! Contacts: what detection reports, in preallocated buffers.

use crate::spatial::{Mat3, Vec3};

/// Who moves an object.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// The robot's body carried by this joint.
    Robot {
        /// Joint index in the model.
        joint: usize,
    },
    /// A free rigid body of the simulation.
    Free {
        /// Body index.
        body: usize,
    },
    /// The static environment.
    Static,
}

/// Identifies a contact across steps while it persists: the object pair and the shape
/// features (vertex, edge, face) touching. Used to warm-start solvers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContactId(pub u64);

impl ContactId {
    /// From the objects and features.
    pub fn new(object1: usize, object2: usize, feature1: u32, feature2: u32) -> Self {
        // SplitMix64 finalizer over the packed fields: deterministic, well spread.
        let mut x = (object1 as u64) << 40 ^ (object2 as u64) << 20 ^ u64::from(feature1) << 32 ^ u64::from(feature2);
        x ^= x >> 30;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        Self(x)
    }
}

/// One contact point.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Contact {
    /// Object on the body side of the normal (the robot in robot–environment pairs).
    pub object1: usize,
    /// The other object.
    pub object2: usize,
    /// Who moves object 1.
    pub body1: Owner,
    /// Who moves object 2.
    pub body2: Owner,
    /// Contact point in the world frame (midway between the two surfaces).
    pub point: Vec3,
    /// Contact frame in the world: columns (Tx, Ty, N), N pointing from body 2 into
    /// body 1. Tx is world x projected on the tangent plane (world y if x is normal).
    pub frame: Mat3,
    /// Signed distance (m): negative when the bodies interpenetrate.
    pub distance: f64,
    /// Combined Coulomb friction coefficient (see [`combine_friction`]).
    pub friction: f64,
    /// Combined restitution (the larger of the two).
    pub restitution: f64,
    /// Persistent identifier.
    pub id: ContactId,
}

impl Contact {
    /// The contact normal N (into body 1).
    pub fn normal(&self) -> Vec3 {
        self.frame.column(2).into_owned()
    }
}

/// The friction of a pair: the smaller of the two coefficients, as ODE/Gazebo. A body
/// that does not specify one (∞) defers to the other; two unspecified give `fallback`.
pub fn combine_friction(mu1: f64, mu2: f64, fallback: f64) -> f64 {
    let mu = mu1.min(mu2);
    if mu.is_finite() { mu } else { fallback }
}

/// The contact frame for normal `n` (unit): columns (Tx, Ty, N), right-handed.
pub fn contact_frame(n: &Vec3) -> Mat3 {
    let axis = if n.x.abs() < 0.99 { Vec3::x() } else { Vec3::y() };
    let tx = (axis - n * n.dot(&axis)).normalize();
    let ty = n.cross(&tx);
    Mat3::from_columns(&[tx, ty, *n])
}

/// Contacts of one detection, in a buffer allocated once: when full it keeps the deepest
/// (a contact deeper than the shallowest kept one replaces it) and counts the others as
/// dropped instead of growing.
#[derive(Clone, Debug)]
pub struct ContactBuffer {
    contacts: Vec<Contact>,
    capacity: usize,
    dropped: u64,
    /// Dropped since the last [`ContactBuffer::clear`] (this detection).
    overflow: usize,
}

impl ContactBuffer {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { contacts: Vec::with_capacity(capacity), capacity, dropped: 0, overflow: 0 }
    }

    /// Empties the buffer for a new detection (keeps the memory and the total dropped).
    pub fn clear(&mut self) {
        self.contacts.clear();
        self.overflow = 0;
    }

    /// Adds a contact. When full, one contact is dropped and counted: the new one, unless
    /// it is deeper than the shallowest kept, which it then replaces (in place: the
    /// others keep their order). A scan of the buffer per dropped contact: only an
    /// overflowing detection pays it.
    pub fn push(&mut self, c: Contact) {
        if self.contacts.len() < self.capacity {
            self.contacts.push(c);
            return;
        }
        self.dropped += 1;
        self.overflow += 1;
        let shallowest = self.contacts.iter().enumerate().max_by(|a, b| a.1.distance.total_cmp(&b.1.distance));
        if let Some((k, kept)) = shallowest
            && c.distance < kept.distance
        {
            self.contacts[k] = c;
        }
    }

    /// Contacts dropped by the current detection (since the last clear).
    pub fn overflowed(&self) -> usize {
        self.overflow
    }

    /// Room for this many contacts.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Drops the contacts from index `len` on.
    pub fn truncate(&mut self, len: usize) {
        self.contacts.truncate(len);
    }

    /// The contacts.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.contacts.len()
    }

    /// No contact.
    pub fn is_empty(&self) -> bool {
        self.contacts.is_empty()
    }

    /// Contacts dropped for lack of room since creation.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_right_handed_with_the_normal_last() {
        for n in [Vec3::z(), Vec3::x(), Vec3::new(0.3, -0.4, 0.866).normalize(), -Vec3::y()] {
            let f = contact_frame(&n);
            assert!((f.transpose() * f - Mat3::identity()).norm() < 1e-14);
            assert!((f.determinant() - 1.0).abs() < 1e-14);
            assert!((f.column(2) - n).norm() < 1e-15);
        }
        let f = contact_frame(&Vec3::z());
        assert!((f.column(0) - Vec3::x()).norm() < 1e-15, "Tx is world x on flat ground");
    }

    #[test]
    fn friction_combination_and_ids() {
        assert_eq!(combine_friction(0.8, f64::INFINITY, 0.5), 0.8);
        assert_eq!(combine_friction(0.8, 0.3, 0.5), 0.3);
        assert_eq!(combine_friction(f64::INFINITY, f64::INFINITY, 0.5), 0.5);
        assert_eq!(ContactId::new(1, 2, 3, 4), ContactId::new(1, 2, 3, 4));
        assert_ne!(ContactId::new(1, 2, 3, 4), ContactId::new(1, 2, 4, 3));
        assert_ne!(ContactId::new(1, 2, 3, 4), ContactId::new(2, 1, 3, 4));
    }

    /// A free body's contact with the environment, of id `k` at `distance`.
    fn contact(k: u64, distance: f64) -> Contact {
        Contact {
            object1: 0,
            object2: 1,
            body1: Owner::Free { body: 0 },
            body2: Owner::Static,
            point: Vec3::zeros(),
            frame: Mat3::identity(),
            distance,
            friction: 1.0,
            restitution: 0.0,
            id: ContactId(k),
        }
    }

    #[test]
    fn a_full_buffer_counts_instead_of_growing() {
        let mut b = ContactBuffer::with_capacity(1);
        let c = contact(1, 0.0);
        b.push(c);
        b.push(c);
        assert_eq!((b.len(), b.dropped(), b.overflowed()), (1, 1, 1));
        b.clear();
        assert!(b.is_empty());
        assert_eq!((b.dropped(), b.overflowed()), (1, 0), "the total stays, the detection's restarts");
    }

    /// Full, the buffer keeps the deepest contacts whatever their order of arrival.
    #[test]
    fn a_full_buffer_keeps_the_deepest() {
        let depths = [0.004, -0.003, 0.002, -0.010, 0.0, -0.001, 0.003, -0.007];
        let mut b = ContactBuffer::with_capacity(3);
        for (k, &d) in depths.iter().enumerate() {
            b.push(contact(k as u64, d));
        }
        let mut kept: Vec<f64> = b.contacts().iter().map(|c| c.distance).collect();
        kept.sort_by(f64::total_cmp);
        assert_eq!(kept, [-0.010, -0.007, -0.003]);
        assert_eq!((b.overflowed(), b.dropped()), (5, 5));
    }
}

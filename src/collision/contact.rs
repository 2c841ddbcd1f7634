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

/// Contacts of one detection, in a buffer allocated once: when full, further contacts
/// are counted as dropped instead of growing it.
#[derive(Clone, Debug)]
pub struct ContactBuffer {
    contacts: Vec<Contact>,
    capacity: usize,
    dropped: u64,
}

impl ContactBuffer {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { contacts: Vec::with_capacity(capacity), capacity, dropped: 0 }
    }

    /// Empties the buffer (keeps the memory and the dropped count).
    pub fn clear(&mut self) {
        self.contacts.clear();
    }

    /// Adds a contact, or counts it as dropped when full.
    pub fn push(&mut self, c: Contact) {
        if self.contacts.len() < self.capacity {
            self.contacts.push(c);
        } else {
            self.dropped += 1;
        }
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

    #[test]
    fn a_full_buffer_counts_instead_of_growing() {
        let mut b = ContactBuffer::with_capacity(1);
        let c = Contact {
            object1: 0,
            object2: 1,
            body1: Owner::Free { body: 0 },
            body2: Owner::Static,
            point: Vec3::zeros(),
            frame: Mat3::identity(),
            distance: 0.0,
            friction: 1.0,
            restitution: 0.0,
            id: ContactId(1),
        };
        b.push(c);
        b.push(c);
        assert_eq!((b.len(), b.dropped()), (1, 1));
        b.clear();
        assert!(b.is_empty());
    }
}

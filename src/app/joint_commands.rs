//! Per-joint commands from sensor_msgs/JointState, as ros2_control's JointStateTopicSystem
//! publishes them: each joint's value in the array of its configured interface
//! (`position`, `velocity` or `effort`), sent only when a command changes. The simulator
//! therefore holds each joint's last command (zero-order hold) and never reads a silent
//! topic as a zero command; a joint never commanded keeps the posture hold.
//!
//! [`JointCommandTable::apply`] checks a message whole before any of it counts: every
//! array is empty or as long as `name` (with mixed interfaces JointStateTopicSystem's
//! arrays may be shorter and then no longer aligned with `name`: refused rather than
//! guessed), every name is a configured joint named once, every value finite. An accepted
//! message updates the joints whose interface's array it carries; the others keep theirs.
//! Nothing allocates (the table is sized once), so the loop may copy it freely.

use std::fmt;

use crate::sim::Interface;

/// The held command of every configured joint, in configuration order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointCommandTable {
    /// The target of each joint in its interface's unit (rad, rad/s, N·m; m, m/s, N).
    pub targets: Vec<f64>,
    /// Whether the joint was ever commanded (else it keeps the posture hold).
    pub commanded: Vec<bool>,
}

/// Why a JointState command was refused, whole. Small and `Copy`: counted and reported
/// without allocating.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JointCommandRejection {
    /// An array neither empty nor as long as `name`.
    WrongLength {
        /// `position`, `velocity` or `effort`.
        array: &'static str,
        /// `name`'s length.
        expected: usize,
        /// The array's.
        got: usize,
    },
    /// `name[index]` is not a configured joint.
    UnknownJoint {
        /// Its index in `name`.
        index: usize,
    },
    /// `name[index]` names a joint named before in the same message.
    RepeatedJoint {
        /// Its index in `name`.
        index: usize,
    },
    /// `array[index]` is NaN or infinite.
    NonFinite {
        /// `position`, `velocity` or `effort`.
        array: &'static str,
        /// The entry.
        index: usize,
    },
}

impl fmt::Display for JointCommandRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::WrongLength { array, expected, got } => {
                write!(f, "`{array}` has {got} entries; expected none or one per name ({expected})")
            }
            Self::UnknownJoint { index } => write!(f, "name[{index}] is not a configured joint"),
            Self::RepeatedJoint { index } => write!(f, "name[{index}] names a joint a second time"),
            Self::NonFinite { array, index } => write!(f, "{array}[{index}] is NaN or infinite"),
        }
    }
}

impl JointCommandRejection {
    /// The rejection with the offending name quoted (for the log; allocates).
    pub fn describe(&self, names: &[String]) -> String {
        match *self {
            Self::UnknownJoint { index } | Self::RepeatedJoint { index } => {
                format!("{self} (`{}`)", names.get(index).map_or("", |s| s.as_str()))
            }
            _ => self.to_string(),
        }
    }
}

/// The configured joints and their interfaces, and the table of held commands a stream
/// of messages builds (the I/O side's end; the loop gets copies of the table).
#[derive(Clone, Debug)]
pub struct JointCommandInput {
    joints: Vec<String>,
    interfaces: Vec<Interface>,
    table: JointCommandTable,
    /// Per name of the message being checked, its joint (sized to the joints).
    slots: Vec<usize>,
}

impl JointCommandInput {
    /// For `joints` (configuration order) taking `interfaces` (same order), none commanded.
    pub fn new(joints: Vec<String>, interfaces: Vec<Interface>) -> Self {
        let n = joints.len();
        let table = JointCommandTable { targets: vec![0.0; n], commanded: vec![false; n] };
        Self { joints, interfaces, table, slots: Vec::with_capacity(n) }
    }

    /// The table of held commands (none commanded before the first message).
    pub fn table(&self) -> &JointCommandTable {
        &self.table
    }

    /// Checks one JointState (`name`, `position`, `velocity`, `effort`) and, if it is
    /// sane, holds each named joint's value from its interface's array (a joint whose
    /// array is empty keeps its command). Returns the updated table, or why the message
    /// was refused (the table unchanged).
    pub fn apply(
        &mut self,
        name: &[String],
        position: &[f64],
        velocity: &[f64],
        effort: &[f64],
    ) -> Result<&JointCommandTable, JointCommandRejection> {
        let arrays = [("position", position), ("velocity", velocity), ("effort", effort)];
        for (array, values) in arrays {
            if !values.is_empty() && values.len() != name.len() {
                return Err(JointCommandRejection::WrongLength { array, expected: name.len(), got: values.len() });
            }
            if let Some(index) = values.iter().position(|x| !x.is_finite()) {
                return Err(JointCommandRejection::NonFinite { array, index });
            }
        }
        self.slots.clear();
        for (index, n) in name.iter().enumerate() {
            // More names than joints repeat or invent one: refused before any search.
            let Some(joint) = self.joints.iter().position(|j| j == n).filter(|_| index < self.joints.len()) else {
                return Err(match self.joints.contains(n) {
                    true => JointCommandRejection::RepeatedJoint { index },
                    false => JointCommandRejection::UnknownJoint { index },
                });
            };
            if self.slots.contains(&joint) {
                return Err(JointCommandRejection::RepeatedJoint { index });
            }
            self.slots.push(joint);
        }
        for (k, &joint) in self.slots.iter().enumerate() {
            let values = match self.interfaces[joint] {
                Interface::Position => position,
                Interface::Velocity => velocity,
                Interface::Effort => effort,
            };
            if let Some(&value) = values.get(k) {
                self.table.targets[joint] = value;
                self.table.commanded[joint] = true;
            }
        }
        Ok(&self.table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> JointCommandInput {
        let joints = ["arm", "wheel", "gripper"].map(String::from).to_vec();
        JointCommandInput::new(joints, vec![Interface::Position, Interface::Velocity, Interface::Effort])
    }

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    /// Each joint reads its own interface's array, in the message's order; a later message
    /// without a joint, or without that joint's array, leaves its command held.
    #[test]
    fn each_joint_holds_the_value_of_its_interface() {
        let mut c = input();
        assert_eq!(c.table().commanded, [false; 3]);
        let t = c.apply(&names(&["wheel", "arm"]), &[9.0, 0.5], &[2.0, 9.0], &[]).unwrap();
        assert_eq!((t.targets.as_slice(), t.commanded.as_slice()), (&[0.5, 2.0, 0.0][..], &[true, true, false][..]));
        let t = c.apply(&names(&["gripper", "arm"]), &[], &[], &[1.5, 7.0]).unwrap();
        assert_eq!(t.targets, [0.5, 2.0, 1.5], "arm's position array was empty: its command held");
        assert_eq!(t.commanded, [true; 3]);
        assert!(c.apply(&[], &[], &[], &[]).is_ok(), "an empty message changes nothing");
        assert_eq!(c.table().targets, [0.5, 2.0, 1.5]);
    }

    /// JointStateTopicSystem with mixed interfaces: shorter arrays, not aligned with
    /// `name`, are refused whole; so are unknown or repeated names and NaN, the table
    /// unchanged.
    #[test]
    fn mixed_lengths_unknown_names_repeats_and_nan_are_refused_whole() {
        let mut c = input();
        c.apply(&names(&["arm"]), &[0.25], &[], &[]).unwrap();
        let all = names(&["arm", "wheel", "gripper"]);
        let cases = [
            (
                c.apply(&all, &[1.0], &[2.0], &[3.0]).err(),
                "`position` has 1 entries; expected none or one per name (3)",
            ),
            (c.apply(&names(&["arm", "elbow"]), &[1.0, 1.0], &[], &[]).err(), "name[1] is not a configured joint"),
            (c.apply(&names(&["arm", "arm"]), &[1.0, 1.0], &[], &[]).err(), "name[1] names a joint a second time"),
            (c.apply(&all, &[1.0, f64::NAN, 0.0], &[], &[]).err(), "position[1] is NaN or infinite"),
            (c.apply(&all, &[], &[], &[0.0, 0.0, f64::INFINITY]).err(), "effort[2] is NaN or infinite"),
        ];
        for (rejection, message) in cases {
            assert_eq!(rejection.map(|r| r.to_string()).as_deref(), Some(message));
        }
        let many = names(&["arm", "wheel", "gripper", "arm"]);
        assert_eq!(c.apply(&many, &[0.0; 4], &[], &[]), Err(JointCommandRejection::RepeatedJoint { index: 3 }));
        assert_eq!(c.table().targets, [0.25, 0.0, 0.0]);
        assert_eq!(c.table().commanded, [true, false, false]);
        let why = JointCommandRejection::UnknownJoint { index: 1 }.describe(&names(&["arm", "elbow"]));
        assert_eq!(why, "name[1] is not a configured joint (`elbow`)");
    }
}

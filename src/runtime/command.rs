//! Effort commands entering the loop, and their validation at the edge.

use std::fmt;

/// Joint efforts (N·m or N), one per configured joint, in configuration order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EffortCommand {
    /// The efforts.
    pub effort: Vec<f64>,
}

/// Why a command was refused. Small and `Copy` so the I/O side can count and report it
/// without allocating.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CommandRejection {
    /// The array does not have one entry per configured joint.
    WrongLength {
        /// Number of configured joints.
        expected: usize,
        /// Entries received.
        got: usize,
    },
    /// An entry is NaN or infinite.
    NonFinite {
        /// Its index.
        index: usize,
    },
}

impl fmt::Display for CommandRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::WrongLength { expected, got } => {
                write!(f, "expected {expected} efforts (one per configured joint), got {got}")
            }
            Self::NonFinite { index } => write!(f, "effort [{index}] is NaN or infinite"),
        }
    }
}

/// Checks a received effort array before it may reach the loop: exactly `expected` entries
/// (an oversized array is a wrong length too), all finite.
pub fn validate_efforts(values: &[f64], expected: usize) -> Result<(), CommandRejection> {
    if values.len() != expected {
        return Err(CommandRejection::WrongLength { expected, got: values.len() });
    }
    match values.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(CommandRejection::NonFinite { index }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_exactly_n_finite_values() {
        assert_eq!(validate_efforts(&[1.0, -2.0, 0.0], 3), Ok(()));
        assert_eq!(validate_efforts(&[], 0), Ok(()));
    }

    #[test]
    fn rejects_wrong_length_oversized_and_non_finite() {
        assert_eq!(validate_efforts(&[1.0], 3), Err(CommandRejection::WrongLength { expected: 3, got: 1 }));
        let huge = vec![0.0; 1_000_000];
        assert_eq!(validate_efforts(&huge, 12), Err(CommandRejection::WrongLength { expected: 12, got: 1_000_000 }));
        assert_eq!(validate_efforts(&[0.0, f64::NAN, 1.0], 3), Err(CommandRejection::NonFinite { index: 1 }));
        assert_eq!(validate_efforts(&[f64::NEG_INFINITY], 1), Err(CommandRejection::NonFinite { index: 0 }));
        assert_eq!(
            CommandRejection::WrongLength { expected: 12, got: 5 }.to_string(),
            "expected 12 efforts (one per configured joint), got 5"
        );
    }
}

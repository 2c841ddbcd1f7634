//! Value types that can only hold sane values: once a configuration is parsed, a rate is
//! positive, a posture entry is finite, a topic is a valid ROS name. Their `Deserialize`
//! rejects anything else with "expected …, got …".

use std::fmt;
use std::ops::Deref;

use serde::de::{self, Deserializer, Unexpected};
use serde::{Deserialize, Serialize};

/// A finite number > 0.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct PositiveF64(f64);

/// A finite number (no NaN, no infinity).
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct FiniteF64(f64);

/// A number in (0, 1].
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Fraction(f64);

/// A ROS topic name: `/`-separated tokens of letters, digits and `_` (not starting with a
/// digit), optionally absolute (leading `/`) or private (leading `~/`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct TopicName(String);

/// A SCHED_FIFO priority 1–99, or 0 for the normal scheduler.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RtPriority(u8);

impl RtPriority {
    /// `Some` for 0..=99.
    pub fn new(p: u8) -> Option<Self> {
        (p <= 99).then_some(Self(p))
    }
    /// The SCHED_FIFO priority, or None for the normal scheduler.
    pub fn fifo(self) -> Option<u8> {
        (self.0 > 0).then_some(self.0)
    }
}

impl<'de> Deserialize<'de> for RtPriority {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const WHAT: &str = "a SCHED_FIFO priority 1-99, or 0 for normal scheduling";
        let x = number(d, WHAT, |x| x.fract() == 0.0 && (0.0..=99.0).contains(&x))?;
        Ok(Self(x as u8))
    }
}

/// The simulation's pace against the wall clock: a positive factor (1: real time), or as
/// fast as the machine allows (`max` in YAML).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum RealtimeFactor {
    /// Simulated seconds per wall second.
    Factor(PositiveF64),
    /// No pacing.
    Max,
}

impl RealtimeFactor {
    /// The factor; None for `max`.
    pub fn factor(self) -> Option<f64> {
        match self {
            Self::Factor(f) => Some(f.get()),
            Self::Max => None,
        }
    }
}

impl Serialize for RealtimeFactor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Factor(f) => s.serialize_f64(f.get()),
            Self::Max => s.serialize_str("max"),
        }
    }
}

impl<'de> Deserialize<'de> for RealtimeFactor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const WHAT: &str = "a positive real-time factor, or `max`";
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = RealtimeFactor;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(WHAT)
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Self::Value, E> {
                PositiveF64::new(x)
                    .map(RealtimeFactor::Factor)
                    .ok_or_else(|| E::invalid_value(Unexpected::Float(x), &WHAT))
            }
            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Self::Value, E> {
                self.visit_f64(x as f64)
            }
            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Self::Value, E> {
                self.visit_f64(x as f64)
            }
            fn visit_str<E: de::Error>(self, x: &str) -> Result<Self::Value, E> {
                if x == "max" { Ok(RealtimeFactor::Max) } else { Err(E::invalid_value(Unexpected::Str(x), &WHAT)) }
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Default for RealtimeFactor {
    fn default() -> Self {
        Self::Factor(PositiveF64(1.0))
    }
}

/// `name` as one topic name token: characters other than ASCII letters, digits and `_`
/// become `_`, and a leading digit gets a `_` before it (a link or body name in a topic).
pub fn topic_token(name: &str) -> String {
    let mut t: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        t.insert(0, '_');
    }
    t
}

impl TopicName {
    /// The topic as a node named `node` (no namespace) resolves it: `~/x` → `/node/x`.
    pub fn resolved(&self, node: &str) -> String {
        match self.0.strip_prefix("~/") {
            Some(rest) => format!("/{node}/{rest}"),
            None => self.0.clone(),
        }
    }
}

/// A single ROS name token (a controller or node name): letters, digits and `_`, not
/// starting with a digit.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct NameToken(String);

impl PositiveF64 {
    /// `Some` if `x` is finite and positive.
    pub fn new(x: f64) -> Option<Self> {
        (x.is_finite() && x > 0.0).then_some(Self(x))
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Fraction {
    /// `Some` if 0 < x ≤ 1.
    pub fn new(x: f64) -> Option<Self> {
        (x > 0.0 && x <= 1.0).then_some(Self(x))
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl FiniteF64 {
    /// `Some` if `x` is finite.
    pub fn new(x: f64) -> Option<Self> {
        x.is_finite().then_some(Self(x))
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

fn is_token(t: &str) -> bool {
    let mut chars = t.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl TopicName {
    /// `Some` if `s` is a valid topic name.
    pub fn new(s: &str) -> Option<Self> {
        let body = s.strip_prefix("~/").or_else(|| s.strip_prefix('/')).unwrap_or(s);
        (!body.is_empty() && body.split('/').all(is_token)).then(|| Self(s.to_owned()))
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl NameToken {
    /// `Some` if `s` is a single valid name token.
    pub fn new(s: &str) -> Option<Self> {
        is_token(s).then(|| Self(s.to_owned()))
    }
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for TopicName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TopicName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for NameToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Deserializes a number (integers too: YAML `1000` for a rate) that `accept` must take;
/// anything else is "expected <what>".
fn number<'de, D: Deserializer<'de>>(d: D, what: &'static str, accept: fn(f64) -> bool) -> Result<f64, D::Error> {
    struct Number(&'static str);
    impl de::Visitor<'_> for Number {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_f64<E: de::Error>(self, x: f64) -> Result<f64, E> {
            Ok(x)
        }
        fn visit_i64<E: de::Error>(self, x: i64) -> Result<f64, E> {
            Ok(x as f64)
        }
        fn visit_u64<E: de::Error>(self, x: u64) -> Result<f64, E> {
            Ok(x as f64)
        }
    }
    let x = d.deserialize_f64(Number(what))?;
    if accept(x) { Ok(x) } else { Err(de::Error::invalid_value(Unexpected::Float(x), &what)) }
}

impl<'de> Deserialize<'de> for PositiveF64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        number(d, "a positive finite number", |x| x.is_finite() && x > 0.0).map(Self)
    }
}

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        number(d, "a number in (0, 1]", |x| x > 0.0 && x <= 1.0).map(Self)
    }
}

impl<'de> Deserialize<'de> for FiniteF64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        number(d, "a finite number", f64::is_finite).map(Self)
    }
}

impl<'de> Deserialize<'de> for TopicName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(&s)
            .ok_or_else(|| de::Error::invalid_value(Unexpected::Str(&s), &"a ROS topic name such as /joint_states"))
    }
}

impl<'de> Deserialize<'de> for NameToken {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(&s)
            .ok_or_else(|| de::Error::invalid_value(Unexpected::Str(&s), &"a ROS name token (letters, digits, _)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert!(PositiveF64::new(1e-9).is_some());
        assert!(PositiveF64::new(0.0).is_none());
        assert!(PositiveF64::new(f64::INFINITY).is_none());
        assert!(FiniteF64::new(-3.0).is_some());
        assert!(FiniteF64::new(f64::NAN).is_none());
    }

    #[test]
    fn topic_names() {
        for ok in ["/joint_states", "joint_states", "~/contact_wrenches/lf_foot", "/a_1/b2/_c"] {
            assert!(TopicName::new(ok).is_some(), "{ok}");
        }
        for bad in ["", "/", "//a", "/a/", "/1a", "/a b", "/a-b", "~", "/a//b"] {
            assert!(TopicName::new(bad).is_none(), "{bad}");
        }
        assert!(NameToken::new("effort_controller").is_some());
        assert!(NameToken::new("a/b").is_none());
        assert!(NameToken::new("").is_none());
    }
}

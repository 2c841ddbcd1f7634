//! Helpers shared by the crate's unit tests (the integration tests take them from
//! [`crate::scenes`]).

pub(crate) use crate::scenes::uniform;

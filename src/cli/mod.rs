//! The logic of the command-line tools (the binary only parses arguments and prints).

pub mod bench;
pub mod dynamics;
pub mod interrupt;
pub mod sim;
pub mod solve;

use serde::de::DeserializeOwned;

/// A bad JSON input file: which key, what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{file}: key `{key}`: {message}")]
pub struct InputError {
    /// The input file.
    pub file: String,
    /// The key (`(top level)` for the document itself).
    pub key: String,
    /// Expected and found.
    pub message: String,
}

impl InputError {
    /// An error about `key` of `file`.
    pub fn new(file: &str, key: &str, message: String) -> Self {
        Self { file: file.to_owned(), key: key.to_owned(), message }
    }
}

/// Parses `text` (the content of `file`) as JSON into `T`, naming the key that does not fit.
pub fn parse_json<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let key = e.path().to_string();
        InputError::new(file, if key == "." { "(top level)" } else { &key }, e.into_inner().to_string())
    })
}

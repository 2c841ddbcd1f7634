//! The logic of the command-line tools (the binary only parses arguments and prints).

pub mod dynamics;
pub mod sim;
pub mod solve;

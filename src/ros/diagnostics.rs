//! /diagnostics: the loop's health as diagnostic_msgs/DiagnosticArray.

use r2r::diagnostic_msgs::msg::{DiagnosticArray, DiagnosticStatus, KeyValue};
use r2r::std_msgs::msg::Header;

use super::state_publisher::ros_time;
use crate::runtime::status::{Level, Status};

/// Name of the status entry in the array (`<node>: loop`).
pub const LOOP_STATUS_NAME: &str = "signorini: loop";

/// The array for one status, stamped with simulation time.
pub fn diagnostic_array(status: &Status, sim_time_ns: u64, hardware_id: &str) -> DiagnosticArray {
    let level = match status.level {
        Level::Ok => DiagnosticStatus::OK as u8,
        Level::Warn => DiagnosticStatus::WARN as u8,
        Level::Error => DiagnosticStatus::ERROR as u8,
    };
    DiagnosticArray {
        header: Header { stamp: ros_time(sim_time_ns), frame_id: String::new() },
        status: vec![DiagnosticStatus {
            level,
            name: LOOP_STATUS_NAME.to_owned(),
            message: status.message.clone(),
            hardware_id: hardware_id.to_owned(),
            values: status.values.iter().map(|(k, v)| KeyValue { key: (*k).to_owned(), value: v.clone() }).collect(),
        }],
    }
}

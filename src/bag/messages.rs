//! The ROS 2 messages `signorini sim` records: their `ros2msg` definitions (with every
//! dependency, as rosbag2 stores them in MCAP schemas) and their CDR encodings.

use super::cdr::CdrWriter;
use crate::runtime::Odometry;

const SEPARATOR: &str = "================================================================================";

/// (type, definition) of every message type a recorded type may contain.
const DEFINITIONS: &[(&str, &str)] = &[
    ("builtin_interfaces/msg/Time", "int32 sec\nuint32 nanosec\n"),
    ("std_msgs/msg/Header", "builtin_interfaces/Time stamp\nstring frame_id\n"),
    ("rosgraph_msgs/msg/Clock", "builtin_interfaces/Time clock\n"),
    (
        "sensor_msgs/msg/JointState",
        "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n",
    ),
    ("geometry_msgs/msg/Vector3", "float64 x\nfloat64 y\nfloat64 z\n"),
    ("geometry_msgs/msg/Point", "float64 x\nfloat64 y\nfloat64 z\n"),
    ("geometry_msgs/msg/Quaternion", "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"),
    ("geometry_msgs/msg/Wrench", "geometry_msgs/Vector3 force\ngeometry_msgs/Vector3 torque\n"),
    ("geometry_msgs/msg/WrenchStamped", "std_msgs/Header header\ngeometry_msgs/Wrench wrench\n"),
    ("geometry_msgs/msg/Pose", "geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n"),
    ("geometry_msgs/msg/PoseWithCovariance", "geometry_msgs/Pose pose\nfloat64[36] covariance\n"),
    ("geometry_msgs/msg/Twist", "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n"),
    ("geometry_msgs/msg/TwistWithCovariance", "geometry_msgs/Twist twist\nfloat64[36] covariance\n"),
    (
        "nav_msgs/msg/Odometry",
        "std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\n\
         geometry_msgs/TwistWithCovariance twist\n",
    ),
];

fn definition(name: &str) -> &'static str {
    DEFINITIONS.iter().find(|(n, _)| *n == name).map_or("", |(_, d)| d)
}

/// The `ros2msg` schema of `name` (e.g. `nav_msgs/msg/Odometry`): its definition, then each
/// type it uses, transitively, after a separator line and `MSG: pkg/Type`.
pub fn schema(name: &str) -> String {
    let mut out = definition(name).to_owned();
    let mut seen: Vec<String> = Vec::new();
    let mut pending = vec![name.to_owned()];
    while let Some(t) = pending.pop() {
        for line in definition(&t).lines() {
            let Some(field_type) = line.split_whitespace().next() else { continue };
            let base = field_type.split('[').next().unwrap_or(field_type);
            let Some((package, message)) = base.split_once('/') else { continue };
            let full = format!("{package}/msg/{message}");
            if !seen.contains(&full) {
                out.push_str(&format!("{SEPARATOR}\nMSG: {package}/{message}\n{}", definition(&full)));
                seen.push(full.clone());
                pending.push(full);
            }
        }
    }
    out
}

fn time(w: &mut CdrWriter, ns: u64) {
    w.i32((ns / 1_000_000_000) as i32).u32((ns % 1_000_000_000) as u32);
}

fn header(w: &mut CdrWriter, ns: u64, frame: &str) {
    time(w, ns);
    w.string(frame);
}

/// rosgraph_msgs/Clock.
pub fn clock(ns: u64) -> Vec<u8> {
    let mut w = CdrWriter::new();
    time(&mut w, ns);
    w.finish()
}

/// sensor_msgs/JointState.
pub fn joint_state(ns: u64, names: &[String], position: &[f64], velocity: &[f64], effort: &[f64]) -> Vec<u8> {
    let mut w = CdrWriter::new();
    header(&mut w, ns, "");
    w.string_seq(names).f64_seq(position).f64_seq(velocity).f64_seq(effort);
    w.finish()
}

/// geometry_msgs/WrenchStamped.
pub fn wrench_stamped(ns: u64, frame: &str, force: [f64; 3], torque: [f64; 3]) -> Vec<u8> {
    let mut w = CdrWriter::new();
    header(&mut w, ns, frame);
    for x in force.iter().chain(&torque) {
        w.f64(*x);
    }
    w.finish()
}

/// nav_msgs/Odometry: pose in `frame`, twist in `child` (the body frame), no covariance.
pub fn odometry(ns: u64, frame: &str, child: &str, o: &Odometry) -> Vec<u8> {
    let mut w = CdrWriter::new();
    header(&mut w, ns, frame);
    w.string(child);
    for x in o.position.iter().chain(&o.orientation) {
        w.f64(*x);
    }
    for _ in 0..36 {
        w.f64(0.0);
    }
    for x in o.linear.iter().chain(&o.angular) {
        w.f64(*x);
    }
    for _ in 0..36 {
        w.f64(0.0);
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_lists_every_nested_type_once() {
        let s = schema("nav_msgs/msg/Odometry");
        assert!(s.starts_with("std_msgs/Header header\n"));
        for t in ["std_msgs/Header", "builtin_interfaces/Time", "geometry_msgs/Vector3", "geometry_msgs/Quaternion"] {
            assert_eq!(s.matches(&format!("MSG: {t}\n")).count(), 1, "{t} in\n{s}");
        }
        assert_eq!(schema("rosgraph_msgs/msg/Clock").matches("MSG: ").count(), 1);
    }
}

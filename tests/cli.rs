//! The command line's contract: exit codes and one-line errors.

use std::process::Command;

fn signorini(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn check_lists_the_controlled_joints() {
    let (code, out, _) = signorini(&["check", "--config", "config/quadruped.yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("robot `quadruped` from urdf/quadruped.urdf: 17 links, 16 joints (12 movable)"), "{out}");
    assert!(out.contains("rf_kfe                   initial -1.2000"), "{out}");
}

#[test]
fn bad_input_exits_with_code_2_and_one_line() {
    let dir = std::env::temp_dir().join(format!("signorini-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "robot:\n  urdf: nowhere.urdf\nrate_hz: 0\n").unwrap();
    let (code, _, err) = signorini(&["check", "--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("signorini: error: {}: key `rate_hz`", bad.display())), "{err}");

    let (code, _, err) = signorini(&["loop", "--config", "config/arm7.yaml", "--duration=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("--duration: expected a positive number of seconds, got -1"), "{err}");
    let (code, _, _) = signorini(&["frobnicate"]);
    assert_eq!(code, 2, "clap's usage errors are bad input too");
}

#[test]
fn loop_runs_without_ros_and_reports_the_whole_run() {
    let (code, out, _) = signorini(&["loop", "--config", "config/arm7.yaml", "--duration", "1.2"]);
    assert_eq!(code, 0);
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("whole run: "), "{out}");
    assert!(out.lines().any(|l| l.starts_with("rate ")), "a status line per second: {out}");
}

#[cfg(not(feature = "ros"))]
#[test]
fn without_ros_the_node_explains_itself() {
    let (code, _, err) = signorini(&["node"]);
    assert_eq!(code, 1);
    assert!(err.contains("no ROS 2 support"), "{err}");
}

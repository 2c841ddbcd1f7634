//! Every configuration error names the file, the key, what was expected and what was found.

mod common;

use std::path::Path;

use signorini::app::{Setup, SetupError, UrdfText};
use signorini::config::{Config, ConfigError, Mode};

use common::repo;

fn error(yaml: &str) -> String {
    Config::from_yaml(yaml, "robot.yaml").unwrap_err().to_string()
}

#[test]
fn wrong_types_and_values_name_key_expected_and_found() {
    let cases = [
        (
            "rate_hz: fast\nrobot: {urdf: r.urdf}\n",
            "robot.yaml: key `rate_hz`: invalid type: string \"fast\", expected a positive finite number (line 1, column 10)",
        ),
        (
            "rate_hz: -5\nrobot: {urdf: r.urdf}\n",
            "robot.yaml: key `rate_hz`: invalid value: floating point `-5.0`, expected a positive finite number",
        ),
        (
            "mode: simm\nrobot: {urdf: r.urdf}\n",
            "robot.yaml: key `mode`: unknown variant `simm`, expected one of `sim`, `control`, `sim+control` (line 1, column 7)",
        ),
        (
            "robot:\n  urdf: r.urdf\n  initial_posture: {lf_kfe: .nan}\n",
            "robot.yaml: key `robot.initial_posture.lf_kfe`: invalid value: floating point `NaN`, expected a finite number",
        ),
        (
            "robot: {urdf: r.urdf}\ntopics: {clock: \"my clock\"}\n",
            "robot.yaml: key `topics.clock`: invalid value: string \"my clock\", expected a ROS topic name such as /joint_states",
        ),
        (
            "robot: {urdf: r.urdf}\ntopics: {tf: \"t f\"}\n",
            "robot.yaml: key `topics.tf`: invalid value: string \"t f\", expected a ROS topic name such as /tf, or \"\" for none",
        ),
        (
            "robot: {urdf: r.urdf}\nqos: {commands: {depth: 0}}\n",
            "robot.yaml: key `qos.commands.depth`: invalid value: integer `0`, expected a nonzero usize",
        ),
        (
            "robot: {urdf: r.urdf}\nqos: {commands: {reliability: sometimes}}\n",
            "robot.yaml: key `qos.commands.reliability`: unknown variant `sometimes`, expected `reliable` or `best_effort`",
        ),
        ("robot: [1, 2]\n", "robot.yaml: key `robot`: invalid type: sequence, expected a mapping of robot settings"),
        (
            "robot: {urdf: r.urdf}\nrealtime: {priority: 120}\n",
            "robot.yaml: key `realtime.priority`: invalid value: floating point `120.0`, expected a SCHED_FIFO priority 1-99, or 0 for normal scheduling",
        ),
        (
            "robot: {urdf: r.urdf}\ncontroller: a/b\n",
            "robot.yaml: key `controller`: invalid value: string \"a/b\", expected a ROS name token",
        ),
        (
            "robot: {urdf: r.urdf}\ncontact: {model: lcp}\n",
            "robot.yaml: key `contact.model`: unknown variant `lcp`, expected `ncp` or `ccp`",
        ),
        (
            "robot: {urdf: r.urdf}\ncontact: {penetration_recovery: 1.5}\n",
            "robot.yaml: key `contact.penetration_recovery`: invalid value: floating point `1.5`, expected a number in (0, 1]",
        ),
        (
            "robot: {urdf: r.urdf}\ncontact: {solver: lemke}\n",
            "robot.yaml: key `contact.solver`: unknown variant `lemke`, expected one of `admm`, `pgs`, `lcp`, `chrono-admm`, `chrono-fadmm`, `sap`, `vfpi`, `vfpi-block`",
        ),
        (
            "robot: {urdf: r.urdf}\nsensors: {imu: [{name: i, link: base, gyro_noise: [0.1, -0.1, 0.1]}]}\n",
            "robot.yaml: key `sensors.imu[0].gyro_noise[1]`: invalid value: floating point `-0.1`, expected a finite number ≥ 0",
        ),
        (
            "robot: {urdf: r.urdf}\nsensors: {force_torque: [{name: f, joint: j, direction: up}]}\n",
            "robot.yaml: key `sensors.force_torque[0].direction`: unknown variant `up`, expected `parent_to_child` or `child_to_parent`",
        ),
        (
            "robot: {urdf: r.urdf}\nsim: {realtime_factor: fast}\n",
            "robot.yaml: key `sim.realtime_factor`: invalid value: string \"fast\", expected a positive real-time factor, or `max`",
        ),
        (
            "robot: {urdf: r.urdf}\nsim: {realtime_factor: 0}\n",
            "robot.yaml: key `sim.realtime_factor`: invalid value: floating point `0.0`, expected a positive real-time factor, or `max`",
        ),
        (
            "robot: {urdf: r.urdf}\nsim: {publish_every: 0}\n",
            "robot.yaml: key `sim.publish_every`: invalid value: integer `0`, expected a nonzero usize",
        ),
        (
            "robot: {urdf: r.urdf}\ncontrol: {safe_output: hold}\n",
            "robot.yaml: key `control.safe_output`: unknown variant `hold`, expected one of `zero`, `damping`, `gravity`",
        ),
    ];
    for (yaml, expected) in cases {
        let got = error(yaml);
        assert!(got.starts_with(expected), "\n got: {got}\nwant: {expected}…");
    }
}

#[test]
fn unknown_and_missing_keys_are_named() {
    let e = error("rate: 5\nrobot: {urdf: r.urdf}\n");
    assert!(e.starts_with("robot.yaml: key `rate`: unknown field `rate`, expected one of `mode`, `rate_hz`"), "{e}");
    let e = error("robot:\n  urdff: r.urdf\n");
    assert!(e.starts_with("robot.yaml: key `robot.urdff`: unknown field `urdff`, expected one of `urdf`"), "{e}");
    assert_eq!(error("mode: sim\n"), "robot.yaml: key `robot`: required, but missing");
    assert_eq!(error(""), "robot.yaml: key `robot`: required, but missing");
}

#[test]
fn defaults_fill_what_is_not_given() {
    let c = Config::from_yaml("robot: {urdf: r.urdf}\n", "x.yaml").unwrap();
    assert_eq!(c.mode, Mode::Sim);
    assert_eq!(c.rate_hz.get(), 1000.0);
    assert_eq!(c.commands_topic().as_str(), "/effort_controller/commands");
    assert_eq!(c.topics.joint_states.as_str(), "/joint_states");
    assert_eq!(c.topics.tf.as_ref().map(|t| t.as_str()), Some("/tf"));
    assert_eq!(c.diagnostics.rate_hz.get(), 1.0);
    assert_eq!(c.watchdog.stale_after_periods.get(), 100.0);
    assert_eq!(c.realtime.priority.fifo(), Some(50));
    let c = Config::from_yaml("robot: {urdf: r.urdf}\nrealtime: {priority: 0}\n", "x.yaml").unwrap();
    assert_eq!(c.realtime.priority.fifo(), None);
    // An empty topic turns /tf off.
    let c = Config::from_yaml("robot: {urdf: r.urdf}\ntopics: {tf: \"\"}\n", "x.yaml").unwrap();
    assert_eq!(c.topics.tf, None);
    let c = Config::from_yaml("robot: {urdf: r.urdf}\ncontroller: legs\nrate_hz: 4000\n", "x.yaml").unwrap();
    assert_eq!(c.commands_topic().as_str(), "/legs/commands");
    assert_eq!(c.period(), std::time::Duration::from_micros(250));
}

#[test]
fn the_loop_period_follows_the_mode_and_the_real_time_factor() {
    use std::time::Duration;
    let period = |yaml: &str| Config::from_yaml(&format!("robot: {{urdf: r.urdf}}\n{yaml}"), "x.yaml").unwrap();
    // Simulating: one step of sim.dt (default 1/rate_hz) per dt / realtime_factor.
    assert_eq!(period("rate_hz: 500\n").loop_period(), Duration::from_millis(2));
    let c = period("sim: {dt: 0.002, realtime_factor: 4}\n");
    assert_eq!((c.sim_dt(), c.loop_period()), (0.002, Duration::from_micros(500)));
    assert_eq!(c.stale_after(), Duration::from_millis(50));
    let c = period("mode: sim+control\nsim: {realtime_factor: max}\n");
    assert_eq!(c.loop_period(), Duration::ZERO);
    assert_eq!(c.stale_after(), Duration::from_millis(100), "a free loop counts simulated steps");
    // Controlling: 1/rate_hz, whatever the simulator's settings.
    let c = period("mode: control\nrate_hz: 4000\nsim: {dt: 0.01}\n");
    assert_eq!(c.loop_period(), Duration::from_micros(250));
    // A simulation catches up stalls of up to sim.catch_up; a controller never bursts.
    assert_eq!(c.loop_catch_up(), Duration::ZERO);
    assert_eq!(period("").loop_catch_up(), Duration::from_millis(100));
    assert_eq!(period("sim: {catch_up: 0}\n").loop_catch_up(), Duration::ZERO);
}

#[test]
fn a_missing_file_is_named() {
    let e = Config::from_file(Path::new("/nonexistent/signorini.yaml")).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }));
    assert!(e.to_string().starts_with("/nonexistent/signorini.yaml: cannot read"), "{e}");
}

use common::temp_file as write_config;

#[test]
fn joints_and_posture_are_checked_against_the_urdf() {
    let urdf = repo("urdf/arm7.urdf");
    let cfg = |body: &str| write_config("arm.yaml", &format!("robot:\n  urdf: {}\n{body}", urdf.display()));
    let e = Setup::load(&cfg("  joints: [joint1, tool_fixed]\n"), None).unwrap_err().to_string();
    assert!(e.contains("key `robot.joints[1]`: expected a revolute, continuous or prismatic joint"), "{e}");
    assert!(e.contains("got `tool_fixed`"), "{e}");
    let e = Setup::load(&cfg("  joints: [joint1, joint1]\n"), None).unwrap_err().to_string();
    assert!(e.contains("key `robot.joints[1]`: joint `joint1` is listed twice"), "{e}");
    let e = Setup::load(&cfg("  initial_posture: {elbow: 1.0}\n"), None).unwrap_err().to_string();
    assert!(e.contains("key `robot.initial_posture.elbow`: expected one of the configured joints"), "{e}");
    let e = Setup::load(&cfg("  initial_posture: {joint2: 3.0}\n"), None).unwrap_err().to_string();
    assert!(
        e.contains(
            "key `robot.initial_posture.joint2`: expected a position within the URDF limits [-2.09, 2.09], got 3"
        ),
        "{e}"
    );
    let s = Setup::load(&cfg("  joints: [joint7, joint2]\n  initial_posture: {joint2: 0.25}\n"), None).unwrap();
    assert_eq!(s.joint_names, ["joint7", "joint2"]);
    assert_eq!(s.initial_positions, [0.0, 0.25]);
}

/// Sensors name links and joints of the robot, once each, at most at the step rate.
#[test]
fn sensors_are_checked_against_the_urdf() {
    let urdf = repo("urdf/arm7.urdf");
    let cfg =
        |name: &str, body: &str| write_config(name, &format!("robot:\n  urdf: {}\nsensors:\n{body}", urdf.display()));
    let cases = [
        (
            "  imu: [{name: i, link: hand}]\n",
            "key `sensors.imu[0].link`: expected a link of arm7 (one of base_link, link1, link2, link3, link4, link5, link6, link7, tool), got `hand`",
        ),
        (
            "  force_torque: [{name: f, joint: tool_fixed}]\n",
            "key `sensors.force_torque[0].joint`: expected a movable joint of arm7 (one of joint1, joint2, joint3, joint4, joint5, joint6, joint7; fixed joints are merged into their parent link), got `tool_fixed`",
        ),
        (
            "  imu: [{name: s, link: tool}]\n  force_torque: [{name: s, joint: joint7}]\n",
            "key `sensors.force_torque[0].name`: expected a unique, non-empty name, got `s`",
        ),
        (
            "  imu: [{name: i, link: tool, rate_hz: 2000}]\n",
            "key `sensors.imu[0].rate_hz`: expected at most the step rate 1000 Hz, got 2000",
        ),
        (
            "  foot_contact: {feet: [{link: tool}, {link: tool}]}\n",
            "key `sensors.foot_contact.feet[1].link`: link `tool` is listed twice",
        ),
    ];
    for (k, (body, expected)) in cases.iter().enumerate() {
        let path = cfg(&format!("sensors{k}.yaml"), body);
        let e = Setup::load(&path, None).unwrap_err().to_string();
        assert_eq!(e, format!("{}: {expected}", path.display()), "{body}");
        assert_eq!(e.lines().count(), 1);
    }
}

#[test]
fn a_bad_urdf_path_names_the_config_key_and_the_file() {
    let path = write_config("missing_urdf.yaml", "robot:\n  urdf: does/not/exist.urdf\n");
    let e = Setup::load(&path, None).unwrap_err();
    assert!(matches!(e, SetupError::UrdfFile { .. }));
    let e = e.to_string();
    assert!(e.contains("missing_urdf.yaml: key `robot.urdf`: "), "{e}");
    assert!(e.contains("does/not/exist.urdf: cannot read the file"), "{e}");
}

#[test]
fn without_a_urdf_text_the_urdf_file_is_required() {
    // The node may take the URDF from the parameter or a topic; without either (as the
    // command line always is), `robot.urdf` must name one.
    let path = write_config("no_urdf.yaml", "robot: {floating_base: true}\n");
    let e = Setup::load(&path, None).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: key `robot.urdf`: required, but missing (the node can take", path.display())),
        "{e}"
    );
    let path = write_config("topic_only.yaml", "robot: {description_topic: /robot_description}\n");
    let e = Setup::load(&path, None).unwrap_err().to_string();
    assert!(e.contains("key `robot.urdf`: required, but missing"), "{e}");
    let (code, _, stderr) = common::signorini(&["check", "--config", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("key `robot.urdf`: required, but missing"), "{stderr}");
}

#[test]
fn the_description_topic_keys_are_checked() {
    let c = Config::from_yaml("robot: {description_topic: /robot_description}\n", "x.yaml").unwrap();
    assert_eq!(c.robot.urdf, None);
    assert_eq!(c.robot.description_topic.as_deref(), Some("/robot_description"));
    assert_eq!(c.robot.description_timeout.get(), 10.0, "the default wait");
    let e = error("robot: {description_topic: \"robot description\"}\n");
    assert!(e.starts_with("robot.yaml: key `robot.description_topic`: invalid value"), "{e}");
    let e = error("robot: {description_topic: /d, description_timeout: 0}\n");
    assert!(e.starts_with("robot.yaml: key `robot.description_timeout`: invalid value"), "{e}");
}

#[test]
fn urdf_text_from_a_topic_loads_as_the_file_and_its_errors_name_the_topic() {
    let topic = UrdfText { xml: "", origin: "topic /robot_description" };
    let path = write_config("from_topic.yaml", "robot:\n  description_topic: /robot_description\n");
    let config = || Config::from_file(&path).unwrap();
    let xml = std::fs::read_to_string(repo("urdf/quadruped.urdf")).unwrap();
    let from_topic = Setup::with_urdf(&path, config(), Some(UrdfText { xml: &xml, ..topic })).unwrap();
    assert_eq!(from_topic.robot.origin, "topic /robot_description");
    let from_file = Setup::load(&repo("config/quadruped.yaml"), None).unwrap();
    assert_eq!(from_topic.joint_names, from_file.joint_names);
    assert_eq!(from_topic.robot.links, from_file.robot.links);
    assert_eq!(from_topic.robot.joints, from_file.robot.joints);

    let e = Setup::with_urdf(&path, config(), Some(topic)).unwrap_err().to_string();
    assert_eq!(e, "topic /robot_description: the URDF text is empty");
    let e =
        Setup::with_urdf(&path, config(), Some(UrdfText { xml: "<robot name='x'>", ..topic })).unwrap_err().to_string();
    assert!(e.starts_with("topic /robot_description: not a valid URDF"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let mesh = "<robot name='m'><link name='a'><collision><geometry><mesh filename='package://nowhere/a.stl'/>\
                </geometry></collision></link></robot>";
    let e = Setup::with_urdf(&path, config(), Some(UrdfText { xml: mesh, ..topic })).unwrap_err().to_string();
    assert!(
        e.contains("topic /robot_description: link `a`: collision mesh `package://nowhere/a.stl` not found"),
        "{e}"
    );
}

#[test]
fn robot_description_text_replaces_the_urdf_file() {
    let path = write_config("override.yaml", "robot:\n  urdf: does/not/exist.urdf\n");
    let xml = std::fs::read_to_string(repo("urdf/arm7.urdf")).unwrap();
    let s = Setup::load(&path, Some(&xml)).unwrap();
    assert_eq!(s.robot.name, "arm7");
    assert_eq!(s.robot.origin, "parameter robot_description");
    let e = Setup::load(&path, Some("<robot name='x'>")).unwrap_err().to_string();
    assert!(e.starts_with("parameter robot_description: not a valid URDF"), "{e}");
}

#[test]
fn stance_links_must_be_links_with_collision_shapes() {
    let urdf = repo("urdf/quadruped.urdf");
    let cfg = |links: &str| {
        let body =
            format!("robot:\n  urdf: {}\n  floating_base: true\ncontrol:\n  stance_links: {links}\n", urdf.display());
        write_config("stance.yaml", &body)
    };
    let e = Setup::load(&cfg("[lf_foot, rf_paw]"), None).unwrap().controller().err().unwrap().to_string();
    assert!(
        e.ends_with("stance.yaml: key `control.stance_links`: `rf_paw` is no link of the robot with collision shapes"),
        "{e}"
    );
    assert!(Setup::load(&cfg("[lf_foot, rf_foot]"), None).unwrap().controller().is_ok());
}

#[test]
fn the_simulation_interfaces_keys_are_checked() {
    use signorini::config::InitialState;
    let c = Config::from_yaml("robot: {urdf: r.urdf}\n", "x.yaml").unwrap();
    assert_eq!(c.simulation_interfaces.namespace.service("step_simulation"), "~/step_simulation");
    assert_eq!(c.simulation_interfaces.initial_state, InitialState::Playing);
    let yaml = "robot: {urdf: r.urdf}\nsimulation_interfaces: {namespace: /sim, initial_state: stopped}\n";
    let c = Config::from_yaml(yaml, "x.yaml").unwrap();
    assert_eq!(c.simulation_interfaces.namespace.service("step_simulation"), "/sim/step_simulation");
    assert_eq!(c.simulation_interfaces.initial_state, InitialState::Stopped);
    let cases = [
        (
            "robot: {urdf: r.urdf}\nsimulation_interfaces: {namespace: \"/sim/\"}\n",
            "robot.yaml: key `simulation_interfaces.namespace`: invalid value: string \"/sim/\", expected a ROS namespace: `~` (the node's name), or a name such as /sim or ~/sim",
        ),
        (
            "robot: {urdf: r.urdf}\nsimulation_interfaces: {initial_state: running}\n",
            "robot.yaml: key `simulation_interfaces.initial_state`: unknown variant `running`, expected one of `playing`, `paused`, `stopped`",
        ),
        (
            "robot: {urdf: r.urdf}\nsimulation_interfaces: {spawn: true}\n",
            "robot.yaml: key `simulation_interfaces.spawn`: unknown field `spawn`, expected one of `namespace`, `initial_state`, `spawn_capacity`",
        ),
        (
            "robot: {urdf: r.urdf}\nsimulation_interfaces: {spawn_capacity: 1000}\n",
            "robot.yaml: key `simulation_interfaces.spawn_capacity`: invalid value: integer `1000`, expected a number of spawn slots from 0 (spawning off) to 256",
        ),
        (
            "robot: {urdf: r.urdf}\nsimulation_interfaces: {spawn_capacity: -1}\n",
            "robot.yaml: key `simulation_interfaces.spawn_capacity`: invalid type: integer `-1`, expected usize",
        ),
    ];
    for (yaml, expected) in cases {
        let got = error(yaml);
        assert!(got.starts_with(expected), "\n got: {got}\nwant: {expected}…");
    }
}

/// `robots:` (several robots): an unknown key of an entry, a namespace used twice or by a
/// free body, a single-robot key beside it, a mode other than sim and a bad joint name are
/// each one line naming the key.
#[test]
fn several_robots_errors_name_the_key() {
    let urdf = repo("urdf/quadruped.urdf");
    let entry = |ns: &str| format!("  - {{namespace: {ns}, urdf: {}, floating_base: true}}\n", urdf.display());
    let load = |name: &str, body: &str| {
        let path = write_config(name, body);
        let e = Setup::load(&path, None).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        (path.display().to_string(), e)
    };
    let two = format!("robot: {{}}\nrobots:\n{}{}", entry("a"), entry("b"));
    assert!(Setup::load(&write_config("two.yaml", &two), None).is_ok());
    let (file, e) = load(
        "unknown.yaml",
        &format!(
            "robot: {{}}\nrobots:\n{}    colour: red\n",
            entry("a").replace('}', ", colour: red}").replace("\n    colour: red", "")
        ),
    );
    assert!(e.starts_with(&format!("{file}: key `robots[0]")) && e.contains("colour"), "{e}");
    let (file, e) = load("twice.yaml", &format!("robot: {{}}\nrobots:\n{}{}", entry("a"), entry("a")));
    assert_eq!(e, format!("{file}: key `robots[1].namespace`: namespace `a` is used twice"));
    let body = format!(
        "robot: {{}}\nrobots:\n{}sim:\n  bodies:\n    - {{name: a, shape: {{type: sphere, radius: 0.1}}, mass: 1, position: [2, 0, 1]}}\n",
        entry("a")
    );
    let (file, e) = load("body.yaml", &body);
    assert!(
        e.starts_with(&format!("{file}: key `robots[0].namespace`: namespace `a` is also the name of a body")),
        "{e}"
    );
    let (file, e) = load("single.yaml", &format!("robot: {{urdf: {}}}\nrobots:\n{}", urdf.display(), entry("a")));
    assert!(e.starts_with(&format!("{file}: key `robot.urdf`: belongs to the single robot")), "{e}");
    let (file, e) = load("mode.yaml", &format!("mode: control\n{two}"));
    assert_eq!(
        e,
        format!("{file}: key `robots`: several robots are simulated in `mode: sim` only, got `mode: control`")
    );
    let joints = format!("robot: {{}}\nrobots:\n{}", entry("a").replace('}', ", joints: [lf_haa, nope]}"));
    let (file, e) = load("joints.yaml", &joints);
    assert!(e.starts_with(&format!("{file}: key `robots[0].joints[1]`: expected a revolute")), "{e}");
}

/// Every class of physical range refuses the first number past it with the usual line:
/// the file, the key, the range with its unit, the number found. Each fragment is the
/// range's edge pushed just past it (`ranges::*` holds the edges).
#[test]
fn numbers_outside_their_physical_range_name_key_range_and_value() {
    let cases = [
        ("rate_hz: 1e-20", "rate_hz", "expected a rate from 1 to 100000 Hz, got 1e-20"),
        ("rate_hz: 3e9", "rate_hz", "expected a rate from 1 to 100000 Hz, got 3e9"),
        ("diagnostics: {rate_hz: 1e-20}", "diagnostics.rate_hz", "expected a rate from 0.01 to 1000 Hz, got 1e-20"),
        (
            "sensors: {imu: [{name: i, link: base, rate_hz: 2e5}]}",
            "sensors.imu[0].rate_hz",
            "expected a rate from 0.001 to 100000 Hz, got 200000",
        ),
        ("sim: {dt: 2}", "sim.dt", "expected a time step from 1e-6 to 1 s, got 2"),
        (
            "sim: {realtime_factor: 1e4}",
            "sim.realtime_factor",
            "expected a real-time factor from 0.001 to 1000, got 10000",
        ),
        ("sim: {catch_up: 1e20}", "sim.catch_up", "expected a duration from 0 to 60 s, got 1e20"),
        ("control: {pairing_tolerance: 5}", "control.pairing_tolerance", "expected a duration from 1e-9 to 1 s, got 5"),
        (
            "robot: {urdf: r.urdf, description_timeout: 1e6}",
            "robot.description_timeout",
            "expected a duration from 0.001 to 86400 s, got 1e6",
        ),
        (
            "watchdog: {stale_after_periods: 1e308}",
            "watchdog.stale_after_periods",
            "expected a number of periods from 1 to 1e6, got 1e308",
        ),
        (
            "sim: {base_position: [0, 0, 2e4]}",
            "sim.base_position[2]",
            "expected a coordinate from -10000 to 10000 m, got 20000",
        ),
        ("sim: {base_rpy: [0, 11, 0]}", "sim.base_rpy[1]", "expected an angle from -10 to 10 rad, got 11"),
        (
            "environment: {slopes: [{name: s, position: [0, 0, 0], angle: 1.6, size: [1, 1, 0.1]}]}",
            "environment.slopes[0].angle",
            "expected an inclination from -1.57 to 1.57 rad, got 1.6",
        ),
        (
            "environment: {ground: {normal: [0, 0, 1e300]}}",
            "environment.ground.normal[2]",
            "expected a direction component from -1000 to 1000, got 1e300",
        ),
        (
            "environment: {boxes: [{name: b, size: [1, 1e5, 1], position: [0, 0, 0]}]}",
            "environment.boxes[0].size[1]",
            "expected a length from 1e-6 to 10000 m, got 100000",
        ),
        (
            "environment: {meshes: [{name: m, file: m.stl, scale: [1e-9, 1, 1]}]}",
            "environment.meshes[0].scale[0]",
            "expected a scale factor from 1e-6 to 1e6, got 1e-9",
        ),
        ("collision: {margin: 11}", "collision.margin", "expected a distance from 0 to 10 m, got 11"),
        (
            "sim: {bodies: [{name: b, shape: {type: sphere, radius: 0.1}, mass: 1e8, position: [0, 0, 1]}]}",
            "sim.bodies[0].mass",
            "expected a mass from 1e-6 to 1e7 kg, got 1e8",
        ),
        (
            "sim: {bodies: [{name: b, shape: {type: sphere, radius: 0.1}, mass: 1, position: [0, 0, 1], velocity: [0, 2e3, 0]}]}",
            "sim.bodies[0].velocity[1]",
            "expected a velocity from -1000 to 1000 m/s, got 2000",
        ),
        (
            "collision: {link_friction: {lf_foot: 101}}",
            "collision.link_friction.lf_foot",
            "expected a friction coefficient from 0 to 100, got 101",
        ),
        (
            "environment: {ground: {restitution: 1.5}}",
            "environment.ground.restitution",
            "expected a restitution coefficient from 0 to 1, got 1.5",
        ),
        ("control: {kp: 1e9}", "control.kp", "expected a stiffness from 0 to 1e8 1/s², got 1e9"),
        (
            "control: {stance_damping: 1e7}",
            "control.stance_damping",
            "expected a damping rate from 0 to 1e6 1/s, got 1e7",
        ),
        ("control: {joint_weight: 1e-12}", "control.joint_weight", "expected a weight from 1e-9 to 1e9, got 1e-12"),
        (
            "joint_commands: {position_gains: {default: {kp: 1e10}}}",
            "joint_commands.position_gains.default.kp",
            "expected a gain from 0 to 1e9, got 1e10",
        ),
        (
            "control: {max_contact_force: 1e10}",
            "control.max_contact_force",
            "expected a force from 0 to 1e9 N, got 1e10",
        ),
        ("contact: {tolerance: 2}", "contact.tolerance", "expected a tolerance from 1e-15 to 1, got 2"),
        (
            "contact: {restitution_threshold: 200}",
            "contact.restitution_threshold",
            "expected a speed from 0 to 100 m/s, got 200",
        ),
        (
            "contact: {compliance_normal: 2}",
            "contact.compliance_normal",
            "expected a compliance from 0 to 1 m/N, got 2",
        ),
        (
            "sensors: {imu: [{name: i, link: base, accel_noise: [0, 0, 1e4]}]}",
            "sensors.imu[0].accel_noise[2]",
            "expected a sensor error from -1000 to 1000 rad/s or m/s², got 10000",
        ),
        (
            "control: {posture: {lf_kfe: 1e5}}",
            "control.posture.lf_kfe",
            "expected a joint position from -10000 to 10000 rad or m, got 100000",
        ),
        (
            "contact: {max_iterations: 10000000}",
            "contact.max_iterations",
            "expected an iteration count from 1 to 1e6, got 1e7",
        ),
        ("contact: {anderson: 1000000}", "contact.anderson", "expected an Anderson depth from 0 to 20, got 1e6"),
        ("contact: {scaling: 1.5}", "contact.scaling", "expected a scaling exponent from 0 to 1, got 1.5"),
        ("contact: {regenerate: 11}", "contact.regenerate", "expected a number of solves from 0 to 10, got 11"),
        ("sim: {publish_every: 10000000}", "sim.publish_every", "expected a number of steps from 1 to 1e6, got 1e7"),
        ("qos: {clock: {depth: 100000}}", "qos.clock.depth", "expected a queue depth from 1 to 10000, got 100000"),
        ("realtime: {cpu: 1024}", "realtime.cpu", "expected a CPU index from 0 to 1023, got 1024"),
        (
            "collision: {max_contacts: 100000000}",
            "collision.max_contacts",
            "expected a number of contacts from 1 to 1024, got 1e8",
        ),
    ];
    for (fragment, key, message) in cases {
        let yaml = if fragment.starts_with("robot:") {
            format!("{fragment}\n")
        } else {
            format!("robot: {{urdf: r.urdf}}\n{fragment}\n")
        };
        assert_eq!(error(&yaml), format!("robot.yaml: key `{key}`: {message}"), "{fragment}");
    }
    // The edges themselves are accepted.
    for edge in [
        "rate_hz: 100000",
        "rate_hz: 1",
        "sim: {dt: 1.0e-6, catch_up: 60}",
        "collision: {max_contacts: 1024}",
        "contact: {scaling: 0}",
        "contact: {scaling: 1}",
    ] {
        assert!(Config::from_yaml(&format!("robot: {{urdf: r.urdf}}\n{edge}\n"), "robot.yaml").is_ok(), "{edge}");
    }
}

//! README.md's "Configuration reference" lists every key the configuration structs accept,
//! and nothing they do not: the reference is checked against the code.

use std::collections::BTreeSet;
use std::path::Path;

use serde_yaml_ng::Value;
use signorini::config::Config;

/// Dotted paths of every key in the serialized configuration; the per-topic QoS blocks are
/// written `qos.<topic>.field` once, plus `qos.<topic name>` for each topic.
fn key_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    let Value::Mapping(map) = value else { return };
    for (k, v) in map {
        let Some(k) = k.as_str() else { continue };
        let path = if prefix.is_empty() { k.to_owned() } else { format!("{prefix}.{k}") };
        out.insert(path.clone());
        if prefix == "qos" {
            key_paths(v, "qos.<topic>", out);
        } else if let Value::Sequence(items) = v {
            // Lists of mappings (environment.boxes): their fields as `key[].field`.
            for item in items {
                key_paths(item, &format!("{path}[]"), out);
            }
        } else if path != "robot.initial_posture" {
            key_paths(v, &path, out);
        }
    }
}

fn documented_keys(readme: &str) -> BTreeSet<String> {
    let section = readme
        .split("## Configuration reference")
        .nth(1)
        .expect("README has a '## Configuration reference' section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readme_documents_exactly_the_configuration_keys() {
    let config = Config::from_yaml(
        "robot: {urdf: r.urdf, joints: [a], initial_posture: {a: 1.0}}\ntopics: {commands: /c}\n\
         robots: [{namespace: n, urdf: r.urdf, joints: [a], base_position: [0, 0, 0]}]\n\
         qos: {commands: {reliability: reliable, durability: volatile, depth: 1}}\nrealtime: {priority: 1, cpu: 0}\n\
         environment: {boxes: [{name: b, size: [1, 1, 1], position: [0, 0, 0]}], \
         slopes: [{name: s, position: [0, 0, 0], angle: 0.1, size: [1, 1, 0.1]}], meshes: [{name: m, file: m.stl}]}\n\
         collision: {srdf: r.srdf, robot_friction: 0.5, disable_pairs: [[a, b]]}\n\
         sim: {dt: 0.001, base_position: [0, 0, 1], bodies: [\
         {name: a, shape: {type: box, size: [1, 1, 1]}, mass: 1, position: [0, 0, 0]}, \
         {name: b, shape: {type: sphere, radius: 1}, mass: 1, position: [0, 0, 0]}, \
         {name: c, shape: {type: cylinder, radius: 1, length: 1}, mass: 1, position: [0, 0, 0]}]}\n\
         sensors: {imu: [{name: i, link: l}], force_torque: [{name: f, joint: j}], foot_contact: {feet: [{link: l}]}}\n",
        "x.yaml",
    )
    .unwrap();
    let mut keys = BTreeSet::new();
    key_paths(&serde_yaml_ng::to_value(&config).unwrap(), "", &mut keys);
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let documented = documented_keys(&readme);
    let missing: Vec<_> = keys.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&keys).collect();
    assert!(missing.is_empty(), "keys missing from README's configuration reference: {missing:?}");
    assert!(unknown.is_empty(), "README documents keys the configuration does not have: {unknown:?}");
}

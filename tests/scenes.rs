//! The scene library (src/scenes) builds what the benches, the timing examples and
//! `signorini bench` measure: the detection scenes find the contacts of the table in
//! docs/BENCHMARKS.md, every scenario of the suite builds, and the benchmark problems
//! assemble.

use signorini::scenes::{Sources, detection, problems, suite};

#[test]
fn the_detection_scenes_find_the_contacts_of_the_benchmark_table() {
    let found: Vec<(&str, usize, usize)> = detection::all(&Sources::repository())
        .unwrap()
        .into_iter()
        .map(|mut s| {
            let contacts = s.step();
            (s.name, s.world.objects().len(), contacts)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("quadruped standing", 18, 4),
            ("solo12 standing (convex hulls)", 18, 4),
            ("solo12 standing on a 3200-triangle mesh floor", 18, 4),
            ("talos lying on the ground", 53, 1),
            ("100 boxes on a plane", 101, 400),
        ]
    );
}

#[test]
fn every_scenario_of_the_suite_builds() {
    let sources = Sources::repository();
    for scenario in suite::ALL {
        let scene = scenario.build(&sources).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        assert!(scene.world.is_finite(), "{}", scenario.name);
        assert_eq!(suite::by_name(scenario.name).map(|s| s.name), Some(scenario.name));
    }
}

#[test]
fn the_benchmark_problems_assemble() {
    let problems = problems::benchmark_problems(&Sources::repository()).unwrap();
    let sizes: Vec<(&str, usize)> = problems.iter().map(|(key, p)| (key.as_str(), p.problem.contacts())).collect();
    assert_eq!(sizes.len(), 7);
    assert_eq!(sizes[6], ("cube_wall_15", 101));
}

//! `signorini bench` end to end on a few scenarios and solvers: its files, the doc section
//! it rewrites, and the qualitative results of seed 002 that its tables must show (PGS
//! stalls on a 10³ mass ratio, the CCP glides, the pyramid LCP veers, seed 000's ADMM
//! solves the NCP) — measured by the run, checked here.

mod common;

use common::{repo, signorini};

fn run_of<'a>(runs: &'a [serde_json::Value], scenario: &str, solver: &str, model: &str) -> &'a serde_json::Value {
    runs.iter()
        .find(|t| t["scenario"] == scenario && t["variant"]["solver"] == solver && t["variant"]["model"] == model)
        .unwrap_or_else(|| panic!("no run of {scenario} with {solver} {model}"))
}

fn outcome(run: &serde_json::Value, prefix: &str) -> f64 {
    run["outcomes"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["name"].as_str().is_some_and(|n| n.starts_with(prefix))))
        .and_then(|o| o["value"].as_f64())
        .unwrap_or(f64::NAN)
}

#[test]
fn bench_writes_its_results_and_shows_the_known_results() {
    let dir = signorini::scratch::private_dir("signorini-bench").unwrap();
    let out = dir.join("bench");
    let doc = dir.join("BENCHMARKS.md");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&doc, "# Benchmarks\n\n<!-- solvers:begin -->\nold\n<!-- solvers:end -->\n\n## kept\n").unwrap();
    let (code, stdout, stderr) = signorini(&[
        "bench",
        "--scenarios",
        "slide,stack-1e3",
        "--solvers",
        "admm,pgs:ncp,lcp",
        "--tolerances",
        "1e-6",
        "--out",
        out.to_str().unwrap(),
        "--doc",
        doc.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("8 runs"), "{stdout}");

    // The figures are PNG files.
    for png in ["convergence.png", "work_precision.png", "profiles.png"] {
        let bytes = std::fs::read(out.join(png)).unwrap();
        assert!(bytes.len() > 1000 && bytes.starts_with(b"\x89PNG"), "{png}");
    }
    // The doc's section is replaced, the rest kept, the figures linked relative to it.
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(
        text.starts_with("# Benchmarks\n\n<!-- solvers:begin -->\n")
            && text.ends_with("<!-- solvers:end -->\n\n## kept\n")
    );
    assert!(!text.contains("\nold\n") && text.contains("](bench/convergence.png)"), "{text}");
    assert!(std::fs::read_to_string(out.join("results.md")).unwrap().contains("## stack-1e3"));

    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let runs = results["trajectories"].as_array().unwrap();
    assert_eq!(runs.len(), 8);
    // The slide: the NCP keeps the heading and the ground, stops at u/(μg); the CCP is
    // thrown up; the pyramid veers.
    let ncp = run_of(runs, "slide", "admm", "ncp");
    assert!(outcome(ncp, "heading") < 1e-4 && outcome(ncp, "largest gap") < 1e-3, "{ncp}");
    assert!((outcome(ncp, "stop time") - 1.0 / (0.5 * 9.81)).abs() <= 1.5e-3, "{ncp}");
    assert!(outcome(run_of(runs, "slide", "admm", "ccp"), "largest gap") > 1.0);
    assert!(outcome(run_of(runs, "slide", "lcp", "lcp"), "heading") > 5.0);
    // The stack: PGS misses the tolerance on every step, the ADMM on none.
    let (pgs, admm) = (run_of(runs, "stack-1e3", "pgs", "ncp"), run_of(runs, "stack-1e3", "admm", "ncp"));
    assert!(pgs["not_converged"].as_u64().unwrap() > 100 && admm["not_converged"] == 0, "{pgs}\n{admm}");
    assert!(pgs["eps_abs"].as_f64().unwrap() > 1e3 * admm["eps_abs"].as_f64().unwrap());
    // The drift is measured against the reference run (the ADMM's own is 0).
    assert_eq!(admm["drift"], 0.0);
    assert!(pgs["drift"].as_f64().unwrap() > 0.0);
    // Convergence curves: two problems per scenario, one curve per solver variant.
    assert_eq!(results["curves"].as_array().unwrap().len(), 2 * 2 * 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The problems kept for the convergence curves carry G whatever their size: the
/// simulator solves the 15-cube wall's island (101 contacts, beyond the dense limit) by W
/// alone, and PGS, which needs G, then stopped the whole bench ("the pgs solver needs G").
#[test]
fn bench_curves_a_problem_the_simulator_solved_without_g() {
    let dir = signorini::scratch::private_dir("signorini-bench-wall").unwrap();
    let out = dir.join("bench");
    let (code, stdout, stderr) = signorini(&[
        "bench",
        "--scenarios",
        "cube-wall",
        "--solvers",
        "pgs:ncp",
        "--tolerances",
        "1e-4",
        "--duration-scale",
        "0.05",
        "--no-doc",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["curves"].as_array().unwrap().len(), 2, "{}", results["curves"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_refuses_unknown_names_by_option() {
    let (code, _, err) = signorini(&["bench", "--scenarios", "slide,nowhere", "--no-doc", "--out", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("--scenarios: unknown scenario `nowhere`"), "{err}");
    let (code, _, err) = signorini(&["bench", "--solvers", "sap:ncp", "--no-doc", "--out", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("`sap` has one model"), "{err}");
    assert!(repo("urdf/quadruped.urdf").is_file());
}

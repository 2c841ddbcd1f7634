//! Detection time per step on the scenes of `signorini::scenes::detection` (median of
//! batches, as examples/dynamics_timing.rs), printed as a markdown table; with --write
//! the table replaces the collision section of docs/BENCHMARKS.md.
//!
//!   cargo run --release --example collision_timing [-- --write]

use std::hint::black_box;

use signorini::scenes::{Sources, detection};

mod common;

fn main() -> std::io::Result<()> {
    let write = std::env::args().any(|a| a == "--write");
    let mut rows = vec![
        "| scene | shapes | contacts | µs per step (median) | target |".to_owned(),
        "|---|---:|---:|---:|---|".to_owned(),
    ];
    for mut s in detection::all(&Sources::repository()).expect("the scenes build") {
        let contacts = s.step();
        let t = common::median_us(
            |_| {
                black_box(s.step());
            },
            31,
        );
        let target = match s.name {
            "solo12 standing (convex hulls)" => "≤ 3 µs",
            n if n.starts_with("talos") => "≤ 30 µs",
            _ => "",
        };
        rows.push(format!("| {} | {} | {contacts} | {t:.2} | {target} |", s.name, s.world.objects().len()));
    }
    let table = format!(
        "Detection per step: robot shapes moved to the joint placements, then every contact within the 5 mm margin \
         (forward kinematics excluded). Median of 31 batches, measured {}.\n\n{}\n\nCommand: `cargo run --release --example collision_timing -- --write` (criterion: `cargo bench --bench collision`)",
        std::process::Command::new("date")
            .arg("+%F")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default(),
        rows.join("\n")
    );
    println!("{table}");
    if write {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/BENCHMARKS.md");
        let doc = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".into());
        let (begin, end) = ("<!-- collision:begin -->", "<!-- collision:end -->");
        let block = format!("{begin}\n{table}\n{end}");
        let doc = match (doc.find(begin), doc.find(end)) {
            (Some(a), Some(b)) => format!("{}{}{}", &doc[..a], block, &doc[b + end.len()..]),
            _ => format!("{doc}\n## Contact detection\n\n{block}\n"),
        };
        std::fs::write(&path, doc)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

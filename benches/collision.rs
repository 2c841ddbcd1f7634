//! Criterion benches of contact detection per step (robot placement update + detection;
//! forward kinematics excluded) on the scenes of `signorini::scenes::detection`.
//!
//!   cargo bench --features bench --bench collision        (make bench)

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use signorini::scenes::{self, Sources};

fn detection(c: &mut Criterion) {
    let mut g = c.benchmark_group("detection");
    for mut scene in scenes::detection::all(&Sources::repository()).expect("the scenes build") {
        let contacts = scene.step();
        g.bench_function(format!("{} ({contacts} contacts)", scene.name), |b| b.iter(|| black_box(scene.step())));
    }
    g.finish();
}

criterion_group!(benches, detection);
criterion_main!(benches);

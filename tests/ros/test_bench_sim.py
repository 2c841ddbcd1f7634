"""The dynamic suite of scripts/bench_sim.py (issue 28) in its smoke mode: every scene, one
round of 300 steps in both simulators (the drops and the pile land at about 0.25 s, so
every scene has contacts). It checks what the suite reports, not how fast: the table has a
row per scene with every column, both simulators ran every step, no body went through the
ground, and signorini's rigid contacts stayed within 1 mm (the full suite's deepest is
5.8e-4 m, talos falling: docs/BENCHMARKS.md, "Simulation in motion").

Run: scripts/with_ros.sh python -m pytest tests/ros/test_bench_sim.py -q
(the script builds `--example sim_dynamic` if it is not built; CARGO_TARGET_DIR honoured).
"""

import json
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import dynamic_scenes  # noqa: E402

STEPS = 300
SCENES = [*dynamic_scenes.SCENES, "pile100_whole"]


def test_the_dynamic_suite_reports_every_scene_and_its_trajectory_checks(tmp_path):
    out = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_sim.py"), "--part", "dynamic",
                          "--rounds", "1", "--steps", str(STEPS), "--json", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = [line for line in run.stdout.splitlines() if line.startswith("| ")]
    header, body = rows[0], rows[1:]
    columns = header.count("|") - 1
    assert columns == 11 and "ε_abs" in header and "unconverged" in header, header
    assert len(body) == len(SCENES), "\n".join(rows)
    assert all(r.count("|") - 1 == columns for r in body), "\n".join(rows)
    figures = json.loads(out.read_text())
    assert list(figures) == SCENES
    for key, f in figures.items():
        story = f"{key}: {f}"
        assert f["steps"] == STEPS and not f["tunnelled"], story
        assert f["lowest"] > -0.05 and f["mujoco_lowest"] > -0.05, story
        assert 0.0 <= f["penetration"] < 1e-3, story
        assert f["contact_steps"] > 0 and f["mujoco_contacts"] > 0, story
        assert f["us"] > 0 and f["mujoco_us"] > 0 and f["ratio"] > 0 and f["ratio_best"] > 0, story
        assert f["iterations_max"] >= f["iterations_mean"] >= 0, story
        assert f["polished"] <= f["contact_steps"], story
        assert f["eps_max"] >= f["eps_median"] >= 0, story

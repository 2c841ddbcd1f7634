"""The cable of scripts/cable.py (issue 28, item 2) in its smoke mode: the shortest cable
(30 beads) dragged 100 steps (0.1 s) in MuJoCo and in signorini (`--example sim_dynamic
--urdf`) as scripts/bench_scale.py --part cable runs it. It checks the run is sane, not how
fast: MuJoCo compiles the URDF to the chain the generator describes (2N + 1 dofs, its
masses), both runs did every step with finite states, the beads lay on the ground (their
lowest centre within 2 mm of the radius: not through it, not thrown up), signorini's rigid
contacts had every bead within its margin and penetrated less than 3e-7 m (4.5e-8 m in these 100 steps; the bench: 4.8e-8 m on this cable over 1000, 1.6e-7 m on 300 beads), and the sled
travelled the commanded 0.03 m up to its PD's lag (kd·v/kp = 6 mm plus friction/kp).

Run: scripts/with_ros.sh python -m pytest tests/ros/test_cable.py -q
(builds `--example sim_dynamic` if it is not built; CARGO_TARGET_DIR honoured).
"""

import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import bench_scale  # noqa: E402
import cable  # noqa: E402

BEADS, STEPS = 30, 100


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    subprocess.run(["cargo", "build", "--release", "--example", "sim_dynamic"], cwd=ROOT, check=True,
                   capture_output=True, timeout=900)
    work = tmp_path_factory.mktemp("cable")
    return {"mujoco": bench_scale.run_cable_mujoco(BEADS, STEPS, 20.0),
            "signorini": bench_scale.run_cable_ours(BEADS, STEPS, 20.0, work, "admm")}


def test_mujoco_compiles_the_chain_the_generator_describes():
    model = cable.MujocoCable(BEADS, cable.drive(BEADS, STEPS)).model
    assert model.nv == 2 * BEADS + 1
    moving = model.body_mass.sum()
    assert moving == pytest.approx(cable.SLED_MASS + BEADS * (cable.BEAD_MASS + cable.KNUCKLE_MASS), rel=1e-9)


@pytest.mark.parametrize("who", ["mujoco", "signorini"])
def test_the_cable_is_dragged_over_the_ground(runs, who):
    r = runs[who]
    story = f"{who}: { {k: v for k, v in r.items() if not k.startswith('step_')} }"
    assert r["steps"] == STEPS and r["finite"], story
    assert abs(r["lowest"] - cable.RADIUS) < 2e-3, story
    assert r["contacts_mean"] > 0, story
    commanded = cable.SPEED * STEPS * cable.DT
    assert commanded - 0.01 < r["drag"] < commanded + 1e-3, story


def test_signorini_holds_every_bead_on_the_ground_rigidly(runs):
    r = runs["signorini"]
    assert r["contacts_mean"] == BEADS and r["penetration"] < 3e-7, r
    assert r["unconverged"] == 0 and r["fallbacks"] == 0, r
    assert abs(r["drag"] - runs["mujoco"]["drag"]) < 2e-3, (r["drag"], runs["mujoco"]["drag"])

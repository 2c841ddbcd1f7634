"""Fixtures of the Python package's tests (tests/python): the repository, the robots of
example-robot-data (real test data no one here wrote) and of this repository.

The package is the one `make python` built into the venv (maturin develop); with
SIGNORINI_PYTHON_PATH set (a worktree), that folder is imported instead.
"""

import os
import pathlib
import site
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if os.environ.get("SIGNORINI_PYTHON_PATH"):
    sys.path.insert(0, os.environ["SIGNORINI_PYTHON_PATH"])


def erd_share() -> pathlib.Path:
    for d in site.getsitepackages():
        share = pathlib.Path(d) / "cmeel.prefix" / "share"
        if (share / "example-robot-data").is_dir():
            return share
    pytest.fail("example-robot-data is not installed (scripts/requirements-test.txt)")


# name -> (URDF path, floating base, package dirs)
def robots():
    share = erd_share()
    erd = share / "example-robot-data" / "robots"
    return {
        "ur5": (erd / "ur_description/urdf/ur5_robot.urdf", False),
        "panda": (erd / "panda_description/urdf/panda.urdf", False),
        "solo12": (erd / "solo_description/robots/solo12.urdf", True),
        "talos": (erd / "talos_data/robots/talos_reduced.urdf", True),
        "quadruped": (ROOT / "urdf/quadruped.urdf", True),
        "arm7": (ROOT / "urdf/arm7.urdf", False),
    }


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def share():
    return erd_share()

"""Every launch file in launch/, loaded without ROS 2's launch packages (this machine has no
`launch`, `launch_ros` or `ament_index_python`): small fakes of those record what a file
declares and starts, and the checks are on that record. For each packaged robot and each
setup: the package, the executable, the node names, the clock, and the configuration each
node gets (an existing file under config/, with the mode of the node's role and a URDF
that resolves).
"""

import importlib.util
import py_compile
import re
import sys
import tomllib
import types
import xml.etree.ElementTree as ET
from collections import namedtuple
from pathlib import Path

import pytest

try:
    import yaml
except ImportError:
    yaml = None

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = ROOT / "launch"
CONFIG = ROOT / "config"
LAUNCH_FILES = sorted(p.name for p in LAUNCH.glob("*.launch.py"))
CARGO = tomllib.loads((ROOT / "Cargo.toml").read_text())
PACKAGE = ET.parse(ROOT / "package.xml").getroot().findtext("name")
# `ros2 run`/launch start the binary cargo builds by default.
EXECUTABLE = CARGO["package"].get("default-run", CARGO["package"]["name"])


# --- Fakes: each records its arguments; only what the launch files use. -------------------


class LaunchDescription:
    def __init__(self, entities):
        self.entities = list(entities)


class DeclareLaunchArgument:
    # Keyword names as launch's, so that a misspelled one fails here as it would there.
    def __init__(self, name, default_value=None, description=None):
        self.name, self.default_value, self.description = name, default_value, description


class LaunchConfiguration:
    def __init__(self, name):
        self.name = name

    def perform(self, context):
        # An undeclared argument is a KeyError, as it is an error in launch.
        return context[self.name]


class OpaqueFunction:
    def __init__(self, function):
        self.function = function


class Node:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


def get_package_share_directory(package):
    # The source tree has the layout install_to_share gives share/signorini.
    if package != PACKAGE:
        raise LookupError(f"no package {package!r}")
    return str(ROOT)


FAKE_MODULES = {
    "launch": {"LaunchDescription": LaunchDescription},
    "launch.actions": {"DeclareLaunchArgument": DeclareLaunchArgument, "OpaqueFunction": OpaqueFunction},
    "launch.substitutions": {"LaunchConfiguration": LaunchConfiguration},
    "launch_ros": {},
    "launch_ros.actions": {"Node": Node},
    "ament_index_python": {},
    "ament_index_python.packages": {"get_package_share_directory": get_package_share_directory},
}


@pytest.fixture
def launch(monkeypatch):
    """`launch(file, arguments)` -> (declared arguments, nodes started), with the fakes in
    sys.modules for this test only."""
    for name, attributes in FAKE_MODULES.items():
        module = types.ModuleType(name)
        vars(module).update(attributes)
        monkeypatch.setitem(sys.modules, name, module)
    # Loading must not leave launch/__pycache__ behind (it would be installed to share).
    monkeypatch.setattr(sys, "dont_write_bytecode", True)

    def run(file_name, arguments):
        path = LAUNCH / file_name
        spec = importlib.util.spec_from_file_location(path.name.removesuffix(".launch.py") + "_launch", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        description = module.generate_launch_description()

        declared = [e for e in description.entities if isinstance(e, DeclareLaunchArgument)]
        context = {a.name: a.default_value for a in declared}
        assert set(arguments) <= set(context), f"{file_name} does not declare {set(arguments) - set(context)}"
        context.update(arguments)

        nodes = [e for e in description.entities if isinstance(e, Node)]
        for entity in description.entities:
            if isinstance(entity, OpaqueFunction):
                nodes += entity.function(context)
        assert all(isinstance(n, Node) for n in nodes)
        return declared, nodes

    return run


# --- What each launch file must start. ----------------------------------------------------

Expected = namedtuple("Expected", "name mode use_sim_time config")


def sim(config):
    return Expected("signorini", "sim", False, config)


def controller(config, use_sim_time):
    return Expected("signorini_controller", "control", use_sim_time, config)


def sim_control(config):
    return Expected("signorini", "sim+control", False, config)


SIMULATED = ["quadruped", "arm7", "cube", "diff_drive"]
CONTROLLED = ["quadruped", "arm7"]

# (launch file, arguments given, the nodes it must start)
CASES = [
    ("sim.launch.py", {}, [sim("quadruped.yaml")]),
    *[("sim.launch.py", {"robot": r}, [sim(f"{r}.yaml")]) for r in SIMULATED],
    ("sim.launch.py", {"robot": "quadruped", "config": str(CONFIG / "arm7.yaml")}, [sim("arm7.yaml")]),
    ("controller.launch.py", {}, [controller("quadruped_control.yaml", False)]),
    *[("controller.launch.py", {"robot": r}, [controller(f"{r}_control.yaml", False)]) for r in CONTROLLED],
    ("controller.launch.py", {"robot": "arm7", "use_sim_time": "true"}, [controller("arm7_control.yaml", True)]),
    ("controller.launch.py", {"robot": "quadruped", "config": str(CONFIG / "arm7_control.yaml")},
     [controller("arm7_control.yaml", False)]),
    ("sim_and_controller.launch.py", {}, [sim("quadruped.yaml"), controller("quadruped_control.yaml", True)]),
    *[("sim_and_controller.launch.py", {"robot": r, "one_process": "false"},
       [sim(f"{r}.yaml"), controller(f"{r}_control.yaml", True)]) for r in CONTROLLED],
    *[("sim_and_controller.launch.py", {"robot": r, "one_process": "true"}, [sim_control(f"{r}_sim_control.yaml")])
      for r in CONTROLLED],
    ("sim_and_controller.launch.py",
     {"robot": "quadruped", "sim_config": str(CONFIG / "arm7.yaml"),
      "controller_config": str(CONFIG / "arm7_control.yaml")},
     [sim("arm7.yaml"), controller("arm7_control.yaml", True)]),
    ("sim_and_controller.launch.py",
     {"robot": "quadruped", "one_process": "true", "sim_config": str(CONFIG / "arm7_sim_control.yaml")},
     [sim_control("arm7_sim_control.yaml")]),
]


def case_id(case):
    file_name, arguments, _ = case
    given = ",".join(f"{k}={Path(v).name}" for k, v in arguments.items()) or "defaults"
    return f"{file_name}[{given}]"


def read_config(path, use_yaml=yaml is not None):
    """(mode, robot.urdf) of a configuration file."""
    text = path.read_text()
    if use_yaml:
        data = yaml.safe_load(text)
        return data.get("mode"), data.get("robot", {}).get("urdf")
    # Without PyYAML: the top-level `mode:` line and the indented `urdf:` line of the block
    # under `robot:` (up to the next top-level key; `robot: {}` has none).
    mode = re.search(r"^mode:\s*(\S+)", text, re.M)
    block = re.search(r"^robot:[ \t]*\n((?:(?:[ \t]+.*|[ \t]*#.*|[ \t]*)\n)*)", text, re.M)
    urdf = block and re.search(r"^[ \t]+urdf:\s*(\S+)", block.group(1), re.M)
    return mode and mode.group(1), urdf and urdf.group(1)


# --- Tests. -------------------------------------------------------------------------------


def test_every_launch_file_has_cases():
    assert LAUNCH_FILES, "no launch files"
    assert set(LAUNCH_FILES) == {file_name for file_name, _, _ in CASES}


@pytest.mark.parametrize("file_name, arguments, expected", CASES, ids=[case_id(c) for c in CASES])
def test_nodes(launch, file_name, arguments, expected):
    _, nodes = launch(file_name, arguments)
    assert [n.kwargs.get("name") for n in nodes] == [e.name for e in expected]
    for node, want in zip(nodes, expected):
        kwargs = node.kwargs
        assert kwargs["package"] == PACKAGE
        assert kwargs["executable"] == EXECUTABLE
        assert kwargs["arguments"] == ["node"]
        assert kwargs.get("output") == "screen"
        parameters = {k: v for entry in kwargs["parameters"] for k, v in entry.items()}
        # A bool: the string "true" would be a string parameter, which use_sim_time rejects.
        assert parameters["use_sim_time"] is want.use_sim_time, want.name

        config = Path(parameters["config_file"])
        assert config.is_file(), config
        assert config.resolve().parent == CONFIG.resolve(), config
        assert config.name == want.config
        mode, urdf = read_config(config)
        assert mode == want.mode, f"{config.name} runs mode {mode}, {want.name} needs {want.mode}"
        # The node resolves robot.urdf relative to the configuration file.
        assert urdf and (config.parent / urdf).is_file(), f"{config.name}: urdf {urdf}"


@pytest.mark.parametrize("file_name", LAUNCH_FILES)
def test_arguments_are_described_and_optional(launch, file_name):
    declared, _ = launch(file_name, {})
    assert declared
    for argument in declared:
        assert argument.description, f"{file_name}: {argument.name} has no description"
        assert isinstance(argument.default_value, str), f"{file_name}: {argument.name} has no default"


@pytest.mark.parametrize("file_name", LAUNCH_FILES)
def test_compiles(file_name, tmp_path):
    py_compile.compile(str(LAUNCH / file_name), cfile=str(tmp_path / "launch.pyc"), doraise=True)


def test_launch_config_and_urdf_are_installed():
    assert {"launch", "config", "urdf"} <= set(CARGO["package"]["metadata"]["ros"]["install_to_share"])


@pytest.mark.skipif(yaml is None, reason="PyYAML is not installed")
@pytest.mark.parametrize("config", sorted(p.name for p in CONFIG.glob("*.yaml")))
def test_config_regex_reads_as_yaml(config):
    # Keeps the fallback reader honest for machines without PyYAML.
    assert read_config(CONFIG / config, use_yaml=False) == read_config(CONFIG / config, use_yaml=True)

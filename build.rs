//! Link settings for the ROS 2 feature when ROS 2 comes from the PyPI wheels.
//!
//! The wheels' `librcl.so` depends on libraries that use CPython symbols, and their
//! libraries live in `<prefix>/lib` and `<prefix>/lib/pythonX.Y/site-packages/ros_*.libs`.
//! So every linked artifact (binary and test executables) gets libpython linked in and an
//! RPATH (not RUNPATH, which does not reach the libraries' own dependencies) to those
//! directories: the binary then runs without LD_LIBRARY_PATH. A ROS 2 from apt needs none
//! of this and gets nothing.
//!
//! It also tells whether r2r has tf2_msgs bindings, as r2r decides it: the ament index of
//! a prefix in AMENT_PREFIX_PATH or CMAKE_PREFIX_PATH lists tf2_msgs, and IDL_PACKAGE_FILTER
//! (if set) names it. `cfg(signorini_tf2_msgs)` then compiles the node's /tf publisher. The
//! ROS 2 wheels have no tf2_msgs (scripts/ros_env.sh generates it); without it the crate
//! still builds and the node says /tf is off. The same for simulation_interfaces
//! (`cfg(signorini_simulation_interfaces)`: the standard simulator services). Like r2r's,
//! this answer is recomputed only
//! when those variables change: tf2_msgs installed into an already built prefix needs
//! `cargo clean -p r2r -p signorini` (scripts/ros_env.sh installs it before any build).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=AMENT_PREFIX_PATH");
    println!("cargo:rerun-if-env-changed=CMAKE_PREFIX_PATH");
    println!("cargo:rerun-if-env-changed=IDL_PACKAGE_FILTER");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(signorini_tf2_msgs)");
    println!("cargo::rustc-check-cfg=cfg(signorini_simulation_interfaces)");
    if std::env::var_os("CARGO_FEATURE_ROS").is_none() {
        return;
    }
    let Some(prefixes) = std::env::var_os("AMENT_PREFIX_PATH") else {
        return; // r2r's own build script reports the missing ROS 2 environment.
    };
    if r2r_generates("tf2_msgs") {
        println!("cargo::rustc-cfg=signorini_tf2_msgs");
    }
    if r2r_generates("simulation_interfaces") {
        println!("cargo::rustc-cfg=signorini_simulation_interfaces");
    }
    for prefix in std::env::split_paths(&prefixes) {
        if let Some((python, lib_dirs)) = wheel_layout(&prefix) {
            println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
            println!("cargo:rustc-link-arg=-l{python}");
            println!("cargo:rustc-link-arg=-Wl,--as-needed");
            println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags");
            for dir in lib_dirs {
                println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
            }
        }
    }
}

/// Whether r2r generates bindings for the interface package `package`: an ament index in
/// AMENT_PREFIX_PATH or CMAKE_PREFIX_PATH lists it (r2r's own search), and
/// IDL_PACKAGE_FILTER, when set, names it.
fn r2r_generates(package: &str) -> bool {
    if let Ok(filter) = std::env::var("IDL_PACKAGE_FILTER")
        && !filter.split(';').any(|p| p == package)
    {
        return false;
    }
    ["AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH"]
        .into_iter()
        .filter_map(std::env::var_os)
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .any(|prefix| prefix.join("share/ament_index/resource_index/rosidl_interfaces").join(package).is_file())
}

/// For a wheel-installed prefix: the libpython to link (`python3.11`) and the library
/// directories to put in the RPATH. `None` for any other kind of ROS 2 install.
fn wheel_layout(prefix: &Path) -> Option<(String, Vec<PathBuf>)> {
    let lib = prefix.join("lib");
    for entry in std::fs::read_dir(&lib).ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("python3") {
            continue;
        }
        let site = entry.path().join("site-packages");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&site)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                n.starts_with("ros_") && n.ends_with(".libs") && p.is_dir()
            })
            .collect();
        if dirs.is_empty() {
            continue;
        }
        dirs.sort();
        dirs.insert(0, lib.clone());
        return Some((name, dirs));
    }
    None
}

//! Link settings for the ROS 2 feature when ROS 2 comes from the PyPI wheels.
//!
//! The wheels' `librcl.so` depends on libraries that use CPython symbols, and their
//! libraries live in `<prefix>/lib` and `<prefix>/lib/pythonX.Y/site-packages/ros_*.libs`.
//! So every linked artifact (binary and test executables) gets libpython linked in and an
//! RPATH (not RUNPATH, which does not reach the libraries' own dependencies) to those
//! directories: the binary then runs without LD_LIBRARY_PATH. A ROS 2 from apt needs none
//! of this and gets nothing.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=AMENT_PREFIX_PATH");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_ROS").is_none() {
        return;
    }
    let Some(prefixes) = std::env::var_os("AMENT_PREFIX_PATH") else {
        return; // r2r's own build script reports the missing ROS 2 environment.
    };
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

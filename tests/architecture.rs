//! The layering of ARCHITECTURE.md, checked from the source: every module imports only
//! the layers below its own (so there is no import cycle either), and no function is over
//! 100 lines.
//!
//! spatial ← model ← dynamics ← collision ← contact ← sim, control ← runtime ← config ←
//! app ← bag, ros ← bench ← cli ← bin. `scenes` (the scene library of tests, benches and
//! `signorini bench`) sits with runtime: it builds worlds, it never runs a loop.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer; a module may import strictly lower
/// layers only (same-layer modules are independent of each other).
const LAYERS: &[(&str, u32)] = &[
    ("sampling", 0),
    ("scratch", 0),
    ("spatial", 0),
    ("model", 1),
    ("dynamics", 2),
    ("collision", 3),
    ("contact", 4),
    ("sim", 5),
    ("control", 5),
    ("runtime", 6),
    ("scenes", 6),
    ("config", 7),
    ("app", 8),
    ("bag", 9),
    ("ros", 9),
    ("bench", 10),
    ("cli", 11),
    ("bin", 12),
];

/// The longest function allowed in `src/` (lines from its signature to its closing brace).
const MAX_FUNCTION_LINES: usize = 100;

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    (root, files)
}

/// The top-level module a file of `src/` belongs to (`lib.rs`: none).
fn module_of(root: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(m) => Some(m.to_owned()),
        None => Some(first.to_owned()),
    }
}

/// The top-level modules a line of code names through `crate::` (or `signorini::` in
/// the binary); comments are not code.
fn imports(line: &str, prefix: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices(prefix)
        .filter(|(i, _)| !code[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .filter_map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let (root, files) = src();
    let mut violations = BTreeSet::new();
    for file in &files {
        let Some(module) = module_of(&root, file) else { continue };
        let own = layer(&module).unwrap_or_else(|| panic!("src/{module} is not in LAYERS: place it in the layering"));
        let prefix = if module == "bin" { "signorini::" } else { "crate::" };
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        for (n, line) in text.lines().enumerate() {
            for imported in imports(line, prefix) {
                if imported == module {
                    continue;
                }
                let Some(theirs) = layer(&imported) else { continue };
                if theirs >= own {
                    let rel = file.strip_prefix(&root).unwrap_or(file).display().to_string();
                    violations.insert(format!(
                        "src/{rel}:{}: {module} (layer {own}) imports {imported} (layer {theirs})",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "imports against the layering:\n{}", Vec::from_iter(violations).join("\n"));
}

/// Lines of the function whose signature is line `start` (rustfmt's layout: the closing
/// brace at the signature's indentation).
fn function_length(lines: &[&str], start: usize, indent: &str) -> usize {
    if lines[start].trim_end().ends_with('}') || lines[start].trim_end().ends_with(';') {
        return 1;
    }
    let close = format!("{indent}}}");
    for (k, line) in lines.iter().enumerate().skip(start + 1) {
        if *line == close {
            return k - start + 1;
        }
        // A declaration without a body (a trait method).
        if line.starts_with(indent) && !line[indent.len()..].starts_with(' ') && line.trim_end().ends_with(';') {
            return k - start + 1;
        }
    }
    lines.len() - start
}

#[test]
fn no_function_is_over_100_lines() {
    let (root, files) = src();
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let body = line.trim_start();
            let indent = &line[..line.len() - body.len()];
            let signature = body
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("const ")
                .trim_start_matches("async ")
                .trim_start_matches("unsafe ");
            if !signature.starts_with("fn ") {
                continue;
            }
            let length = function_length(&lines, n, indent);
            if length > MAX_FUNCTION_LINES {
                let rel = file.strip_prefix(&root).unwrap_or(file).display().to_string();
                long.push(format!("src/{rel}:{}: {} lines: {}", n + 1, length, signature.trim_end_matches(" {")));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into named stages):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_checks_see_imports_and_functions() {
    assert_eq!(imports("use crate::sim::{World, Stepper};", "crate::"), ["sim"]);
    assert_eq!(imports("let x = crate::config::NODE_NAME; // crate::app", "crate::"), ["config"]);
    assert!(imports("/// see [`crate::dynamics::rnea`]", "crate::").is_empty());
    assert!(imports("use mycrate::sim;", "crate::").is_empty());
    let f = ["fn f() {", "    let x = 1;", "}", "fn g() {}"];
    assert_eq!(function_length(&f, 0, ""), 3);
    assert_eq!(function_length(&f, 3, ""), 1);
    assert_eq!(layer("app"), Some(8));
}

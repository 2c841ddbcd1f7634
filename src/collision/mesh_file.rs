//! A mesh file checked before a loader sees it: its format by extension, its size, and for
//! COLLADA the content the mesh-loader crate trusts.
//!
//! mesh-loader 0.1.13 (read in its source, `src/collada/`) reserves memory for the counts a
//! file announces before reading what follows them (`count="4294967295"` on a
//! `<float_array>`: 16 GiB), spins forever on a `<Name_array>` or `<IDREF_array>` with
//! content in a geometry source (its token loop never advances), and recurses once per
//! polygon of fewer than 3 vertices in a `<polylist>` (a long run of them overflows the
//! stack). None of these is a panic that `catch_unwind` could stop, so they are refused
//! here, from the file's actual content, with a one-line reason.

use std::io::Read;
use std::path::Path;

/// The largest mesh file read: 64 MiB (example-robot-data's largest, go1's trunk.dae, is
/// 29 MB).
pub const MAX_MESH_BYTES: u64 = 64 << 20;

/// A mesh file format, by extension (any case).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    /// `.stl`, binary or ASCII.
    Stl,
    /// `.obj` (Wavefront).
    Obj,
    /// `.dae` (COLLADA).
    Collada,
}

impl MeshFormat {
    /// The format of `path`'s extension, if one of these.
    pub fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "stl" => Some(Self::Stl),
            "obj" => Some(Self::Obj),
            "dae" => Some(Self::Collada),
            _ => None,
        }
    }
}

/// The bytes of a regular file of at most [`MAX_MESH_BYTES`] (read through a bound, so a
/// file that grows while read cannot exceed it either).
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    let too_big = || format!("larger than {} MiB", MAX_MESH_BYTES >> 20);
    if meta.len() > MAX_MESH_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    file.take(MAX_MESH_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_MESH_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Whitespace-separated tokens of an element's own text.
fn tokens(node: roxmltree::Node) -> usize {
    node.text().map_or(0, |t| t.split_ascii_whitespace().count())
}

/// `<element count="n">` as a number (None when absent or not a u32: the loader refuses
/// it before reserving anything).
fn count(node: roxmltree::Node) -> Option<u64> {
    node.attribute("count")?.trim().parse::<u32>().ok().map(u64::from)
}

/// Where `node` starts, as "line L".
fn line(node: roxmltree::Node) -> String {
    format!("line {}", node.document().text_pos_at(node.range().start).row)
}

/// The COLLADA text of `bytes` is safe to hand to mesh-loader: UTF-8 XML whose geometry
/// library announces no more values than it holds, holds only numeric sources, and has no
/// polygon of fewer than 3 vertices.
pub fn check_collada(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc = roxmltree::Document::parse(text).map_err(|e| format!("not valid XML: {e}"))?;
    let geometries = doc.root_element().children().filter(|n| n.has_tag_name("library_geometries"));
    for node in geometries.flat_map(|g| g.descendants()).filter(|n| n.is_element()) {
        match node.tag_name().name() {
            name @ ("Name_array" | "IDREF_array") if tokens(node) > 0 => {
                return Err(format!(
                    "<{name}> with content in a geometry ({}): only <float_array> sources are read",
                    line(node)
                ));
            }
            name @ ("float_array" | "Name_array" | "IDREF_array") => {
                let (announced, held) = (count(node).unwrap_or(0), tokens(node) as u64);
                if announced > held {
                    return Err(format!("<{name}> ({}) announces {announced} values but holds {held}", line(node)));
                }
            }
            name @ ("lines" | "linestrips" | "polygons" | "polylist" | "triangles" | "trifans" | "tristrips") => {
                check_primitive(node, name)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A primitive's `count` and the index count it implies against its `<vcount>` and `<p>`
/// (mesh-loader reserves `count` polygons and `count`·3·stride indices of a `<triangles>`).
fn check_primitive(node: roxmltree::Node, name: &str) -> Result<(), String> {
    let children = || node.children().filter(|n| n.is_element());
    let stride = children()
        .filter(|n| n.has_tag_name("input"))
        .filter_map(|n| n.attribute("offset").unwrap_or("0").trim().parse::<u32>().ok())
        .map(|o| u64::from(o) + 1)
        .max()
        .unwrap_or(0);
    let indices: u64 = children().filter(|n| n.has_tag_name("p")).map(|n| tokens(n) as u64).sum();
    let vcounts: Vec<u64> = children()
        .filter(|n| n.has_tag_name("vcount"))
        .flat_map(|n| n.text().unwrap_or("").split_ascii_whitespace().filter_map(|t| t.parse::<u32>().ok()))
        .map(u64::from)
        .collect();
    let announced = count(node).unwrap_or(0);
    if announced > indices + vcounts.len() as u64 {
        return Err(format!("<{name}> ({}) announces {announced} primitives but holds {indices} indices", line(node)));
    }
    if name == "polylist" && vcounts.iter().any(|&v| v < 3) {
        return Err(format!("<polylist> ({}) has a polygon of fewer than 3 vertices", line(node)));
    }
    let per_primitive = match name {
        "triangles" => announced.saturating_mul(3),
        "lines" => announced.saturating_mul(2),
        "polylist" => vcounts.iter().sum(),
        _ => 0,
    };
    let implied = per_primitive.saturating_mul(stride);
    if implied > indices {
        return Err(format!("<{name}> ({}) implies {implied} indices but holds {indices}", line(node)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dae(geometry: &str) -> String {
        format!(
            r#"<?xml version="1.0"?><COLLADA version="1.4.1"><library_geometries><geometry id="g"><mesh>{geometry}</mesh></geometry></library_geometries></COLLADA>"#
        )
    }

    #[test]
    fn announced_counts_must_be_held() {
        let ok = dae(r#"<source id="s"><float_array id="a" count="3">1 2 3</float_array></source>"#);
        assert_eq!(check_collada(ok.as_bytes()), Ok(()));
        let huge = dae(r#"<source id="s"><float_array id="a" count="4294967295">1 2 3</float_array></source>"#);
        let e = check_collada(huge.as_bytes()).unwrap_err();
        assert!(e.contains("announces 4294967295 values but holds 3"), "{e}");
        let triangles =
            dae(r#"<triangles count="2"><input semantic="VERTEX" source="v" offset="0"/><p>0 1 2</p></triangles>"#);
        let e = check_collada(triangles.as_bytes()).unwrap_err();
        assert!(e.contains("implies 6 indices but holds 3"), "{e}");
        let offset = dae(
            r#"<triangles count="1"><input semantic="VERTEX" source="v" offset="4000000000"/><p>0 1 2</p></triangles>"#,
        );
        assert!(check_collada(offset.as_bytes()).unwrap_err().contains("implies 12000000003 indices"));
    }

    #[test]
    fn string_sources_with_content_and_degenerate_polygons_are_refused() {
        let names = dae(r#"<source id="s"><Name_array id="n" count="1">joint</Name_array></source>"#);
        assert!(check_collada(names.as_bytes()).unwrap_err().contains("<Name_array> with content"));
        let empty = dae(r#"<source id="s"><IDREF_array id="n" count="0"/></source>"#);
        assert_eq!(check_collada(empty.as_bytes()), Ok(()));
        let small = dae(
            r#"<polylist count="2"><input semantic="VERTEX" source="v" offset="0"/><vcount>1 3</vcount><p>0 0 1 2</p></polylist>"#,
        );
        assert!(check_collada(small.as_bytes()).unwrap_err().contains("fewer than 3 vertices"));
    }

    #[test]
    fn files_over_the_bound_are_not_read() {
        let dir = std::env::temp_dir().join(format!("signorini-mesh-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.stl");
        // Sparse: no 64 MiB written.
        std::fs::File::create(&big).unwrap().set_len(MAX_MESH_BYTES + 1).unwrap();
        assert_eq!(read_bounded(&big), Err("larger than 64 MiB".to_owned()));
        assert_eq!(read_bounded(&dir), Err("not a regular file".to_owned()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn formats_by_extension_in_any_case() {
        assert_eq!(MeshFormat::of(Path::new("a/b.DAE")), Some(MeshFormat::Collada));
        assert_eq!(MeshFormat::of(Path::new("b.Stl")), Some(MeshFormat::Stl));
        assert_eq!(MeshFormat::of(Path::new("b.ply")), None);
        assert_eq!(MeshFormat::of(Path::new("b")), None);
    }
}

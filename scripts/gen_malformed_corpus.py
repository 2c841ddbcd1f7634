#!/usr/bin/env python3
"""Writes tests/fixtures/malformed/: the fuzzer's seed meshes (a unit cube as binary and
ASCII STL, OBJ and COLLADA, and a URDF using one) and a corpus of malformed robots,
configurations and meshes with the text each one's error must contain
(tests/fixtures/malformed/expected.txt, read by tests/fuzz.rs).

    python3 scripts/gen_malformed_corpus.py
"""

import pathlib
import struct

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests/fixtures/malformed"

CUBE = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
# Two triangles per face, outward (indices into CUBE: bit 2 = x, bit 1 = y, bit 0 = z).
FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def binary_stl(triangles, count=None):
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *a, *b, *c, 0) for a, b, c in triangles)
    return b"signorini fuzz seed".ljust(80, b" ") + struct.pack("<I", len(triangles) if count is None else count) + body


def ascii_stl(triangles):
    lines = ["solid cube"]
    for t in triangles:
        lines += ["  facet normal 0 0 0", "    outer loop"] + [f"      vertex {x} {y} {z}" for x, y, z in t] + ["    endloop", "  endfacet"]
    return "\n".join(lines + ["endsolid cube", ""])


def obj():
    return "".join(f"v {x} {y} {z}\n" for x, y, z in CUBE) + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in FACES)


def dae():
    positions = " ".join(f"{c}" for p in CUBE for c in p)
    indices = " ".join(str(i) for f in FACES for i in f)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <library_geometries>
    <geometry id="cube" name="cube">
      <mesh>
        <source id="cube-positions">
          <float_array id="cube-positions-array" count="24">{positions}</float_array>
          <technique_common>
            <accessor source="#cube-positions-array" count="8" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="cube-vertices"><input semantic="POSITION" source="#cube-positions"/></vertices>
        <triangles count="12"><input semantic="VERTEX" source="#cube-vertices" offset="0"/><p>{indices}</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="cube"><instance_geometry url="#cube"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'


def robot(body):
    return f'<?xml version="1.0"?>\n<robot name="malformed">\n{body}\n</robot>\n'


def link(name, inertial=INERTIAL, extra=""):
    return f'  <link name="{name}">{inertial}{extra}</link>'


def joint(name, parent, child, kind="revolute", axis="0 0 1", origin='xyz="0 0 0.1" rpy="0 0 0"'):
    limit = '<limit lower="-1" upper="1" effort="10" velocity="1"/>' if kind in ("revolute", "prismatic") else ""
    return f'  <joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/><origin {origin}/><axis xyz="{axis}"/>{limit}</joint>'


def two_links(**kw):
    return robot("\n".join([link("base"), link("arm"), joint("j1", "base", "arm", **kw)]))


MESH_URDF = robot(link("base", extra='<collision><geometry><mesh filename="package://malformed/cube.stl" scale="0.1 0.1 0.1"/></geometry></collision>'))

URDFS = {
    "truncated.urdf": (two_links()[:150], "not a valid URDF"),
    "negative_mass.urdf": (
        robot(link("base", '<inertial><mass value="-2"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>')),
        "mass",
    ),
    "non_spd_inertia.urdf": (
        robot("\n".join([link("base"), link("arm", '<inertial><mass value="1"/><inertia ixx="1" ixy="5" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'), joint("j1", "base", "arm")])),
        "inertia",
    ),
    "zero_axis.urdf": (two_links(axis="0 0 0"), "has no direction"),
    "cycle.urdf": (robot("\n".join([link("a"), link("b"), joint("ab", "a", "b"), joint("ba", "b", "a")])), "cycle"),
    "two_parents.urdf": (
        robot("\n".join([link("a"), link("b"), link("c"), joint("ab", "a", "c"), joint("bc", "b", "c")])),
        "is the child of joints",
    ),
    "missing_mesh.urdf": (robot(link("base", extra='<collision><geometry><mesh filename="package://malformed/nowhere.stl"/></geometry></collision>')), "not found"),
    "unknown_parent.urdf": (robot("\n".join([link("arm"), joint("j1", "ghost", "arm")])), "does not exist"),
    "duplicate_link.urdf": (robot("\n".join([link("base"), link("base")])), "is defined twice"),
    "nan_origin.urdf": (two_links(origin='xyz="0 nan 0" rpy="0 0 0"'), "non-finite"),
    "no_links.urdf": (robot(""), "no links"),
    # A moving link without an <inertial>: refused as MuJoCo does (LTDL pivots divide by its inertia).
    "massless_link.urdf": (
        robot("\n".join([link("base"), link("arm", ""), joint("j1", "base", "arm")])),
        "has mass 0 kg and principal moments of inertia [0.0, 0.0, 0.0] kg·m²: a moving body needs a mass and moments of at least 1e-15",
    ),
    "point_mass_link.urdf": (
        robot("\n".join([link("base"), link("arm", '<inertial><mass value="1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>'), joint("j1", "base", "arm")])),
        "the body moved by joint `j1` (links `arm`) has mass 1 kg",
    ),
    "negative_radius.urdf": (robot(link("base", extra='<collision><geometry><cylinder radius="-0.1" length="0.2"/></geometry></collision>')), "must be positive"),
}

BASE_YAML = "robot:\n  urdf: ../../../urdf/quadruped.urdf\n  floating_base: true\n"
YAMLS = {
    "nan.yaml": (BASE_YAML + "  initial_posture: {lf_kfe: .nan}\n", "expected a finite number"),
    "unknown_key.yaml": (BASE_YAML + "rate_khz: 1\n", "unknown field `rate_khz`"),
    "wrong_type.yaml": (BASE_YAML + "rate_hz: fast\n", "invalid type: string \"fast\""),
    "truncated.yaml": (BASE_YAML + "contact: {solver: admm, tolerance: \"1e-6\n", "unexpected end of stream"),
    "unknown_joint.yaml": (BASE_YAML + "  initial_posture: {nope: 0.1}\n", "expected one of the configured joints"),
    "out_of_limits.yaml": (BASE_YAML + "  initial_posture: {lf_kfe: 10}\n", "within the URDF limits"),
    "negative_compliance.yaml": (BASE_YAML + "contact: {compliance_normal: -1}\n", "key `contact.compliance_normal`"),
    # Accepted before issue 26 and then crashed start-up or the loop (a Duration overflow, a
    # zero step, a (3n)² allocation): each number now has a physical range.
    "tiny_rate.yaml": (BASE_YAML + "rate_hz: 1e-20\n", "key `rate_hz`: expected a rate from 1 to 100000 Hz, got 1e-20"),
    "huge_rate.yaml": (BASE_YAML + "rate_hz: 3e9\n", "key `rate_hz`: expected a rate from 1 to 100000 Hz, got 3e9"),
    "tiny_diagnostics_rate.yaml": (BASE_YAML + "diagnostics: {rate_hz: 1e-20}\n", "key `diagnostics.rate_hz`: expected a rate from 0.01 to 1000 Hz"),
    "huge_catch_up.yaml": (BASE_YAML + "sim: {catch_up: 1e20}\n", "key `sim.catch_up`: expected a duration from 0 to 60 s, got 1e20"),
    "huge_stale_periods.yaml": (BASE_YAML + "watchdog: {stale_after_periods: 1e308}\n", "key `watchdog.stale_after_periods`: expected a number of periods from 1 to 1e6"),
    "huge_max_contacts.yaml": (BASE_YAML + "collision: {max_contacts: 100000000}\n", "key `collision.max_contacts`: expected a number of contacts from 1 to 1024, got 1e8"),
    "tiny_dt.yaml": (BASE_YAML + "sim: {dt: 1e-300}\n", "key `sim.dt`: expected a time step from 1e-6 to 1 s"),
}

FLAT = [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((1, 0, 0), (1, 1, 0), (0, 1, 0))]
CUBE_TRIANGLES = [tuple(CUBE[i] for i in f) for f in FACES]
MESHES = {
    "truncated.stl": (binary_stl(CUBE_TRIANGLES)[:300], "cannot load the mesh"),
    "huge_count.stl": (binary_stl(CUBE_TRIANGLES, count=0xFFFFFFFF), "cannot load the mesh"),
    "flat.stl": (binary_stl(FLAT), "has no volume"),
    "nan.stl": (binary_stl([((float("nan"), 0, 0), (1, 0, 0), (0, 1, 0))] + CUBE_TRIANGLES), "non-finite"),
    "garbage.obj": (b"v 1 2\nf 1 2 3\nthis is not an obj\n", "cannot load the mesh"),
    "broken.dae": (dae()[:400].encode(), "cannot load the mesh"),
    # An accessor whose source names no array: mesh-loader panics on it (found by tests/fuzz.rs).
    # mesh-loader loops forever on a geometry source holding a <Name_array> or <IDREF_array>
    # with content, and reserves what a count announces (16 GiB for 2³² − 1 floats):
    # refused from the file's content before it is called (src/collision/mesh_file.rs).
    "name_array.dae": (
        dae().replace('<float_array id="cube-positions-array" count="24">', '<Name_array id="names" count="1">joint</Name_array><float_array id="cube-positions-array" count="24">').encode(),
        "<Name_array> with content in a geometry",
    ),
    "idref_array.dae": (
        dae().replace("<vertices", '<source id="refs"><IDREF_array id="refs-array" count="2">a b</IDREF_array></source><vertices').encode(),
        "<IDREF_array> with content in a geometry",
    ),
    "huge_array_count.dae": (
        dae().replace('count="24"', 'count="4294967295"').encode(),
        "<float_array> (line 7) announces 4294967295 values but holds 24",
    ),
    "huge_triangle_count.dae": (
        dae().replace('<triangles count="12">', '<triangles count="4294967295">').encode(),
        "<triangles> (line 15) announces 4294967295 primitives but holds 36 indices",
    ),
    "huge_offset.dae": (
        dae().replace('source="#cube-vertices" offset="0"', 'source="#cube-vertices" offset="4294967294"').encode(),
        "<triangles> (line 15) implies 154618822620 indices but holds 36",
    ),
    "degenerate_polylist.dae": (
        dae().replace('<triangles count="12">', '<polylist count="13"><vcount>1 ' + "3 " * 11 + '3</vcount>')
        .replace("</p></triangles>", " 0</p></polylist>").encode(),
        "has a polygon of fewer than 3 vertices",
    ),
    "unsupported.ply": (b"ply\nformat ascii 1.0\nend_header\n", "unsupported mesh format"),
    "dangling_source.dae": (
        dae().replace('id="cube-positions-array"', 'id="cube/positions-array"').encode(),
        "the mesh loader failed on it",
    ),
}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cube.stl").write_bytes(binary_stl(CUBE_TRIANGLES))
    (OUT / "cube_ascii.stl").write_text(ascii_stl(CUBE_TRIANGLES))
    (OUT / "cube.obj").write_text(obj())
    (OUT / "cube.dae").write_text(dae())
    (OUT / "mesh.urdf").write_text(MESH_URDF)
    expected = ["# Generated by scripts/gen_malformed_corpus.py: file | text its error must contain"]
    for name, (content, want) in {**URDFS, **YAMLS, **MESHES}.items():
        path = OUT / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        expected.append(f"{name} | {want}")
    (OUT / "expected.txt").write_text("\n".join(expected) + "\n")


if __name__ == "__main__":
    main()

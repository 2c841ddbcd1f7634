"""README's Python section runs as written: every ```python block under "## Python" is
executed, in order, in one namespace, from the repository's root (as a reader pastes them)."""

import os
import re

from conftest import ROOT


def python_blocks():
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Python\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else len(text)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_python_section_runs_as_written():
    blocks = python_blocks()
    assert len(blocks) >= 4, "the Python section lost its examples"
    namespace = {"__name__": "readme"}
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for i, block in enumerate(blocks):
            exec(compile(block, f"README.md (Python block {i + 1})", "exec"), namespace)
    finally:
        os.chdir(here)

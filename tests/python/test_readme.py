"""The Python shown in README.md and docs/python.md runs as shown (from the repository
root, as a reader would paste it)."""

import contextlib
import io
import os
import re

import pytest

from conftest import ROOT


def python_blocks(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)


@pytest.mark.parametrize("name", ["README.md", "docs/python.md"])
def test_the_python_blocks_run(name):
    blocks = python_blocks(name)
    assert blocks, f"{name} shows no Python"
    namespace = {}
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, name, "exec"), namespace)
        assert out.getvalue(), f"a block of {name} prints nothing"


def test_the_readme_example_is_ten_lines_end_to_end():
    code = python_blocks("README.md")[0]
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 10
    for step in ("Config.load", "Testbench.load", "npusim.run(", "npusim.sweep("):
        assert step in code

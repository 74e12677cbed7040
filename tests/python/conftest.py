"""Shared helpers of the Python package's tests: the repository, the npusim binary (to
compare with the command line) and a scratch folder per test (pytest's tmp_path)."""

import os
import re
import subprocess

import pytest

import npusim
from npusim import _paths

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HELLO = os.path.join(ROOT, "testbenches", "hello.yaml")


def cli(*args, cwd=ROOT):
    """Runs the npusim binary; (exit code, stdout, stderr)."""
    p = subprocess.run([_paths.NPUSIM, *args], cwd=cwd, capture_output=True, text=True,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


def cli_error(*args, cwd=ROOT):
    """The one line the command line prints for a bad input, without "npusim: "."""
    code, out, err = cli(*args, cwd=cwd)
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("npusim: "), err
    return lines[0][len("npusim: "):]


def without_wall_time(text):
    """A report's text with sim.wall_s, the one field that differs between two runs."""
    return re.sub(r'"wall_s": [-+0-9.eE]+', '"wall_s": 0', text)


@pytest.fixture
def hello():
    return npusim.Testbench.load(HELLO)


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    """Relative paths in the tests are relative to the repository."""
    monkeypatch.chdir(ROOT)

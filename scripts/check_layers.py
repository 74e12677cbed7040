#!/usr/bin/env python3
"""Fails when an #include "..." points up the layer table or into a block it has no link to.

    scripts/check_layers.py [--root DIR] [--table]

Every C++ file under src/, models/ and testbenches/ belongs to a layer; it may include
headers of its own layer and of lower ones, never of a higher one. A model block
(models/<block>/) may include models/common/ and the headers of the blocks its CMake
library links (target_link_libraries in models/<block>/CMakeLists.txt), nothing of
another block. No file there includes tests/. The table, lowest first (docs/architecture.md,
"Layers", says what each layer holds):

    0 src/common      plain C++ every layer uses: errors, files, paths, UTF-8
    1 src/config      units, the YAML tree, config sections
    2 models/common   what the blocks share: TLM helpers, statistics, traces, launch records
    3 models/<block>  one hardware block each
    4 src/platform    builds the platform from config
    5 src/report      report formats of one run
    6 src/runtime     the runtime API and the simulation
    7 src/testbench, src/import
    8 src/sweep
    9 src/cli
   10 testbenches     C++ host programs
   10 src/python      the Python package's extension module

An include is resolved as the compiler would: against src/, the repository root, then the
including file's folder; one found in none of them (a system or generated header) is not
checked. Exit status: 0 no violation, 1 some include breaks a rule (each printed as
file:line: the include and the rule), 2 bad arguments.
"""

import argparse
import os
import re
import sys

# (folder relative to the root, rank); models/<block> folders get BLOCK_RANK.
LAYERS = [
    ("src/common", 0),
    ("src/config", 1),
    ("models/common", 2),
    ("src/platform", 4),
    ("src/report", 5),
    ("src/runtime", 6),
    ("src/testbench", 7),
    ("src/import", 7),
    ("src/sweep", 8),
    ("src/cli", 9),
    ("testbenches", 10),
    ("src/python", 10),
]
BLOCK_RANK = 3
SCANNED = ("src", "models", "testbenches")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LIBRARY_RE = re.compile(r"add_library\(\s*([\w:]+)")
LINK_RE = re.compile(r"target_link_libraries\(\s*([\w:]+)([^)]*)\)", re.S)


def layer_of(rel):
    """(layer name, rank, block or None) of a path relative to the root, or None."""
    parts = rel.split("/")
    if parts[0] == "tests":
        return ("tests", 100, None)
    for folder, rank in LAYERS:
        if rel == folder or rel.startswith(folder + "/"):
            return (folder, rank, None)
    if parts[0] == "models" and len(parts) > 2:
        return ("models/" + parts[1], BLOCK_RANK, parts[1])
    return None


def block_links(root):
    """{block: blocks its libraries link}, read from models/<block>/CMakeLists.txt."""
    owner, links = {}, {}
    models = os.path.join(root, "models")
    if not os.path.isdir(models):
        return {}
    for block in sorted(os.listdir(models)):
        path = os.path.join(models, block, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for name in LIBRARY_RE.findall(text):
            owner[name] = block
        links[block] = set()
        for _, deps in LINK_RE.findall(text):
            links[block].update(deps.split())
    return {
        block: {owner[d] for d in deps if d in owner and owner[d] != block}
        for block, deps in links.items()
    }


def resolve(root, including_rel, target):
    """The included file relative to the root, or None where it is not in the tree."""
    for base in ("src", "", os.path.dirname(including_rel)):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate.replace(os.sep, "/")
    return None


def rule_broken(src_layer, dst_layer, links):
    """The rule an include from src_layer into dst_layer breaks, or None."""
    src_name, src_rank, src_block = src_layer
    dst_name, dst_rank, dst_block = dst_layer
    if dst_name == "tests":
        return "code under src/, models/ and testbenches/ never includes tests/"
    if dst_rank > src_rank:
        return f"{src_name} (layer {src_rank}) may not include {dst_name} (layer {dst_rank})"
    if src_block and dst_block and src_block != dst_block and dst_block not in links.get(
            src_block, set()):
        return (f"block {src_block} includes block {dst_block}, which its library does not "
                f"link (models/{src_block}/CMakeLists.txt)")
    return None


def source_files(root):
    for top in SCANNED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def check(root):
    """(violations as printable lines, count of includes checked)."""
    links = block_links(root)
    violations, checked = [], 0
    for rel in source_files(root):
        src_layer = layer_of(rel)
        if src_layer is None:
            violations.append(f"{rel}: file in no layer (add its folder to scripts/check_layers.py)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE_RE.match(line)
                if not match:
                    continue
                target = resolve(root, rel, match.group(1))
                dst_layer = layer_of(target) if target else None
                if dst_layer is None:
                    continue
                checked += 1
                rule = rule_broken(src_layer, dst_layer, links)
                if rule:
                    violations.append(f'{rel}:{number}: #include "{match.group(1)}": {rule}')
    return violations, checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the source tree (default: this script's repository)")
    parser.add_argument("--table", action="store_true",
                        help="print each block's allowed block includes and exit")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print(f"check_layers: no such folder: {root}", file=sys.stderr)
        return 2
    if args.table:
        for block, deps in sorted(block_links(root).items()):
            print(f"models/{block}: {' '.join(sorted(deps - {'common'})) or '-'}")
        return 0
    violations, checked = check(root)
    for line in violations:
        print(line)
    print(f"check_layers: {checked} includes checked, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())

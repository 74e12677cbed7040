#!/usr/bin/env python3
"""scripts/check_layers.py on small trees made here: it passes a clean one and fails, with
file:line, the include and the rule, on each kind of bad include."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "check_layers.py")

# A tree that follows every rule: host links and includes scheduler.
CLEAN = {
    "src/common/error.h": "#pragma once\n",
    "src/config/section.h": '#pragma once\n#include "common/error.h"\n',
    "src/runtime/runtime.h": '#pragma once\n#include "models/host/host.h"\n',
    "models/common/stats.h": '#pragma once\n#include "common/error.h"\n',
    "models/scheduler/CMakeLists.txt": "add_library(npu_scheduler STATIC s.cpp)\n",
    "models/scheduler/scheduler.h": '#pragma once\n#include "models/common/stats.h"\n',
    "models/host/CMakeLists.txt": ("add_library(npu_host STATIC host.cpp)\n"
                                   "target_link_libraries(npu_host PUBLIC npu_scheduler\n"
                                   "                      npu_tlm)\n"),
    "models/host/host.h": '#pragma once\n#include "models/scheduler/scheduler.h"\n#include <vector>\n',
    "models/host/host.cpp": '#include "models/host/host.h"\n#include "host.h"\n',
    "tests/util.h": "#pragma once\n",
}


def run_check(files):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        result = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True,
                                text=True, check=False)
    return result.returncode, result.stdout


# Each bad include: (file added to CLEAN, its text, what the output names, the rule).
BAD = [
    ("models/scheduler/scheduler.cpp",
     '#include "models/scheduler/scheduler.h"\n#include "runtime/runtime.h"\n',
     'models/scheduler/scheduler.cpp:2: #include "runtime/runtime.h"',
     "models/scheduler (layer 3) may not include src/runtime (layer 6)"),
    ("src/common/error.cpp", '#include "models/common/stats.h"\n',
     'src/common/error.cpp:1: #include "models/common/stats.h"',
     "src/common (layer 0) may not include models/common (layer 2)"),
    ("models/scheduler/s.cpp", '#include "models/host/host.h"\n',
     'models/scheduler/s.cpp:1: #include "models/host/host.h"',
     "block scheduler includes block host, which its library does not link"),
    ("models/host/extra.cpp", '\n#include "tests/util.h"\n',
     'models/host/extra.cpp:2: #include "tests/util.h"', "never includes tests/"),
    ("src/newlayer/thing.cpp", '#include "common/error.h"\n', "src/newlayer/thing.cpp",
     "file in no layer"),
]


class CheckLayersTest(unittest.TestCase):

    def test_clean_tree_passes(self):
        code, out = run_check(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("0 violations", out)

    def test_each_bad_include_fails(self):
        for rel, text, where, rule in BAD:
            with self.subTest(file=rel):
                code, out = run_check({**CLEAN, rel: text})
                self.assertEqual(code, 1, out)
                self.assertIn(where, out)
                self.assertIn(rule, out)
                self.assertIn("1 violations", out)


if __name__ == "__main__":
    unittest.main()

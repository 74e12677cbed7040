#!/usr/bin/env python3
"""Checks scripts/check_function_size.py on small files written for the purpose: it fails
on a function over the limit (lambdas count with their function), finds every kind of
function body at the right length, and counts no namespace, class, enum or initializer."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "check_function_size.py")
failures = []


def run(files, *args):
    """(exit code, stdout) of the script over `files` ({name: text}) in a fresh folder."""
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        p = subprocess.run([sys.executable, SCRIPT, *args, root], capture_output=True,
                           text=True)
        return p.returncode, p.stdout.replace(root + os.sep, "")


def expect(what, got, wanted):
    if got != wanted:
        failures.append(f"{what}:\n  got    {got!r}\n  wanted {wanted!r}")


def body(n):
    """n statement lines."""
    return "".join(f"  x += {i};\n" for i in range(n))


# A body of 81 lines (closing brace line minus opening brace line) fails; 80 passes.
long_fn = "int f(int x) {\n" + body(79) + "  return x;\n}\n"
code, out = run({"long.cpp": long_fn})
expect("a function of 81 lines fails", code, 1)
expect("its report", out, "long.cpp:1: function 'f' has 81 lines (at most 80)\n")
code, out = run({"ok.cpp": "int f(int x) {\n" + body(78) + "  return x;\n}\n"})
expect("a function of 80 lines passes", (code, out), (0, ""))

# A long lambda counts as part of the function that holds it.
lambda_fn = "void g() {\n  auto h = [](int x) {\n" + body(85) + "    return x;\n  };\n  h(1);\n}\n"
code, out = run({"lambda.cpp": lambda_fn})
expect("a long lambda makes its function long", out,
       "lambda.cpp:1: function 'g' has 90 lines (at most 80)\n")

# Long namespaces, classes, enums and initializers hold no long function.
many_short = "".join(f"int f{i}(int x) {{\n  return x + {i};\n}}\n" for i in range(40))
members = "".join(f"  int m{i}() const {{ return {i}; }}\n" for i in range(90))
table = "".join(f"    {{{i}, \"{i}\"}},\n" for i in range(90))
enum = "".join(f"  E{i},\n" for i in range(90))
init_list = "".join(f"      m{i}{{{i}}},\n" for i in range(90))
init_members = "".join(f"  int m{i};\n" for i in range(90))
not_functions = {
    "namespace.cpp": "namespace a {\nnamespace {\n" + many_short + "}\n}\n",
    "class.h": "#pragma once\nclass C {\npublic:\n" + members + "};\n",
    "table.cpp": "struct P { int a; const char* b; };\nconst P kTable[] = {\n" + table + "};\n",
    "enum.h": "enum class E {\n" + enum + "};\n",
    "ctor.cpp": "struct S {\n  S();\n" + init_members + "};\nS::S()\n    : m0{0},\n" + init_list +
                "      m90{1} {\n  m0 = 2;\n}\n",
    "text.cpp": "const char* kText = R\"x(\n" + "}\n" * 90 + ")x\" \"}\";\n" +
                "int f() {\n  // } a brace in a comment {\n  return '{';\n}\n",
}
code, out = run(not_functions)
expect("no long namespace, class, enum or initializer is a function", (code, out), (0, ""))

# Every kind of function body is found, at its name's line, with its length.
kinds = """#include <vector>
#define BRACE {
namespace n {
template <typename T>
T twice(T x) {
  return 2 * x;
}
struct S : std::vector<int> {
  S(int a) : m_a{a}, m_b(a) {
    m_a += 1;
  }
  bool operator<(const S& o) const {
    return m_a < o.m_a;
  }
  int get() const noexcept { return m_a; }
  int m_a, m_b;
};
auto trailing(int x) -> int {
  return x;
}
}
int n::S::*member = nullptr;
void outside::method() {
  int a[] = {1, 2};
  auto l = [&] { return a[0]; };
}
bool operator!=(const n::S& a, const n::S& b) {
  return b < a;
}
"""
code, out = run({"kinds.cpp": kinds}, "--list")
expect("the functions of kinds.cpp", out, "".join(f"kinds.cpp:{line}: {name} {n}\n" for line, name, n in [
    (5, "twice", 2), (9, "S", 2), (12, "operator<", 2), (15, "get", 0), (18, "trailing", 2),
    (23, "outside::method", 3), (27, "operator!=", 2)]))

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failure(s)" if failures else "all checks passed")
sys.exit(1 if failures else 0)

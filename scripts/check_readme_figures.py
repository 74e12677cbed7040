#!/usr/bin/env python3
"""Re-runs every simulated figure that README.md and docs/ quote and fails when one has drifted.

    scripts/check_readme_figures.py NPUSIM [--testbench-dir DIR] [--jobs N] [--slow]
                                    [--readme FILE] [--docs DIR] [--figures FILE] [--only RUN]...
                                    [-v]
                                    [--update]

The figures, the runs that produce them and the figures left out (with the reason) are
listed in tests/readme/figures.yaml. Each distinct run executes once, in parallel. For each
figure the script checks that its text, with the values the run gives formatted in, appears
in README.md or one of the pages under docs/ (the docs); for each quoted `$ ...` output
block, that the run prints the block's lines (wall-clock lines ignored, `...` standing for
any lines). It also checks that every source id the configs, the docs and the model READMEs
cite (`[h100-spec]`) is an entry of docs/references.md, and that none cites a REFERENCES
section; that every relative link of the docs leads to a file and, with `#anchor`, to a
heading of it; and that README.md links every page under docs/.

Runs marked `slow` (tens of seconds each) run only with --slow or NPU_SLOW_TESTS=1; their
figures are then only looked for in the docs. Exit status: 0 all figures agree, 1 some
drifted or a run failed, 2 bad arguments or data file, 77 (skipped) without python3-yaml.
With --update, a drifted figure whose checks still hold is rewritten in the page that quotes
it with the run's values (the exit status still reports the drift); output blocks are edited
by hand.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import yaml
except ImportError:  # CTest counts exit status 77 as skipped
    print("check_readme_figures: skipped: python3-yaml is not installed "
          "(scripts/setup.sh installs it)")
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = r"-?[0-9][0-9,]*(?:\.[0-9]+)?"


class Run:
    """One command of figures.yaml and what it left: stdout, stderr, report, launches."""

    def __init__(self, name, spec):
        self.name = name
        self.spec = spec
        self.stdout = ""
        self.stderr = ""
        self.error = None
        self.seconds = 0.0
        self._report = None
        self._launches = None
        self.out_dir = None

    # Values for the figures' expressions.
    @property
    def report(self):
        if self._report is None:
            with open(os.path.join(self.out_dir, "report.json")) as f:
                self._report = json.load(f)
        return self._report

    @property
    def launches(self):
        if self._launches is None:
            with open(os.path.join(self.out_dir, "launches.csv")) as f:
                rows = list(csv.DictReader(f))
            for row in rows:
                for key, value in row.items():
                    if key.endswith("_ns") and not key.startswith("unit_"):
                        row[key] = float(value)  # unit_t4_ns, unit_t5_ns: one per unit
            self._launches = rows
        return self._launches

    @property
    def json(self):
        return json.loads(self.stdout)

    def of(self, kernel):
        rows = [x for x in self.launches if x["kernel"] == kernel]
        if not rows:
            raise ValueError("run %s has no launch of kernel %s" % (self.name, kernel))
        return rows

    @property
    def results(self):
        """A sweep's results.csv, one dict per point."""
        with open(os.path.join(self.out_dir, "results.csv")) as f:
            return list(csv.DictReader(f))

    def grab(self, pattern):
        """The first group of `pattern` in the run's stdout and stderr, as a number."""
        m = re.search(pattern, self.stdout + self.stderr, re.M)
        if not m:
            raise ValueError("run %s: /%s/ not in its output" % (self.name, pattern))
        return float(m.group(1))


# Helpers of the expressions, after tests/integration/claims_test.cpp.
def period(launches):
    """Time from the second launch call to the last, per launch."""
    return (launches[-1]["t0_ns"] - launches[1]["t0_ns"]) / (len(launches) - 2)


def span(launches, last="t6_ns"):
    return max(x[last] for x in launches) - min(x["t0_ns"] for x in launches)


def submit(launches):
    return span(launches, "t2_ns")


def second_half(launches):
    return launches[len(launches) // 2:]


def macs(report):
    return sum(v.get("macs", 0) for k, v in report["blocks"].items() if k.startswith("compute.unit"))


def share(part, whole):
    return 100.0 * part / whole


def fail(msg):
    print("check_readme_figures: " + msg, file=sys.stderr)
    sys.exit(2)


def load_figures(path):
    with open(path) as f:
        data = yaml.safe_load(f)
    for key in ("runs", "figures"):
        if key not in data:
            fail("%s: no '%s'" % (path, key))
    for fig in data["figures"]:
        runs = [fig["run"]] + fig.get("also", [])
        for r in runs:
            if r not in data["runs"]:
                fail("%s: figure %r names run %r, which is not defined" % (path, fig["text"], r))
    for block in data.get("blocks", []):
        if block["run"] not in data["runs"]:
            fail("%s: block %r names run %r, which is not defined" %
                 (path, block["prompt"], block["run"]))
    return data


def execute(run, tools, tmp):
    spec = run.spec
    def subst(a):
        return a.replace("{tmp}", tmp).replace("{root}", ROOT)

    argv = [subst(a) for a in spec["cmd"]]
    if argv[0] not in tools:
        run.error = "unknown program %s" % argv[0]
        return run
    if tools[argv[0]] is None:
        run.error = "%s not given (--testbench-dir)" % argv[0]
        return run
    argv[0] = tools[argv[0]]
    if spec.get("out") or spec.get("sweep"):
        run.out_dir = os.path.join(tmp, run.name)
        argv += ["--out", run.out_dir]
    cwd = subst(spec.get("cwd", "{root}"))
    start = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    run.seconds = time.monotonic() - start
    run.stdout, run.stderr = p.stdout, p.stderr
    want = spec.get("rc", 0)
    if p.returncode != want:
        run.error = "exit status %d, expected %d: %s\n  %s" % (
            p.returncode, want, " ".join(argv), p.stderr.strip()[-2000:])
    return run


def run_all(runs, tools, tmp, jobs):
    """Runs every run once: those without `needs` first, in parallel, then the others."""
    pending = dict(runs)
    while pending:
        ready = [r for r in pending.values()
                 if all(n not in pending for n in r.spec.get("needs", []))]
        if not ready:
            fail("runs depend on each other in a cycle: %s" % ", ".join(pending))
        ready.sort(key=lambda r: -r.spec.get("cost", 0))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for r in pool.map(lambda r: execute(r, tools, tmp), ready):
                del pending[r.name]


def as_pattern(text, values=None):
    """A regex for `text`: each {any} stands for any text within a table cell (a group of
    its own), each other {...} field for its value formatted with the field's spec, or any
    number without values."""
    out, pos, i = "", 0, 0
    for m in re.finditer(r"\{([^{}]*)\}", text):
        out += re.escape(text[pos:m.start()])
        if m.group(1) == "any":
            out += r"([^|\n]*)"
        elif values is None:
            out += "(" + NUMBER + ")"
        else:
            out += re.escape(("{" + m.group(1) + "}").format(values[i]))
            i += 1
        pos = m.end()
    if values is not None and i != len(values):
        raise ValueError("%d values for %d fields" % (len(values), i))
    return out + re.escape(text[pos:])


def updated_text(text, values, found):
    """`text` with `values` formatted in and each {any} cell kept as the page has it in
    `found` (a match of as_pattern(text))."""
    out, pos, i, cell = "", 0, 0, 0
    for m in re.finditer(r"\{([^{}]*)\}", text):
        out += text[pos:m.start()]
        if m.group(1) == "any":
            out += found.group(cell + 1)
        else:
            out += ("{" + m.group(1) + "}").format(values[i])
            i += 1
        cell += 1
        pos = m.end()
    return out + text[pos:]


def search_docs(pattern, docs):
    """(page, match) of the first page of `docs` (name -> text) where `pattern` matches."""
    for name, text in docs.items():
        m = re.search(pattern, text)
        if m:
            return name, m
    return None, None


def check_figure(fig, runs, docs, fixes=None):
    """None if the figure agrees; else what is wrong. With `fixes` (a list), a figure whose
    text a page has with other values adds (page, old, new) to it."""
    text = fig["text"]
    main = runs[fig["run"]]
    needed = [fig["run"]] + fig.get("also", [])
    skipped = [n for n in needed if runs[n].spec.get("skipped")]
    if skipped:
        if not search_docs(as_pattern(text), docs)[0]:
            return "not in the docs in any form: %r" % text
        return "skipped"
    for n in needed:
        if runs[n].error:
            return "run %s failed: %s" % (n, runs[n].error)
    env = {
        "r": main.report if main.out_dir and not main.spec.get("sweep") else None,
        "run": main,
        "R": runs,
        "of": main.of,
        "grab": main.grab,
        "period": period,
        "span": span,
        "submit": submit,
        "second_half": second_half,
        "macs": macs,
        "share": share,
        "round": round,
        "min": min,
        "max": max,
        "sum": sum,
        "len": len,
        "abs": abs,
        "float": float,
        "int": int,
        "all": all,
        "any": any,
        "set": set,
        "sorted": sorted,
    }
    env["__builtins__"] = {}
    try:
        for name, expr in fig.get("let", {}).items():
            env[name] = eval(expr, env)
        values = [eval(expr, env) for expr in fig.get("values", [])]
        want = as_pattern(text, values)
        failed = [c for c in fig.get("checks", []) if not eval(c, env)]
    except Exception as e:  # an expression that no longer fits the run's output
        return "cannot compute its values (%s: %s)" % (type(e).__name__, e)
    shown = ", ".join(("{" + f + "}").format(v) for f, v in zip(
        [f for f in re.findall(r"\{([^{}]*)\}", text) if f != "any"], values))
    if failed:
        return "the run no longer satisfies %s" % "; ".join(failed)
    if search_docs(want, docs)[0]:
        return None
    page, m = search_docs(as_pattern(text), docs)
    if m:
        if fixes is not None:
            fixes.append((page, m.group(0), updated_text(text, values, m)))
        return "%s says %r; the run gives %s" % (page, m.group(0), shown)
    return "the docs have no such text; the run gives %s" % shown


WALL = re.compile(r"wall time|\bs wall\b|wall_s|per wall s")


def block_lines(docs, prompt):
    """The lines the first page of the docs with `prompt` shows after it in a fenced block."""
    for text in docs.values():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if line.rstrip() == prompt:
                body = []
                for line in lines[i + 1:]:
                    if line.startswith("```"):
                        return body
                    body.append(line.rstrip())
    return None


def check_block(block, runs, docs):
    run = runs[block["run"]]
    shown = block_lines(docs, block["prompt"])
    if shown is None:
        return "the docs have no block with the line %r" % block["prompt"]
    if run.spec.get("skipped"):
        return "skipped"
    if run.error:
        return "run %s failed: %s" % (run.name, run.error)
    text = run.stderr if block.get("stream") == "stderr" else run.stdout
    got = [x.rstrip() for x in text.split("\n") if not WALL.search(x)]
    while got and not got[-1]:
        got.pop()
    shown = [x for x in shown if not WALL.search(x)]
    pos, skip = 0, False
    for line in shown:
        if line.strip() == "...":
            skip = True
            continue
        if skip:
            while pos < len(got) and got[pos] != line:
                pos += 1
            if pos == len(got):
                return "the docs show %r, which the run does not print (after the '...')" % line
        elif pos >= len(got) or got[pos] != line:
            return "the docs show %r where the run prints %r" % (
                line, got[pos] if pos < len(got) else "(end of output)")
        pos += 1
        skip = False
    if not skip and pos < len(got):
        return "the run prints more after the block's last line: %r" % got[pos]
    return None


def check_references(doc_pages):
    """Every id the configs cite is an entry of docs/references.md; no citation dangles."""
    problems = []
    refs_path = os.path.join(ROOT, "docs", "references.md")
    with open(refs_path) as f:
        refs = f.read()
    defined = re.findall(r'<a id="([a-z0-9-]+)"></a>\*\*\[\1\]\*\*', refs)
    dup = sorted({x for x in defined if defined.count(x) > 1})
    if dup:
        problems.append("docs/references.md defines %s more than once" % ", ".join(dup))
    for name in sorted(os.listdir(os.path.join(ROOT, "configs"))):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(ROOT, "configs", name)) as f:
            for n, line in enumerate(f, 1):
                if "#" not in line:
                    continue
                comment = line[line.index("#"):]
                if "REFERENCES" in comment:
                    problems.append("configs/%s:%d cites REFERENCES, which does not exist" % (name, n))
                for ref in re.findall(r"\[([a-z0-9][a-z0-9-]*)\]", comment):
                    if ref not in defined:
                        problems.append("configs/%s:%d cites [%s], which docs/references.md "
                                        "does not define" % (name, n, ref))
    # The docs cite the same ids: `[jedec-ddr4]`, or bare ones with a hyphen.
    docs = [p for p in doc_pages if p != os.path.join("docs", "references.md")] + sorted(
        os.path.join("models", d, "README.md") for d in os.listdir(os.path.join(ROOT, "models"))
        if os.path.exists(os.path.join(ROOT, "models", d, "README.md")))
    for doc in docs:
        with open(os.path.join(ROOT, doc)) as f:
            for n, line in enumerate(f, 1):
                if "REFERENCES" in line:
                    problems.append("%s:%d cites REFERENCES, which does not exist" % (doc, n))
                cited = re.findall(r"`\[([a-z0-9-]+)\]`", line) + [
                    m.group(1) for m in re.finditer(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]", line)]
                for ref in cited:
                    if ref not in defined:
                        problems.append("%s:%d cites [%s], which docs/references.md does not "
                                        "define" % (doc, n, ref))
    return problems


def slug(heading):
    """The anchor a Markdown renderer gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    """The anchors of a page: its headings (outside fenced blocks) and <a id> tags."""
    found, fenced = set(re.findall(r'<a id="([^"]+)"', text)), False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#+ (.*)$", line)
        if m:
            found.add(slug(m.group(1)))
    return found


def check_links(docs):
    """Every relative link of the docs leads to a file and, with #anchor, to a heading of
    it; README.md links every page under docs/."""
    problems = []
    for page, text in docs.items():
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target, _, anchor = m.group(1).partition("#")
            if re.match(r"[a-z]+:", target):
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
            if not os.path.exists(os.path.join(ROOT, dest)):
                problems.append("%s links %s, which does not exist" % (page, m.group(1)))
            elif anchor and dest.endswith(".md"):
                with open(os.path.join(ROOT, dest)) as f:
                    if anchor not in anchors(f.read()):
                        problems.append("%s links %s: %s has no such heading" %
                                        (page, m.group(1), dest))
    readme = docs.get("README.md", "")
    for page in docs:
        if page.startswith("docs" + os.sep) and "](%s" % page.replace(os.sep, "/") not in readme:
            problems.append("README.md does not link %s" % page)
    return problems


def load_docs(readme, folder):
    """README.md and the pages under docs/, by their path from the repository root."""
    paths = [readme] + sorted(os.path.join(folder, n) for n in os.listdir(folder)
                              if n.endswith(".md"))
    docs = {}
    for p in paths:
        with open(p) as f:
            docs[os.path.relpath(p, ROOT)] = f.read()
    return docs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("npusim")
    ap.add_argument("--testbench-dir", help="folder of the C++ testbenches (dma_bandwidth)")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--slow", action="store_true",
                    help="also the slow runs (default when NPU_SLOW_TESTS=1)")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"),
                    help="folder of the pages README.md links (default docs/)")
    ap.add_argument("--figures", default=os.path.join(ROOT, "tests", "readme", "figures.yaml"))
    ap.add_argument("--only", action="append", metavar="RUN",
                    help="check only the figures and blocks of this run (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every figure")
    ap.add_argument("--update", action="store_true",
                    help="write the runs' values into the docs where a figure drifted (the "
                         "checks must still hold; output blocks are left to be edited by hand)")
    args = ap.parse_args()
    slow = args.slow or os.environ.get("NPU_SLOW_TESTS") == "1"
    if not os.access(args.npusim, os.X_OK):
        fail("%s is not an executable" % args.npusim)

    start = time.monotonic()
    data = load_figures(args.figures)
    docs = load_docs(args.readme, args.docs)
    tools = {"npusim": os.path.abspath(args.npusim),
             "python3": sys.executable,
             "dma_bandwidth": (os.path.join(os.path.abspath(args.testbench_dir), "dma_bandwidth")
                               if args.testbench_dir else None)}

    if args.only:
        unknown = [n for n in args.only if n not in data["runs"]]
        if unknown:
            fail("--only: no run %s in %s" % (", ".join(unknown), args.figures))
        data["figures"] = [f for f in data["figures"] if f["run"] in args.only]
        data["blocks"] = [b for b in data.get("blocks", []) if b["run"] in args.only]
        used = set()
        todo = [f["run"] for f in data["figures"]] + [n for f in data["figures"]
                                                      for n in f.get("also", [])]
        todo += [b["run"] for b in data["blocks"]]
        while todo:
            n = todo.pop()
            if n not in used:
                used.add(n)
                todo += data["runs"][n].get("needs", [])
        data["runs"] = {n: spec for n, spec in data["runs"].items() if n in used}

    problems = check_references(list(docs)) + check_links(docs)
    runs = {}
    for name, spec in data["runs"].items():
        spec = dict(spec)
        if spec.get("slow") and not slow:
            spec["skipped"] = True
        runs[name] = Run(name, spec)

    tmp = tempfile.mkdtemp(prefix="npusim-readme-")
    try:
        for name, content in data.get("files", {}).items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w") as f:
                f.write(content.replace("{root}", ROOT).replace("{tmp}", tmp))
        run_all({k: v for k, v in runs.items() if not v.spec.get("skipped")}, tools, tmp,
                max(1, args.jobs))
        checked = skipped = 0
        fixes = [] if args.update else None
        for fig in data["figures"]:
            why = check_figure(fig, runs, docs, fixes)
            label = "%s: %s" % (fig["run"], fig["text"].replace("\n", "\\n"))
            if why == "skipped":
                skipped += 1
            elif why:
                problems.append("figure %s\n    %s" % (label, why))
            else:
                checked += 1
            if args.verbose:
                print("%-8s %s" % ("ok" if why is None else ("skip" if why == "skipped" else "DRIFT"),
                                   label))
        blocks = 0
        for block in data.get("blocks", []):
            why = check_block(block, runs, docs)
            if why == "skipped":
                skipped += 1
            elif why:
                problems.append("block %r\n    %s" % (block["prompt"], why))
            else:
                blocks += 1
            if args.verbose:
                print("%-8s block %s" % ("ok" if why is None else "DRIFT", block["prompt"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if fixes:
        for page, old, new in fixes:
            docs[page] = docs[page].replace(old, new, 1)
        for page in sorted({page for page, _, _ in fixes}):
            with open(os.path.join(ROOT, page), "w") as f:
                f.write(docs[page])
        print("readme figures: updated %d figures in %s; run again to check" %
              (len(fixes), ", ".join(sorted({page for page, _, _ in fixes}))))
    ran = [r for r in runs.values() if not r.spec.get("skipped")]
    print("readme figures: %d figures and %d output blocks agree, %d skipped (slow), "
          "%d excluded; %d runs (%.1f s of runs) in %.1f s" %
          (checked, blocks, skipped, len(data.get("excluded", [])), len(ran),
           sum(r.seconds for r in ran), time.monotonic() - start))
    if args.verbose:
        for r in sorted(ran, key=lambda r: -r.seconds):
            print("  %6.2f s  %s" % (r.seconds, r.name))
    for p in problems:
        print("DRIFT " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Executes notebooks headless (Debian's python3-nbclient and python3-ipykernel) in their
own folders and fails on the first cell that raises, or when a notebook draws no figure.

    run_notebook.py NOTEBOOK.ipynb...

The kernel inherits the environment: PYTHONPATH=BUILD/python runs the build tree's npusim.
Nothing is written back into the notebooks."""

import os
import sys

import nbclient
import nbformat


def run(path):
    # The kernel's debugger warns about frozen modules on stderr otherwise.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        print(f"{path}: a cell failed:\n{e}", file=sys.stderr)
        return False
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    for o in outputs:
        if o.get("output_type") == "stream":
            sys.stdout.write(o.get("text", ""))
    if not figures:
        print(f"{path}: no figure was drawn", file=sys.stderr)
        return False
    print(f"{path}: {len(notebook.cells)} cells ran, {len(figures)} figure(s)")
    return True


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ok = all([run(os.path.abspath(p)) for p in sys.argv[1:]])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

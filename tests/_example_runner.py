"""Run gallery examples one after the other in one interpreter, each as if downloaded alone.

``python _example_runner.py SPEC.json``: SPEC lists, per example, its
script (already copied alone into an empty folder) and a report folder. Each
runs as ``__main__`` with no command-line arguments, in a fresh namespace,
its own folder the working directory. Into the report folder go its standard
output (``stdout.txt``), an exception if any (``error.txt``) and
``result.json``: its wall-clock seconds and the number of figures open when
it ended (read from matplotlib's figure numbers before they are closed).
Its figures are then closed, and the thread limits and warning filters it
set are undone, before the next one. One interpreter for all spares the
start-up and the imports of one per example; the examples must not depend
on one another (a test checks that they import nothing beside them).
"""

import contextlib
import gc
import json
import os
import runpy
import sys
import time
import traceback
import warnings
from pathlib import Path


def run(entry):
    import matplotlib.pyplot as plt
    from threadpoolctl import threadpool_limits

    folder, report = Path(entry["folder"]), Path(entry["report"])
    os.chdir(folder)
    sys.argv = [entry["script"]]
    result = {"seconds": None, "figures": 0}
    start = time.perf_counter()
    with open(report / "stdout.txt", "w") as stdout, contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(stdout))
        stack.enter_context(threadpool_limits(limits=None))  # restores them after
        stack.enter_context(warnings.catch_warnings())
        try:
            runpy.run_path(entry["script"], run_name="__main__")
        except SystemExit as exit:
            if exit.code not in (None, 0):
                raise
        finally:
            result["seconds"] = time.perf_counter() - start
            result["figures"] = len(plt.get_fignums())
            plt.close("all")
            (report / "result.json").write_text(json.dumps(result))
    gc.collect()


def main(spec_path):
    for entry in json.loads(Path(spec_path).read_text()):
        try:
            run(entry)
        except BaseException:  # noqa: BLE001 - reported to the test, next example
            Path(entry["report"], "error.txt").write_text(traceback.format_exc())


if __name__ == "__main__":
    main(sys.argv[1])

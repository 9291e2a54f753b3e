"""Run example scripts one after the other in one interpreter, each as if downloaded alone.

``python _example_runner.py SPEC.json``: SPEC lists, per example, its
script (already copied into a folder of its own), its command-line
arguments and its data folder (``$SKLEARN_SKETCH_DATA``). Each runs as
``__main__`` in a fresh namespace, its folder the working directory, its
standard output written to ``stdout.txt`` there and an exception, if any, to
``error.txt``; its figures are closed, and the thread limits and warning
filters it sets are undone, before the next one. One interpreter for all
spares the start-up and the imports of one per example, a large part of a
quick example's CPU time; the examples must not depend on one another (a
test checks that they import nothing beside them).
"""

import contextlib
import gc
import json
import os
import runpy
import sys
import traceback
import warnings
from pathlib import Path


def run(entry):
    import matplotlib.pyplot as plt
    from threadpoolctl import threadpool_limits

    folder = Path(entry["folder"])
    os.chdir(folder)
    os.environ["SKLEARN_SKETCH_DATA"] = entry["data_home"]
    sys.argv = [entry["script"], *entry["args"]]
    with open(folder / "stdout.txt", "w") as stdout, contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(stdout))
        stack.enter_context(threadpool_limits(limits=None))  # restores them after
        stack.enter_context(warnings.catch_warnings())
        try:
            runpy.run_path(entry["script"], run_name="__main__")
        except SystemExit as exit:
            if exit.code not in (None, 0):
                raise
        finally:
            plt.close("all")
    gc.collect()


def main(spec_path):
    for entry in json.loads(Path(spec_path).read_text()):
        try:
            run(entry)
        except BaseException:  # noqa: BLE001 - reported to the test, next example
            Path(entry["folder"], "error.txt").write_text(traceback.format_exc())


if __name__ == "__main__":
    main(sys.argv[1])

"""What the benchmarks share: timers, thread ceilings, anchors, peak memory, tables.

Not a benchmark itself. A script in this folder imports it as ``_bench``
(the script's folder is first on ``sys.path``), and importing it puts this
source tree ahead of any installed copy, so that ``import sklearn_sketch``
then finds the package of this checkout, installed or not.

The timers run the functions of a dict in turn within each repeat, so that
load from other processes hits all of them alike, and reduce each one's
seconds to their best (``best_times``) or their median (``median_times``).
"""

import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The clocks a timer reads: wall-clock time, the CPU time of the process
#: (all its threads), and the CPU time of the calling thread alone.
CLOCKS = {
    "wall": time.perf_counter,
    "cpu": time.process_time,
    "thread": time.thread_time,
}


def default_data_home():
    """``$SKLEARN_SKETCH_DATA``, else the ``shared/datasets`` folder beside
    the checkout."""
    default = ROOT.parent / "shared" / "datasets"
    return os.environ.get("SKLEARN_SKETCH_DATA") or str(default)


def cpu_model():
    """The processor's name (``/proc/cpuinfo``, else :mod:`platform`'s)."""
    import platform

    info = Path("/proc/cpuinfo")
    for line in info.read_text().splitlines() if info.exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def environment():
    """Two lines for a results file: the machine, and the versions that matter."""
    import platform

    import scipy
    import sklearn

    import sklearn_sketch

    return (
        f"machine: {cpu_model()}, {os.cpu_count()} CPUs, "
        f"{platform.system()} {platform.release()}\n"
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
        f"sklearn-sketch {sklearn_sketch.__version__}\n"
    )


def repeat_times(functions, repeats, clock="wall", limits=None):
    """Seconds of each function at every repeat, the functions run in turn.

    Parameters
    ----------
    functions : dict
        Name -> function of no argument.
    repeats : int
        Rounds; each calls every function once, in the dict's order.
    clock : str or tuple of str, default="wall"
        A key of :data:`CLOCKS`, or several (each call is timed by each).
    limits : dict, optional
        Name -> the most rounds that function takes part in (slow ones).

    Returns
    -------
    times : dict
        Name -> array of seconds, one per round; one column per clock
        where ``clock`` is a tuple.
    """
    names = (clock,) if isinstance(clock, str) else tuple(clock)
    clocks = [CLOCKS[name] for name in names]
    limits = limits or {}
    times = {name: [] for name in functions}
    for repeat in range(repeats):
        for name, function in functions.items():
            if repeat >= limits.get(name, repeats):
                continue
            starts = [read() for read in clocks]
            function()
            times[name].append([read() - start for read, start in zip(clocks, starts)])
    shape = (-1,) if isinstance(clock, str) else (-1, len(clocks))
    return {name: np.array(values).reshape(shape) for name, values in times.items()}


def _reduced(reduce, functions, repeats, clock, limits):
    times = repeat_times(functions, repeats, clock, limits)
    if isinstance(clock, str):
        return {name: float(reduce(values)) for name, values in times.items()}
    return {
        name: tuple(float(v) for v in reduce(values, axis=0))
        for name, values in times.items()
    }


def best_times(functions, repeats, clock="wall", limits=None):
    """Best (least) seconds of each function over the rounds.

    As :func:`repeat_times`; each value is a float, or a tuple of floats
    (one per clock) where ``clock`` is a tuple.
    """
    return _reduced(np.min, functions, repeats, clock, limits)


def median_times(functions, repeats, clock="wall", limits=None):
    """Median seconds of each function over the rounds.

    As :func:`repeat_times`; each value is a float, or a tuple of floats
    (one per clock) where ``clock`` is a tuple.
    """
    return _reduced(np.median, functions, repeats, clock, limits)


def best_time(function, repeats, clock="wall"):
    """Best seconds of one function over ``repeats`` calls."""
    return best_times({None: function}, repeats, clock)[None]


def median_time(function, repeats, clock="wall"):
    """Median seconds of one function over ``repeats`` calls."""
    return median_times({None: function}, repeats, clock)[None]


def in_cache_sines():
    """Twenty ``np.sin`` of 256 KiB into a buffer of its own: compute-bound,
    in a core's cache, releasing the GIL (a maker, for :func:`thread_speedup`)."""
    values = np.random.RandomState(0).rand(2**16).astype(np.float32)
    out = np.empty_like(values)

    def call():
        for _ in range(20):
            np.sin(values, out=out)

    return call


def thread_speedup(make, n_threads, calls):
    """Time of ``n_threads * calls`` calls in one thread over the same in ``n_threads``.

    Each thread calls its own ``make()`` (its own buffers), ``calls`` times.
    """
    function = make()
    function()
    start = time.perf_counter()
    for _ in range(n_threads * calls):
        function()
    one = time.perf_counter() - start

    def work(function):
        for _ in range(calls):
            function()

    threads = [threading.Thread(target=work, args=(make(),)) for _ in range(n_threads)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return one / (time.perf_counter() - start)


def median_speedup(make=in_cache_sines, n_threads=2, calls=20, measurements=5):
    """Median of ``measurements`` of :func:`thread_speedup`.

    With the defaults: the two-thread ceiling of this machine at this
    moment, two threads against one on :func:`in_cache_sines`.
    """
    return float(np.median([
        thread_speedup(make, n_threads, calls) for _ in range(measurements)
    ]))


def rensa_available():
    """Whether rensa (an anchor of the minwise benchmarks) is installed."""
    try:
        import rensa  # noqa: F401
    except ImportError:
        return False
    return True


def rensa_digests(indices, offsets, k, seed=0):
    """rensa's batch MinHash of CSR rows (all cores): the column indices as
    token hashes, flat with row offsets (both uint64), ``k`` hashes a row."""
    from rensa import RMinHash

    return RMinHash.digest_matrix_from_flat_token_hashes(indices, offsets, k, seed)


def nbytes(X):
    """Bytes held by an array or a sparse matrix's arrays."""
    if hasattr(X, "indptr"):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def peak_beyond_output(function):
    """Peak bytes ``tracemalloc`` sees during ``function()``, minus its result's.

    Whatever exists when tracing starts (the input) is not counted; a copy
    of it made by ``function`` is.

    Returns
    -------
    beyond : int
        Bytes.
    output : int
        Bytes of the result.
    seconds : float
        Wall-clock time of ``function()`` (traced, so slower than untraced).
    """
    import tracemalloc

    tracemalloc.start()
    try:
        start = time.perf_counter()
        result = function()
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - nbytes(result), nbytes(result), seconds


def print_table(title, times, anchor=None, rows=None, clock="wall", unit="s",
                speedup=False, scale=None):
    """One line per timing: its seconds and, given an anchor, its ratio to it.

    Parameters
    ----------
    title : str
        The heading of the names' column.
    times : dict
        Name -> seconds, or a tuple of seconds (one per clock).
    anchor : str, optional
        The name the ratios are taken against; None prints no ratio.
    rows : list of str, optional
        The names printed, in order (default: all of ``times``).
    clock : str or tuple of str, default="wall"
        The clock of each value (column headings), as the timers take it.
    unit : {"s", "ms"}, default="s"
    speedup : bool, default=False
        Print ``anchor / row`` (times faster) instead of ``row / anchor``.
    scale : dict, optional
        Name -> factor its seconds are multiplied by (a timing on a part of
        the input, scaled to the whole), shown beside the name.
    """
    clocks = (clock,) if isinstance(clock, str) else tuple(clock)
    rows, scale = list(rows or times), scale or {}
    factor = 1e3 if unit == "ms" else 1.0

    def seconds(name):
        values = (times[name],) if isinstance(clock, str) else times[name]
        return [value * scale.get(name, 1) for value in values]

    labels = {
        name: name + (f" (x{scale[name]:g})" if scale.get(name, 1) != 1 else "")
        for name in rows
    }
    width = max(len(title), *map(len, labels.values()))
    kind = "speed-up" if speedup else "ratio"
    header = "".join(f" {c + ' ' + unit:>9s}" for c in clocks)
    if anchor is not None:
        header += "".join(f" {kind + ' ' + c:>14s}" for c in clocks)
    print(f"{title:{width}s}{header}")
    for name in rows:
        line = "".join(f" {value * factor:9.3f}" for value in seconds(name))
        if anchor is not None:
            pairs = zip(seconds(name), seconds(anchor))
            ratios = [ref / value if speedup else value / ref for value, ref in pairs]
            line += "".join(f" {ratio:14.2f}" for ratio in ratios)
        print(f"{labels[name]:{width}s}{line}")


def print_rows(headers, rows, header=True):
    """Rows of values as a Markdown table, the headings first when ``header``.

    Parameters
    ----------
    headers : list of str
    rows : list of list
        One list of values per line, printed with ``str``.
    header : bool, default=True
        Whether to print the headings and the separator line first.
    """
    if header:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" for _ in headers) + "|")
    for values in rows:
        print("| " + " | ".join(str(value) for value in values) + " |")

"""The versions of Python, the dependencies and the BLAS in use, for bug reports."""

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

import threadpoolctl

# The distributions sklearn-sketch requires (pyproject.toml's dependencies).
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "joblib", "threadpoolctl", "numba")


def _sys_info():
    """Python's version, its executable and the platform."""
    return {
        "python": sys.version.replace("\n", " "),
        "executable": sys.executable,
        "machine": platform.platform(),
    }


def _deps_info():
    """The versions of sklearn-sketch and of its dependencies (None: not installed)."""
    from .. import __version__

    info = {"sklearn-sketch": __version__}
    for name in DEPENDENCIES:
        try:
            info[name] = version(name)
        except PackageNotFoundError:
            info[name] = None
    return info


def _print_info(info):
    """``key: value`` lines, the keys aligned right."""
    width = max(map(len, info), default=0)
    for key, value in info.items():
        print(f"{key:>{width + 4}}: {value}")


def show_versions():
    """Print the versions of Python, of the dependencies and the BLAS in use.

    The information to paste into a bug report: the Python and platform, the
    versions of sklearn-sketch and of the packages it requires, and each
    native thread pool loaded in the process (the BLAS of NumPy and SciPy,
    OpenMP), as :func:`threadpoolctl.threadpool_info` reports them.

    Examples
    --------
    >>> from sklearn_sketch import show_versions
    >>> show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
    ...
    Python dependencies:
        sklearn-sketch: ...
    ...
    threadpoolctl info:
    ...
    """
    print("\nSystem:")
    _print_info(_sys_info())
    print("\nPython dependencies:")
    _print_info(_deps_info())
    print("\nthreadpoolctl info:")
    for number, pool in enumerate(threadpoolctl.threadpool_info()):
        if number:
            print()
        _print_info(pool)

"""The repository's files that some tests read, and the skip where they are absent.

The suite runs from a checkout or an unpacked sdist, and also from a folder
holding only ``tests/``, against the installed package, as distributions and
CI images run it. There the tests that read the repository's other files
(``pyproject.toml``, ``README.md``, ``tools/``, ``docs/``, ``examples/``,
``benchmarks/``) are skipped, and the summary (``pytest -ra``) says which
file each one needed.
"""

import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def repository_path(*parts, module=False):
    """``ROOT/parts``; skip the test (or the module) where it does not exist.

    Parameters
    ----------
    *parts : str
        The path inside the repository, e.g. ``"tools", "import_levels.py"``.
    module : bool, default=False
        Skip the whole module (call at import time) instead of one test.

    Returns
    -------
    path : pathlib.Path
    """
    path = ROOT.joinpath(*parts)
    if not path.exists():
        # The summary shows this line as the skip's place: name the module.
        caller = Path(inspect.currentframe().f_back.f_code.co_filename).name
        pytest.skip(
            f"{caller} needs {'/'.join(parts)} of the repository (run from a "
            "checkout or the unpacked sdist; here only tests/ is at hand)",
            allow_module_level=module,
        )
    return path

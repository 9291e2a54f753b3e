"""Rules every compiled kernel of the package keeps (numba).

* ``import sklearn_sketch`` neither imports numba nor compiles anything;
* numba is used by kernel modules only (``_kernels.py`` or
  ``_<concern>_kernels.py``), through ``utils._numba.kernel``;
* a kernel never calls a compiled function of another module: numba decides
  whether a cached compile is stale from the caller's file alone, so such a
  call would keep running the old callee after the callee's module changed;
* every kernel releases the GIL, caches its compile, and asks for neither
  ``parallel`` nor ``fastmath``;
* where numba can write no cache at all, the kernels still run (uncached,
  with one warning), and with ``SKLEARN_SKETCH_KERNEL_CACHE=0`` they do not
  cache.
"""

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_sketch"
pytestmark = pytest.mark.skipif(
    not (PACKAGE / "__init__.py").is_file(), reason="needs the package's source tree"
)


def _module_name(path):
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(relative.parts)


def _imports(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
    return names


def _is_kernel_module(path):
    return path.name == "_kernels.py" or path.name.endswith("_kernels.py")


def kernel_modules():
    return sorted(path for path in PACKAGE.rglob("*.py") if _is_kernel_module(path))


def test_import_neither_imports_numba_nor_compiles():
    # Then each kernel compiles at its first use, and only the kernels used.
    code = (
        "import sys, numpy as np, sklearn_sketch\n"
        "from sklearn_sketch import *\n"
        "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.')"
        " or m.endswith('_kernels')))\n"
        "from sklearn_sketch.metrics import _kernels as m, min_max_kernel\n"
        "from sklearn_sketch.utils import _count_sketch_kernels as c\n"
        "loops = (m.scale_rows, m.min_max_rows, m.core_rows, c._scatter_dense_tables)\n"
        "assert not any(f.signatures for f in loops)\n"
        "min_max_kernel([[1.0, 2.0]])\n"
        "assert m.min_max_rows.signatures and not m.core_rows.signatures\n"
        "TensorSketch(8).fit_transform(np.eye(3))\n"
        "assert c._scatter_dense_tables.signatures and not c._scatter_csr_tables.signatures\n"
    )
    out = _run(code)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_numba_is_used_by_kernel_modules_only():
    for path in PACKAGE.rglob("*.py"):
        imports = _imports(path)
        uses_numba = any(name == "numba" or name.startswith("numba.") for name in imports)
        uses_decorator = any(name.endswith("_numba") for name in imports)
        if path.name == "_numba.py":
            continue
        assert not uses_numba, f"{path.name} imports numba: use utils._numba.kernel in a kernel module"
        if uses_decorator:
            assert _is_kernel_module(path), f"{path.name} compiles kernels but is not *_kernels.py"


@pytest.mark.parametrize("path", kernel_modules(), ids=lambda path: _module_name(path))
def test_kernels_call_compiled_functions_of_their_own_module_only(path):
    from numba.core.registry import CPUDispatcher

    module = importlib.import_module(_module_name(path))
    dispatchers = {
        name: value for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
    }
    assert dispatchers, f"{path.name} defines no kernel"
    for name, dispatcher in dispatchers.items():
        for global_name in dispatcher.py_func.__code__.co_names:
            callee = vars(module).get(global_name)
            if isinstance(callee, CPUDispatcher):
                assert callee.py_func.__module__ == module.__name__, (
                    f"{name} calls {global_name} of {callee.py_func.__module__}"
                )
        options = dispatcher.targetoptions
        assert options.get("nogil") is True, name
        assert not options.get("parallel"), name
        assert not options.get("fastmath"), name
        assert type(dispatcher._cache).__name__ == "FunctionCache", f"{name} is not cached"


def _run(code, **env):
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code], capture_output=True, text=True,
        env={**os.environ, **env}, timeout=300,
    )


_FIRST_KERNEL = (
    "import numpy as np, scipy.sparse as sp\n"
    "from sklearn_sketch.metrics import min_max_kernel\n"
    "X = sp.random(20, 50, density=0.2, format='csr', random_state=0)\n"
    "print(float(min_max_kernel(X).sum()))\n"
)


@pytest.mark.slow
def test_kernels_run_uncached_where_no_cache_folder_can_be_written():
    # numba finds no cache locator at all: simulated by emptying its list.
    code = (
        "import numba.core.caching as caching\n"
        "caching.CacheImpl._locator_classes = []\n" + _FIRST_KERNEL
        + "from sklearn_sketch.metrics import _kernels\n"
        "print(type(_kernels.min_max_rows._cache).__name__)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.count("compiles its kernels without a cache") == 1
    assert result.stdout.split()[-1] == "NullCache"
    # The same value as the cached kernel of this process gives.
    reference = {}
    exec(_FIRST_KERNEL.replace("print(", "value = (", 1), reference)
    assert result.stdout.split()[0] == str(reference["value"])


@pytest.mark.slow
def test_cache_can_be_turned_off(tmp_path):
    code = _FIRST_KERNEL + (
        "from sklearn_sketch.metrics import _kernels\n"
        "print(type(_kernels.min_max_rows._cache).__name__)\n"
    )
    result = _run(code, SKLEARN_SKETCH_KERNEL_CACHE="0", NUMBA_CACHE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-1] == "NullCache"
    assert not list(tmp_path.rglob("*.nbi"))


_GRID_SEARCH = """
import numpy as np, scipy.sparse as sp
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
import sklearn_sketch as sk
rng = np.random.RandomState(0)
X = sp.csr_matrix((rng.rand(120, 40) * (rng.rand(120, 40) < 0.3)).astype(np.float32))
y = (X.sum(axis=1).A1 > np.median(X.sum(axis=1).A1)).astype(int)
model = Pipeline([("sketch", sk.TensorSketch(random_state=0)), ("svc", LinearSVC())])
grid = {"sketch__n_components": [16, 32]}
search = GridSearchCV(model, grid, cv=2, n_jobs=2).fit(X, y)
scores = search.cv_results_["mean_test_score"]
serial = GridSearchCV(model, grid, cv=2, n_jobs=1).fit(X, y)
assert np.array_equal(scores, serial.cv_results_["mean_test_score"])
print(np.round(scores, 12).tolist())
"""


def _read_only_copy(root):
    import shutil
    import stat

    target = root / "site" / "sklearn_sketch"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [target, *target.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return target.parent


@pytest.mark.slow
def test_grid_search_in_processes_compiling_at_once_into_an_empty_cache(tmp_path):
    # The two loky workers of the search compile the same kernels of two
    # modules (hashing, Count Sketch) at the same time into one empty cache,
    # from a read-only install, and score as one process does. (Which modules
    # matters little: numba writes every module's cache the same way; these
    # two compile fastest.)
    site = _read_only_copy(tmp_path)
    try:
        result = subprocess.run(
            [sys.executable, "-c", _GRID_SEARCH], cwd=site, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(site), "NUMBA_CACHE_DIR": str(tmp_path / "cache")},
            timeout=600,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert list((tmp_path / "cache").rglob("*.nbi"))
        if getattr(os, "geteuid", lambda: 1)() != 0:  # root writes through read-only modes
            assert not list(site.rglob("__pycache__/*.nbi"))
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)


def test_dart_kernels_mixer_is_the_package_splitmix64_finalizer():
    # DartMinHash's kernel module carries its own copy of SplitMix64's
    # finalizer (a kernel calls compiled functions of its own module only);
    # it must stay the function utils._hashing.mix64 computes.
    import numpy as np

    from sklearn_sketch.minwise._dart_kernels import _mix
    from sklearn_sketch.utils._hashing import mix64

    words = np.random.RandomState(0).randint(0, 2**63, size=200, dtype=np.int64)
    words = np.concatenate([words.astype(np.uint64) * np.uint64(2) + np.uint64(1),
                            np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
    expected = mix64(words.copy())
    assert [int(_mix(w)) for w in words] == [int(v) for v in expected]


_FIRST_USE = """
import json, sys
from collections import Counter
import numpy as np
from numba.core import event
sys.path.insert(0, TESTS_FOLDER)
from conftest import ESTIMATOR_REGISTRY, legal_input, make_estimator

compiled = Counter()

class Listener(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        compiled[function.__module__ + "." + function.__qualname__] += 1

    def on_end(self, ev):
        pass

event.register("numba:compile", Listener())
X = np.random.RandomState(0).rand(40, 12)
uses = {}
for name in sorted(ESTIMATOR_REGISTRY):
    compiled.clear()
    make_estimator(name).fit_transform(legal_input(name, X))
    uses[name] = dict(compiled)
print(json.dumps(uses))
"""


@pytest.mark.slow
def test_first_use_compiles_each_kernel_once_and_no_error_formatting(tmp_path):
    # What a first use compiles is the time it takes: every estimator and
    # option of the registry in turn, dense float64 input, an empty cache.
    # Rules:
    # * a first use compiles each kernel of the package it needs once (one
    #   signature: a literal argument, or keys of another dtype, compiled
    #   a kernel twice);
    # * no kernel makes numba compile the formatting of an error message
    #   (an array assigned to a slice or a row compiles str and repr of
    #   its shape: seconds of first use); numba's own overloads of
    #   allocation and arithmetic are fine.
    import json

    code = _FIRST_USE.replace("TESTS_FOLDER", repr(str(Path(__file__).resolve().parent)))
    result = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    uses = json.loads(result.stdout.strip().splitlines()[-1])
    assert any(uses.values()), uses
    twice = {
        use: {name: n for name, n in compiled.items()
              if name.startswith("sklearn_sketch.") and n > 1}
        for use, compiled in uses.items()
    }
    assert {use: names for use, names in twice.items() if names} == {}
    formatting = [
        name for compiled in uses.values() for name in compiled
        if name.startswith("numba.cpython.unicode")
        or any(part in name for part in (
            "raise_with_shape_context", "ol_str_generic", "ol_repr_generic"
        ))
    ]
    assert formatting == [], formatting

"""The compiled DartMinHash kernel (numba, ``cache=True``) where its cache is hard to write.

A read-only install (no ``__pycache__`` beside the module) and several
processes compiling at once into one empty cache must all give the same
samples, with no error.
"""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_sketch"
SCRIPT = """
import numpy as np, scipy.sparse as sp
from sklearn_sketch.minwise._cws import dart_samples
X = sp.random(30, 200, density=0.1, format="csr", random_state=0)
X.data += 0.1
positions, keys = dart_samples(X.indices, X.data, X.indptr, 3, 16)
print(int(positions.sum()), int(keys.sum()))
"""


def _read_only_copy(root):
    target = root / "site" / "sklearn_sketch"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [target, *target.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return target.parent


def _run_all(site, environments):
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT], cwd=site, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(site), **env},
        )
        for env in environments
    ]
    return [process.communicate(timeout=300) + (process.returncode,) for process in processes]


@pytest.mark.slow
def test_kernel_runs_from_a_read_only_install_and_concurrent_compiles(tmp_path):
    site = _read_only_copy(tmp_path)
    try:
        cache = tmp_path / "numba_cache"
        environments = [{"NUMBA_CACHE_DIR": str(cache)}] * 2 + [
            {"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
        ]
        results = _run_all(site, environments)
        for out, err, code in results:
            assert code == 0, err[-2000:]
        assert len({out for out, _, _ in results}) == 1
        if getattr(os, "geteuid", lambda: 1)() != 0:  # root writes through read-only modes
            assert not list(site.rglob("__pycache__/*.nbi"))
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)

"""CoREHasher's compiled kernels (numba, ``cache=True``) where a cache is hard to write.

A read-only install (no ``__pycache__`` beside the modules) and several
processes compiling at once into one empty cache must all give the same
features, with no error.
"""

import os
import stat
import subprocess
import sys

import pytest
from test_cws_kernel_cache import _read_only_copy

SCRIPT = """
import hashlib
import numpy as np, scipy.sparse as sp
from sklearn_sketch import CoREHasher
X = sp.random(40, 300, density=0.1, format="csr", random_state=0, dtype=np.float32)
digest = hashlib.sha256()
for hashing in ("oph", "minwise"):
    Z = CoREHasher(16, kernel="core2", hashing=hashing, random_state=0).fit_transform(X)
    digest.update(Z.indices.tobytes() + Z.data.tobytes())
print(digest.hexdigest())
"""


@pytest.mark.slow
def test_kernels_run_from_a_read_only_install_and_concurrent_compiles(tmp_path):
    site = _read_only_copy(tmp_path)
    try:
        cache = tmp_path / "numba_cache"
        environments = [{"NUMBA_CACHE_DIR": str(cache)}] * 2 + [
            {"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
        ]
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", SCRIPT], cwd=site, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(site), **env},
            )
            for env in environments
        ]
        results = [p.communicate(timeout=300) + (p.returncode,) for p in processes]
        for out, err, code in results:
            assert code == 0, err[-2000:]
        assert len({out for out, _, _ in results}) == 1
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)

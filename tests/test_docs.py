"""The documentation builds with warnings as errors (gallery on quick settings)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="documentation tools not installed (pip install '.[docs]')")
    pytest.importorskip("sphinx_gallery")
    pytest.importorskip("numpydoc")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += [str(DOCS_DIR), str(tmp_path / "html")]
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    html = (tmp_path / "html" / "api.html").read_text()
    import sklearn_sketch
    import sklearn_sketch.metrics

    public = [name for name in sklearn_sketch.__all__ if not name.startswith("_")]
    public += ["core_kernel", "resemblance_kernel"]
    missing = [name for name in public if name not in html]
    assert not missing, f"public names missing from the API reference: {missing}"
    for page in ("tensor_sketch", "core_hasher", "kernel_jl"):
        assert (tmp_path / "html" / "user_guide" / f"{page}.html").is_file()

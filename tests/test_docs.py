"""The documentation builds with warnings as errors (gallery on quick settings)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

DOCS_DIR = Path(__file__).resolve().parents[1] / "docs"


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
    assert "TensorSketch" in html

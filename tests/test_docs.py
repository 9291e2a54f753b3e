"""The documentation builds with warnings as errors, and documents the whole API.

The gallery is not executed here (``-D plot_gallery=0``): CI builds the
documentation with the README's command on a clean clone, examples included,
and ``tests/test_examples.py`` runs every example.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _checkout import repository_path

import sklearn_sketch

# A Sphinx build (without the gallery) takes tens of seconds.
pytestmark = pytest.mark.slow

DOCS_DIR = repository_path("docs", "conf.py", module=True).parent
# The estimators; the other public names are functions.
ESTIMATORS = [
    name for name in sklearn_sketch.__all__
    if not name.startswith("_") and isinstance(getattr(sklearn_sketch, name), type)
]


def public_methods(cls):
    return sorted(
        name for name in dir(cls) if not name.startswith("_") and callable(getattr(cls, name))
    )


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    pytest.importorskip("sphinx", reason="documentation tools not installed (pip install '.[docs]')")
    pytest.importorskip("sphinx_gallery")
    pytest.importorskip("numpydoc")
    out = tmp_path_factory.mktemp("docs") / "html"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-D", "plot_gallery=0", str(DOCS_DIR), str(out)]
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return out


def test_docs_build_without_warnings(html):
    api = (html / "api.html").read_text()
    public = [name for name in sklearn_sketch.__all__ if not name.startswith("_")]
    public += ["core_kernel", "resemblance_kernel"]
    missing = [name for name in public if name not in api]
    assert not missing, f"public names missing from the API reference: {missing}"
    for page in ("tensor_sketch", "core_hasher", "kernel_jl", "polynomial_sketches"):
        assert (html / "user_guide" / f"{page}.html").is_file()


@pytest.mark.parametrize("name", ESTIMATORS)
def test_api_page_documents_every_public_method(html, name):
    """Inherited methods (fit_transform, set_output, ...) included."""
    page = (html / "generated" / f"sklearn_sketch.{name}.html").read_text()
    documented = set(re.findall(rf'id="sklearn_sketch\.{name}\.(\w+)"', page))
    cls = getattr(sklearn_sketch, name)
    assert {"fit", "transform", "fit_transform", "get_feature_names_out", "set_output"} <= set(
        public_methods(cls)
    )
    missing = sorted(set(public_methods(cls)) - documented)
    assert not missing, f"{name}: methods without documentation: {missing}"


def test_intersphinx_maps_the_projects_we_cite():
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS_DIR / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    mapping = conf.intersphinx_mapping
    assert {"python", "numpy", "scipy", "sklearn", "joblib", "dask"} <= set(mapping)
    for url, locations in mapping.values():
        assert url.startswith("https://") and url.endswith("/")
        # The web inventory first, an empty local one when offline.
        assert locations[0] is None and Path(locations[1]).is_file()


def test_math_renders_offline(html):
    """MathJax comes with the pages, not from a CDN: an offline reader sees math."""
    page = (html / "user_guide" / "tensor_sketch.html").read_text()
    scripts = re.findall(r'<script[^>]*src="([^"]*mathjax[^"]*)"', page, re.I)
    assert scripts and not any(src.startswith(("http:", "https:", "//")) for src in scripts)
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()


@pytest.mark.parametrize("name", ESTIMATORS)
def test_api_page_links_source_and_examples(html, name):
    page = (html / "generated" / f"sklearn_sketch.{name}.html").read_text()
    assert "viewcode-link" in page, f"{name}: no [source] link"
    if name != "BaseSketch":
        assert "Examples using" in page and "sphx-glr-thumbcontainer" in page, (
            f"{name}: no 'Examples using {name}' mini-gallery"
        )


def test_landing_page_says_which_estimator(html):
    page = (html / "index.html").read_text()
    public = [n for n in ESTIMATORS if n != "BaseSketch"]
    missing = [n for n in public if f"sklearn_sketch.{n}.html" not in page]
    assert not missing, f"the landing page's table does not link {missing}"
    text = re.sub(r"<[^>]+>", "", page)
    # Nothing is released yet: the install is from a checkout.
    assert "pip install ." in text and "pip install sklearn-sketch" not in text

"""Sphinx configuration of the sklearn-sketch documentation.

Build locally with ``python -m sphinx -W -b html docs docs/_build/html`` (after
``pip install ".[docs]"``). The gallery executes only the main example unless
``SKLEARN_SKETCH_GALLERY=all`` is set; every example runs in the test suite
in its quick mode anyway.
"""

import os
import sys
from pathlib import Path

import sklearn_sketch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))  # examples import their siblings

project = "sklearn-sketch"
author = "sklearn-sketch developers"
copyright = "2026, sklearn-sketch developers"
release = sklearn_sketch.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
autosummary_generate = True
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
suppress_warnings = ["config.cache"]  # sphinx-gallery's callable config cannot be pickled

html_theme = "pydata_sphinx_theme" if os.environ.get("SKLEARN_SKETCH_DOCS_THEME", "1") != "0" else "alabaster"
html_title = "sklearn-sketch"
html_theme_options = {"navigation_with_keys": False}


def _gallery_argv(script_name, gallery_conf):
    """Run the examples on their quick settings, writing into the build folder."""
    output_dir = ROOT / "docs" / "_build" / "example_output"
    return ["--quick", "--output-dir", str(output_dir)]


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": ".*" if os.environ.get("SKLEARN_SKETCH_GALLERY") == "all" else "reproduce_tables",
    "ignore_pattern": r"__init__\.py|_common\.py",
    "reset_argv": _gallery_argv,
    "download_all_examples": False,
    "plot_gallery": "True",
    "remove_config_comments": True,
}

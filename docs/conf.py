"""Sphinx configuration of the sklearn-sketch documentation.

Build locally with ``python -m sphinx -W -b html docs docs/_build/html`` (after
``pip install ".[docs]"``). The gallery executes every example as a reader
runs it (no options; the digits bundled with scikit-learn or generated data,
seconds each). ``-D plot_gallery=0`` skips the examples.
"""

import os
import re
import sys
import tempfile
import zlib
from pathlib import Path

# The GPU example runs scikit-learn's array API dispatch (on torch or
# array_api_strict, whichever is installed), which needs SciPy's array API
# mode set before SciPy is first imported: here, before sklearn_sketch is.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from docutils import nodes  # noqa: E402
from sphinx.directives.patches import Figure  # noqa: E402
from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402

import sklearn_sketch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

project = "sklearn-sketch"
author = "sklearn-sketch developers"
copyright = "2026, sklearn-sketch developers"
release = sklearn_sketch.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",  # [source] links on the API pages
    "sphinx-mathjax-offline",  # MathJax served with the pages: math renders offline
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",  # the changelog page includes CHANGELOG.md
    "matplotlib.sphinxext.plot_directive",  # figures drawn from committed data
]

# ``.. plot::`` figures (the "Choosing a sketch" page): the plotting code is in
# docs/plots/ (imported as ``plots.<module>``) and reads the CSV files of
# benchmarks/results/; one PNG each, no links to other formats or to the code.
sys.path.insert(0, str(Path(__file__).resolve().parent))
plot_formats = [("png", 100)]
plot_html_show_formats = False
plot_html_show_source_link = False
plot_include_source = False

templates_path = ["_templates"]
# The page's table of contents lists "fit()", not "CoREHasher.fit()": the
# class's name, repeated on every entry, pushed the method names off the
# sidebar's edge.
toc_object_entries_show_parents = "hide"
autosummary_generate = True
# Every public method, the ones inherited from scikit-learn's mixins included
# (fit_transform, set_output, get_params, ...): see _templates/class.rst.
autodoc_default_options = {"members": True, "inherited-members": True}
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
suppress_warnings = ["config.cache"]  # sphinx-gallery's callable config cannot be pickled


def _empty_inventory():
    """Path of an empty intersphinx inventory: the offline fallback."""
    path = Path(tempfile.gettempdir()) / "sklearn-sketch-docs-empty-objects.inv"
    header = b"# Sphinx inventory version 2\n# Project: none\n# Version: 0\n"
    content = header + b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(b"")
    if not path.is_file() or path.read_bytes() != content:
        # Written whole, then renamed: concurrent builds never read half a file.
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            f.write(content)
        os.chmod(f.name, 0o644)
        os.replace(f.name, path)
    return str(path)


# References to these projects become links to their documentation. Each
# inventory is fetched from the web; offline (no network, as in some CI
# sandboxes) intersphinx falls back to an empty inventory, which it reports
# as information rather than a warning, so ``-W`` still passes and the
# references render as plain text.
_EMPTY_INVENTORY = _empty_inventory()
intersphinx_mapping = {
    name: (url, (None, _EMPTY_INVENTORY))
    for name, url in {
        "python": "https://docs.python.org/3/",
        "numpy": "https://numpy.org/doc/stable/",
        "scipy": "https://docs.scipy.org/doc/scipy/",
        "sklearn": "https://scikit-learn.org/stable/",
        "joblib": "https://joblib.readthedocs.io/en/stable/",
        "dask": "https://docs.dask.org/en/stable/",
    }.items()
}
intersphinx_timeout = 10

html_theme = "pydata_sphinx_theme" if os.environ.get("SKLEARN_SKETCH_DOCS_THEME", "1") != "0" else "alabaster"
html_title = "sklearn-sketch"
REPOSITORY = "https://github.com/sklearn-sketch/sklearn-sketch"
html_theme_options = {
    "navigation_with_keys": False,
    "icon_links": [
        {"name": "GitHub", "url": REPOSITORY, "icon": "fa-brands fa-github", "type": "fontawesome"},
    ],
    "header_links_before_dropdown": 8,
    # The search as an icon: with eight sections, its field pushed the
    # header onto a second line at 1400 px.
    "navbar_persistent": ["search-button"],
}
# The pages without subpages show the site's pages on the left, where the
# theme's section navigation would be empty; the landing page needs none.
html_sidebars = {
    "index": [],
    "install": ["sidebar-site-nav"],
    "benchmarks": ["sidebar-site-nav"],
    "changelog": ["sidebar-site-nav"],
    "contributing": ["sidebar-site-nav"],
}
html_static_path = ["_static"]
html_css_files = ["custom.css"]  # wider article, wrapped program output


# The gallery's subsections (one folder of examples/ per task), in reading
# order; each folder's README.txt gives its title.
SUBSECTION_ORDER = ["polynomial", "hashing", "rbf", "sizing", "clustering", "large_data", "gpu"]
# The examples of each subsection in reading order (the full-size reproductions
# of the papers' tables are command-line programs in scripts/, outside it).
EXAMPLE_ORDER = [
    "plot_tensor_sketch_svm.py",
    "plot_polynomial_sketches.py",
    "plot_core_hasher_svm.py",
    "plot_core_hasher_variance.py",
    "plot_min_max_hasher.py",
    "plot_rbf_features.py",
    "plot_auto_n_components.py",
    "plot_kernel_jl_clustering.py",
    "plot_kernel_jl_pca.py",
    "plot_out_of_core.py",
    "plot_dask.py",
    "plot_gpu.py",
]


def _peak_memory(func):
    """``(peak resident memory in MB while func runs, its result)``.

    The gallery's timing page shows the peak less the memory at the
    example's start. Linux resets the process's peak through
    ``/proc/self/clear_refs``; elsewhere the peak since the build started
    stands in, and the column reads 0 where that was reached earlier.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    result = func()
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024, result  # kB
    except OSError:
        pass
    import resource

    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, kB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20, result


class ExampleOrder:
    """Sort key within a subsection: EXAMPLE_ORDER, then any other example by name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        rank = EXAMPLE_ORDER.index(filename) if filename in EXAMPLE_ORDER else len(EXAMPLE_ORDER)
        return (rank, filename)

    def __repr__(self):
        return "ExampleOrder"


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": ".*",  # execute every example
    "ignore_pattern": r"__init__\.py",
    # sphinx-gallery names each section by its path from this folder.
    "subsection_order": ExplicitOrder([f"../examples/{name}" for name in SUBSECTION_ORDER]),
    "within_subsection_order": ExampleOrder,
    # "Examples using X" at the end of each API page.
    "doc_module": ("sklearn_sketch",),
    "backreferences_dir": "generated/backreferences",
    # Figures of a cell one below the other, each at full width.
    "image_scrapers": ("matplotlib",),
    "download_all_examples": False,
    "plot_gallery": "True",
    "remove_config_comments": True,
    # The timing page's "Mem (MB)" column: each example's peak memory.
    "show_memory": _peak_memory,
}


_TITLED_REF = re.compile(r":ref:`([^`<]*)<([^`>]+)>`")  # :ref:`title <label>`
_BARE_REF = re.compile(r":ref:`([^`<>]+)`")  # :ref:`label`


def _point_inherited_refs_to_sklearn(app, what, name, obj, options, lines):
    """Send the ``:ref:`` of docstrings inherited from scikit-learn to its docs.

    ``set_output`` and ``get_metadata_routing`` come from scikit-learn's
    mixins, and their docstrings cite labels of scikit-learn's user guide.
    """
    if not getattr(obj, "__module__", "").startswith("sklearn."):
        return
    for i, line in enumerate(lines):
        line = _TITLED_REF.sub(r":ref:`\1<sklearn:\2>`", line)
        lines[i] = _BARE_REF.sub(r":ref:`sklearn:\1`", line)


def _plain_text_when_offline(app, env, node, contnode):
    """A scikit-learn label that no loaded inventory resolves: plain text.

    Runs after intersphinx (priority 900), so only when the scikit-learn
    inventory could not be fetched (offline builds).
    """
    if node.get("reftype") == "ref" and node.get("reftarget", "").startswith("sklearn:"):
        return contnode
    return None


class GalleryFigure(Figure):
    """``.. gallery-figure:: sphx_glr_<example>_<n>.png``: a gallery figure.

    The user guide shows figures that the gallery's examples draw, so that
    each build draws them again from the code. Where the examples did not
    run (``-D plot_gallery=0``, as the test suite builds), the figure is not
    there, and a line says so instead of a broken image and a warning.
    """

    def run(self):
        name = self.arguments[0]
        gallery = Path(self.state.document.settings.env.srcdir) / "auto_examples"
        # Each task's folder of the gallery keeps its figures in its images/.
        found = sorted(gallery.glob(f"**/images/{name}"))
        if not found:
            text = f"(Figure {name}: drawn when the gallery's examples run.)"
            return [nodes.paragraph(text=text)]
        self.arguments[0] = "/" + found[0].relative_to(gallery.parent).as_posix()
        return super().run()


def setup(app):
    app.add_directive("gallery-figure", GalleryFigure)
    app.connect("autodoc-process-docstring", _point_inherited_refs_to_sklearn)
    app.connect("missing-reference", _plain_text_when_offline, priority=900)

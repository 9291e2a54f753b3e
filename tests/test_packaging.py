"""The package can be installed, tested from its sdist, and cited.

Rules checked here: private scikit-learn names are imported in one module
only; the version has one source; the license is declared as an SPDX
expression and shipped; the sdist carries every file the test suite, the
examples and the documentation build need; the Python classifiers match
``requires-python``; CI's minimum-versions run pins the floors pyproject
declares; CITATION.cff is valid CFF 1.2.0, has the package's version and
cites every paper the estimators' and kernels' docstrings cite; pyproject
names the project's pages.

The checks of the source read the imported package (installed or checked
out); those of the repository's files skip where only ``tests/`` is at hand.
"""

import ast
import inspect
import os
import re
from pathlib import Path

import pytest
from _checkout import ROOT, repository_path

import sklearn_sketch
import sklearn_sketch.metrics

PACKAGE = Path(sklearn_sketch.__file__).resolve().parent
COMPAT = PACKAGE / "utils" / "_compat.py"

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _pyproject():
    return tomllib.loads(repository_path("pyproject.toml").read_text())


def _private_sklearn_imports(path):
    """(line, statement) of every import of a private scikit-learn name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names = []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "sklearn":
                continue
            if any(part.startswith("_") for part in parts[1:]) or any(
                name.startswith("_") for name in names
            ):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_private_sklearn_imports_only_in_compat():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): hits
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != COMPAT and (hits := _private_sklearn_imports(path))
    }
    assert not offenders, (
        f"import private scikit-learn names through sklearn_sketch.utils._compat: {offenders}"
    )


def test_the_private_import_check_sees_every_form(tmp_path):
    # The rule above is only as good as its detector: each form is caught,
    # public imports and relative imports are not.
    source = tmp_path / "module.py"
    source.write_text(
        "import sklearn.utils._tags\n"
        "from sklearn.utils._param_validation import Interval\n"
        "from sklearn.base import (\n    BaseEstimator,\n    _fit_context,\n)\n"
        "from sklearn.utils.validation import check_is_fitted\n"
        "from ._private import _helper\n"
        "import numpy._core\n"
    )
    assert [line for line, _ in _private_sklearn_imports(source)] == [1, 2, 3]
    assert _private_sklearn_imports(COMPAT), "_compat.py imports no private name"


def test_version_has_one_source():
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    dynamic = _pyproject()["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "sklearn_sketch.__version__"}
    version = pytest.importorskip("packaging.version")
    assert str(version.Version(sklearn_sketch.__version__)) == sklearn_sketch.__version__


def test_license_is_spdx_and_shipped():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    text = repository_path("LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License") and "sklearn-sketch developers" in text
    # A license classifier beside an SPDX expression is refused by setuptools.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    build_requires = _pyproject()["build-system"]["requires"]
    floor = re.fullmatch(r"setuptools>=(\d+).*", build_requires[0])
    assert floor and int(floor.group(1)) >= 77, "SPDX license strings need setuptools 77"


def test_python_classifiers_match_requires_python():
    project = _pyproject()["project"]
    low = int(re.fullmatch(r">=3\.(\d+)", project["requires-python"]).group(1))
    minors = sorted(
        int(c.rsplit(".", 1)[1])
        for c in project["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert minors and minors[0] == low
    assert minors == list(range(low, minors[-1] + 1)), "a gap in the Python classifiers"


def _sdist_files(root=None):
    """The files MANIFEST.in of ``root`` (the repository) puts in the sdist, package aside."""
    root = repository_path("MANIFEST.in").parent if root is None else root
    filelist = pytest.importorskip("setuptools.command.egg_info").FileList()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for line in (root / "MANIFEST.in").read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                filelist.process_template_line(line)
    finally:
        os.chdir(cwd)
    return {Path(name).as_posix() for name in filelist.files}


# Folders written by the documentation build, the examples and Python.
_GENERATED = {"_build", "auto_examples", "generated", "output", "__pycache__"}


def _source_files(root, folder):
    return {
        path.relative_to(root).as_posix()
        for path in (root / folder).rglob("*")
        if path.is_file()
        and not _GENERATED & set(path.relative_to(root).parts)
        and path.suffix not in (".pyc", ".pyo")
        and path.name != "sg_execution_times.rst"
    }


def test_sdist_carries_what_the_tests_need():
    root = repository_path("MANIFEST.in").parent
    shipped = _sdist_files()
    needed = {"LICENSE", "README.md", "CHANGELOG.md", "CITATION.cff", "setup.cfg", ".ci/run"}
    needed |= {"tests/conftest.py", "tests/data/golden_outputs.npz"}
    for folder in ("tests", "examples", "scripts", "docs"):
        needed |= _source_files(root, folder)
    assert not needed - shipped, f"missing from the sdist: {sorted(needed - shipped)}"
    assert not {name for name in shipped if _GENERATED & set(Path(name).parts)}


# What a documentation build (Sphinx, sphinx-gallery), the examples and
# Python write into the tree, each of a type MANIFEST.in ships from there.
_WRITTEN_BY_BUILDS = [
    "docs/sg_execution_times.rst",
    "docs/auto_examples/sg_execution_times.rst",
    "docs/auto_examples/plot_tables.py",
    "docs/_build/html/_images/sphx_glr_plot_tables_001.png",
    "docs/generated/sklearn_sketch.TensorSketch.rst",
    "examples/output/tables.txt",
    "tests/__pycache__/conftest.cpython-311.pyc",
]
_SOURCES = ["docs/index.rst", "docs/conf.py", "examples/plot_tables.py", "tests/test_a.py"]


def test_sdist_leaves_out_what_builds_write(tmp_path):
    # On a copy of MANIFEST.in over a tree holding sources and build outputs:
    # after a documentation build the sdist must still hold only sources.
    manifest = repository_path("MANIFEST.in")
    (tmp_path / "MANIFEST.in").write_text(manifest.read_text())
    for name in _WRITTEN_BY_BUILDS + _SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    shipped = _sdist_files(tmp_path)
    assert set(_SOURCES) <= shipped
    assert not shipped & set(_WRITTEN_BY_BUILDS), sorted(shipped & set(_WRITTEN_BY_BUILDS))


def _ci_floors():
    """Package -> pinned version of CI's minimum-versions run."""
    text = repository_path(".ci", "run").read_text()
    match = re.search(r'^floors="([^"]+)"', text, re.M)
    assert match, '.ci/run has no floors="..." line'
    return dict(
        re.fullmatch(r"([\w-]+)==([\d.]+)\.\*", pin).groups() for pin in match.group(1).split()
    )


def test_ci_tests_the_declared_floors():
    floors = _ci_floors()
    for requirement in _pyproject()["project"]["dependencies"]:
        name, floor = re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement).groups()
        assert floors.get(name) == floor, f"CI does not test {name}=={floor}.*"


def test_pyproject_names_the_project_pages():
    urls = _pyproject()["project"]["urls"]
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    source = urls["Source"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", source), source
    # One repository: every page is in it, and names a file it holds.
    assert urls["Homepage"] == source
    assert urls["Issues"] == f"{source}/issues"
    assert urls["Documentation"] == f"{source}/tree/main/docs"
    assert urls["Changelog"] == f"{source}/blob/main/CHANGELOG.md"
    assert (ROOT / "docs" / "index.rst").is_file() and (ROOT / "CHANGELOG.md").is_file()


def cited_titles(obj):
    """Titles (in double quotes) in the References section of ``obj``'s docstring."""
    doc = inspect.getdoc(obj) or ""
    section = re.search(r"^References\n-+\n(.*?)(?=^[A-Z][\w ]*\n-+\n|\Z)", doc, re.S | re.M)
    if section is None:
        return set()
    text = " ".join(section.group(1).split())
    return {title.strip().rstrip(".") for title in re.findall(r'"([^"]+)"', text)}


def test_cited_titles_reads_every_form():
    # The citation rule below is only as good as this reader: numbered,
    # bulleted and plain entries, titles over several lines; the sections
    # around References are not read.
    def documented():
        """Summary "not a reference."

        References
        ----------
        .. [1] Kar, P. and Karnick, H. "Random feature maps for dot product
           kernels." AISTATS 2012.
        * Le, Q. et al. "Fastfood - Approximating Kernel Expansions in
          Loglinear Time." ICML 2013.

        Li, P. "CoRE Kernels." UAI 2014.

        Examples
        --------
        >>> print("not a reference either")
        """

    assert cited_titles(documented) == {
        "Random feature maps for dot product kernels",
        "Fastfood - Approximating Kernel Expansions in Loglinear Time",
        "CoRE Kernels",
    }
    assert cited_titles(len) == set()


def _implementations():
    """The estimators and the exact kernels the package exports."""
    estimators = [getattr(sklearn_sketch, name) for name in sklearn_sketch.__all__]
    estimators = [obj for obj in estimators if isinstance(obj, type)]
    kernels = [getattr(sklearn_sketch.metrics, name) for name in sklearn_sketch.metrics.__all__]
    return estimators, kernels


def test_every_estimator_cites_its_papers():
    estimators, _ = _implementations()
    assert len(estimators) >= 9
    uncited = [cls.__name__ for cls in estimators if not cited_titles(cls)]
    assert not uncited, f"estimators without a References section: {uncited}"


def test_citation_is_valid_cff_with_the_papers():
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load(repository_path("CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= set(citation)
    assert citation["type"] == "software" and citation["license"] == "BSD-3-Clause"
    assert citation["version"] == sklearn_sketch.__version__
    titles = {" ".join(ref["title"].split()).casefold(): ref for ref in citation["references"]}
    # Every paper an estimator or an exact kernel cites, and no other.
    cited = {}
    for obj in sum(_implementations(), []):
        for title in cited_titles(obj):
            cited.setdefault(title.casefold(), []).append(obj.__name__)
    missing = {title: names for title, names in cited.items() if title not in titles}
    assert not missing, f"papers cited in docstrings but not in CITATION.cff: {missing}"
    assert not set(titles) - set(cited), f"cited by no docstring: {set(titles) - set(cited)}"
    for ref in titles.values():
        assert ref["type"] in ("conference-paper", "article") and ref["year"]
        venue = "collection-title" if ref["type"] == "conference-paper" else "journal"
        assert ref[venue], ref["title"]
        assert ref["authors"]
        assert all("family-names" in a and "given-names" in a for a in ref["authors"])

"""The package can be installed, tested from its sdist, and cited.

Rules checked here: private scikit-learn names are imported in one module
only; the version has one source; the license is declared as an SPDX
expression and shipped; the sdist carries every file the test suite, the
examples and the documentation build need; the Python classifiers match
``requires-python``; CI's minimum-versions run pins the floors pyproject
declares; CITATION.cff is valid CFF 1.2.0 and cites the three papers the
package implements.
"""

import ast
import os
import re
from pathlib import Path

import pytest

import sklearn_sketch

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sklearn_sketch"
COMPAT = PACKAGE / "utils" / "_compat.py"

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


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
        str(path.relative_to(ROOT)): hits
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
    text = (ROOT / "LICENSE").read_text()
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


def _sdist_files():
    """The files MANIFEST.in puts in the sdist (besides the package)."""
    filelist = pytest.importorskip("setuptools.command.egg_info").FileList()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for line in (ROOT / "MANIFEST.in").read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                filelist.process_template_line(line)
    finally:
        os.chdir(cwd)
    return {Path(name).as_posix() for name in filelist.files}


# Folders written by the documentation build, the examples and Python.
_GENERATED = {"_build", "auto_examples", "generated", "output", "__pycache__"}


def _source_files(folder):
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and not _GENERATED & set(path.relative_to(ROOT).parts)
        and path.suffix not in (".pyc", ".pyo")
        and path.name != "sg_execution_times.rst"
    }


def test_sdist_carries_what_the_tests_need():
    shipped = _sdist_files()
    needed = {"LICENSE", "README.md", "CHANGELOG.md", "CITATION.cff", "setup.cfg", ".ci/run"}
    needed |= {"tests/conftest.py", "tests/data/golden_outputs.npz"}
    for folder in ("tests", "examples", "docs"):
        needed |= _source_files(folder)
    assert not needed - shipped, f"missing from the sdist: {sorted(needed - shipped)}"
    assert not {name for name in shipped if _GENERATED & set(Path(name).parts)}


def _ci_floors():
    """Package -> pinned version of CI's minimum-versions run."""
    text = (ROOT / ".ci" / "run").read_text()
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


def test_citation_is_valid_cff_with_the_papers():
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert {"message", "title", "authors"} <= set(citation)
    assert citation["type"] == "software" and citation["license"] == "BSD-3-Clause"
    assert citation["version"] == sklearn_sketch.__version__
    titles = {ref["title"]: ref for ref in citation["references"]}
    assert set(titles) == {
        "Fast and scalable polynomial kernels via explicit feature maps",
        "CoRE Kernels",
        "Gaussian Sketching yields a J-L Lemma in RKHS",
    }
    for ref in titles.values():
        assert ref["type"] == "conference-paper" and ref["authors"] and ref["year"]
        assert all("family-names" in a and "given-names" in a for a in ref["authors"])

"""show_versions prints what a bug report needs: Python, the dependencies, the BLAS."""

import platform
import re
import sys
from importlib.metadata import version

import pytest
import threadpoolctl
from _checkout import repository_path

import sklearn_sketch
from sklearn_sketch.utils import _show_versions


def _sections(text):
    """Section title -> its ``key: value`` lines, in order."""
    sections = {}
    for block in re.split(r"\n\n(?=\S)", text.strip("\n")):
        title, *lines = block.splitlines()
        sections[title.rstrip(":")] = [
            tuple(part.strip() for part in line.split(": ", 1)) for line in lines if ": " in line
        ]
    return sections


def test_show_versions_is_exported():
    assert "show_versions" in sklearn_sketch.__all__
    assert sklearn_sketch.show_versions is _show_versions.show_versions


def test_show_versions_prints_python_dependencies_and_thread_pools(capsys):
    sklearn_sketch.show_versions()
    sections = _sections(capsys.readouterr().out)
    assert list(sections) == ["System", "Python dependencies", "threadpoolctl info"]
    system = dict(sections["System"])
    assert system["python"].startswith(platform.python_version())
    assert system["executable"] == sys.executable
    assert system["machine"] == platform.platform()
    dependencies = dict(sections["Python dependencies"])
    assert dependencies.pop("sklearn-sketch") == sklearn_sketch.__version__
    assert dependencies == {name: version(name) for name in _show_versions.DEPENDENCIES}
    # Every thread pool loaded (NumPy's and SciPy's BLAS among them), each
    # with its library file and version.
    printed = sections["threadpoolctl info"]
    for pool in threadpoolctl.threadpool_info():
        for key in ("user_api", "internal_api", "filepath", "version", "num_threads"):
            assert (key, str(pool[key])) in printed


def test_a_missing_dependency_shows_as_none(monkeypatch, capsys):
    missing = "sklearn-sketch-no-such-distribution"
    monkeypatch.setattr(_show_versions, "DEPENDENCIES", _show_versions.DEPENDENCIES + (missing,))
    sklearn_sketch.show_versions()
    dependencies = dict(_sections(capsys.readouterr().out)["Python dependencies"])
    assert dependencies[missing] == "None"
    assert dependencies["numpy"] == version("numpy")


def test_show_versions_names_every_required_dependency():
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = tomllib.loads(repository_path("pyproject.toml").read_text())["project"]
    required = [re.match(r"[\w-]+", item).group() for item in project["dependencies"]]
    assert sorted(_show_versions.DEPENDENCIES) == sorted(required)

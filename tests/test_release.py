"""The suite runs from a folder holding only ``tests/``, against the installed package.

Distributions and CI images test a release so: no ``pyproject.toml``,
``README.md`` or ``tools/`` beside the tests, so pytest reads no settings
file. There the markers and the warning rule still hold (``tests/conftest.py``
registers those of ``pyproject.toml``), and the tests that read the
repository's other files skip, saying which file they needed.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import sklearn_sketch

TESTS = Path(__file__).resolve().parent
# The modules that read files of the repository beside tests/.
READ_THE_REPOSITORY = [
    "test_layout.py", "test_packaging.py", "test_readme.py", "test_examples.py",
    "test_docs.py", "test_show_versions.py",
]


def _tests_only(tmp_path):
    """A folder holding a copy of ``tests/`` and nothing else."""
    shutil.copytree(TESTS, tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _pytest(folder, *args):
    # The package this run imports (a checkout or an installed one), not
    # another one installed beside it.
    paths = [str(Path(sklearn_sketch.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, paths)))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, env=env, timeout=300
    )


def _markers(pytest_markers_output):
    """Marker name -> description in the output of ``pytest --markers``."""
    return dict(re.findall(r"^@pytest\.mark\.(\w+): (.*)$", pytest_markers_output, re.M))


def test_a_tests_only_folder_has_the_markers_of_this_run(tmp_path, pytestconfig):
    result = _pytest(_tests_only(tmp_path), "--markers")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    ours = _markers("\n".join(f"@pytest.mark.{line}" for line in pytestconfig.getini("markers")))
    assert {"slow", "statistical", "real_data"} <= set(ours)
    there = _markers(result.stdout)
    assert {name: there.get(name) for name in ours} == ours


def test_a_tests_only_folder_skips_what_needs_the_repository(tmp_path):
    # One run for two rules: the skips, and the warning rule (a test that
    # passes only where a RuntimeWarning is raised as an error).
    folder = _tests_only(tmp_path)
    (folder / "tests" / "test_warning_rule.py").write_text(
        "import warnings\n\nimport pytest\n\n\n"
        "def test_runtime_warning_raises():\n"
        "    with pytest.raises(RuntimeWarning):\n"
        "        warnings.warn('overflow', RuntimeWarning)\n"
    )
    modules = [f"tests/{name}" for name in ["test_warning_rule.py", *READ_THE_REPOSITORY]]
    result = _pytest(folder, "-q", "-rsp", "--strict-markers", "-m", "not slow", *modules)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"^PASSED tests/test_warning_rule\.py::test_runtime_warning_raises$",
                     result.stdout, re.M), result.stdout[-3000:]
    skipped = re.findall(r"^SKIPPED \[\d+\] \S+ (test_\w+\.py) needs (\S+) of the repository",
                         result.stdout, re.M)
    expected = {
        ("test_readme.py", "README.md"),
        ("test_examples.py", "examples"),
        ("test_docs.py", "docs/conf.py"),
        ("test_layout.py", "tools/import_levels.py"),
        ("test_packaging.py", "pyproject.toml"),
        ("test_show_versions.py", "pyproject.toml"),
    }
    if importlib.util.find_spec("yaml") is not None:
        # Without PyYAML the citation test skips for it before it looks for
        # the file (the minimum-versions environment has none).
        expected.add(("test_packaging.py", "CITATION.cff"))
    assert set(skipped) >= expected, result.stdout[-3000:]
    # The rules on the source still run, on the imported package.
    assert int(re.search(r"(\d+) passed", result.stdout).group(1)) >= 30

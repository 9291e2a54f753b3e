"""Every example script runs in its quick mode and writes its outputs.

The examples are what users copy from; running them here keeps them from
rotting. Each takes ``--quick``, ``--data-home`` and ``--output-dir``, and
draws at least one figure. Here they run on the real data sets; without them
they fall back on bundled or synthetic data, which CI's documentation build
on a clean clone exercises. Each also runs alone, as the gallery's download
buttons hand it out: copied into an empty folder, with a notebook kernel's
own arguments on its command line.
"""

import ast
import os
import re
import shutil
import subprocess
import sys

import pytest
from _checkout import repository_path

EXAMPLES_DIR = repository_path("examples", module=True)
# Modules whose name starts with "_" are shared plumbing, not examples.
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))
# Examples that run on data bundled with scikit-learn; the others read the
# real data sets when present.
NO_DATA_NEEDED = {"reproduce_tables.py"}


def run_example(name, output_dir, data_home=None):
    command = [sys.executable, str(EXAMPLES_DIR / name), "--quick", "--output-dir", str(output_dir)]
    if data_home is not None:
        command += ["--data-home", str(data_home)]
    # The examples (and the worker processes they start) import this checkout.
    python_path = os.pathsep.join(filter(None, [str(EXAMPLES_DIR.parent), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=python_path)
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def test_every_example_is_tested():
    assert "reproduce_tables.py" in EXAMPLES and len(EXAMPLES) >= 2


def imported_modules(path):
    """Top-level names of the modules a script imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level)
    return names


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_imports_nothing_beside_it(name):
    """A downloaded example has no sibling modules to import."""
    local = {p.stem for p in EXAMPLES_DIR.glob("*.py")} | {"."}
    assert not imported_modules(EXAMPLES_DIR / name) & local


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_keeps_its_figures_open(name):
    """No backend forced and no figure closed: a notebook and the gallery show them."""
    text = (EXAMPLES_DIR / name).read_text()
    assert "matplotlib.use(" not in text and "plt.close(" not in text


def text_cells(path):
    """The text cells of a script: ``# %%`` followed by comment lines."""
    cells = re.split(r"^# %%[^\n]*\n", path.read_text(), flags=re.M)[1:]
    return [cell for cell in cells if re.match(r"# \S.*\n(# .*\n|#\n)*", cell)]


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_reads_as_a_tutorial(name):
    """The gallery page alternates text and code: the run is not one main()."""
    path = EXAMPLES_DIR / name
    assert len(text_cells(path)) >= 4, f"{name}: fewer than 4 text cells"
    text = path.read_text()
    assert "def main(" not in text and "__main__" not in text, f"{name}: the run is hidden in main()"


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_alone_as_downloaded(name, tmp_path):
    """Copied into an empty folder, with an empty data folder, as a notebook runs it.

    A notebook kernel starts with ``-f <connection file>`` on its command
    line; the examples ignore arguments that are not theirs.
    """
    script = tmp_path / name
    shutil.copy(EXAMPLES_DIR / name, script)
    command = [sys.executable, str(script), "--quick", "-f", str(tmp_path / "kernel.json")]
    python_path = os.pathsep.join(filter(None, [str(EXAMPLES_DIR.parent), os.environ.get("PYTHONPATH")]))
    (tmp_path / "no-data").mkdir()
    env = dict(
        os.environ, MPLBACKEND="Agg", PYTHONPATH=python_path,
        SKLEARN_SKETCH_DATA=str(tmp_path / "no-data"),
    )
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path
    )
    assert result.returncode == 0, f"{name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert any((tmp_path / "output").glob("*.png")), f"{name} drew no figure"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NO_DATA_NEEDED))
def test_example_without_data(name, tmp_path):
    stdout = run_example(name, tmp_path)
    assert "Wrote" in stdout
    written = {p.suffix for p in tmp_path.iterdir()}
    assert {".md", ".csv", ".png"} <= written


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in EXAMPLES if n not in NO_DATA_NEEDED])
def test_example_on_real_data(name, tmp_path, data_home):
    stdout = run_example(name, tmp_path, data_home)
    assert "bundled with scikit-learn" not in stdout and "synthetic" not in stdout, (
        f"{name} fell back on stand-in data although the real data is in {data_home}"
    )
    written = {p.suffix for p in tmp_path.iterdir()}
    assert ".png" in written, f"{name} drew no figure: wrote {sorted(written)}"


def test_min_max_table_runs_one_cell_alone(tmp_path):
    # --hashers and --no-raw exist to run one missing cell of the table.
    command = [
        sys.executable, str(EXAMPLES_DIR / "min_max_svm_table.py"), "--quick",
        "--ks", "16", "--hashers", "core", "--no-raw", "--no-exact",
        "--output-dir", str(tmp_path),
    ]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(EXAMPLES_DIR.parent))
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = (tmp_path / "min_max_svm_table.md").read_text().splitlines()[2:]
    assert len(rows) == 1 and "| CoREHasher(core1, oph) | 16 |" in rows[0], rows

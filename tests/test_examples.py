"""Every example script runs in its quick mode and writes its outputs.

The examples are what users copy from; running them here keeps them from
rotting. Each takes ``--quick``, ``--data-home`` and ``--output-dir``, and
draws at least one figure. Each runs once, alone, as the gallery's download
buttons hand it out: copied into an empty folder, with a notebook kernel's
own arguments on its command line, reading the real data sets through
``$SKLEARN_SKETCH_DATA`` where they are (and then it must not fall back on
stand-in data); without them on the bundled or synthetic stand-in data,
which CI's documentation build on a clean clone also runs. One run checks
both, because an example's run is the expensive part.
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _checkout import repository_path
from conftest import find_data_home

EXAMPLES_DIR = repository_path("examples", module=True)
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.glob("*.py"))
# The command-line reproduction scripts, beside the gallery: they share one
# helper module, ``_common.py``.
SCRIPTS_DIR = EXAMPLES_DIR.parent / "scripts"
SCRIPTS = sorted(p.name for p in SCRIPTS_DIR.glob("*.py"))
MAX_LINES = 300


def test_every_example_is_tested():
    assert len(EXAMPLES) >= 2
    assert {"reproduce_tables.py", "_common.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("path", [f"examples/{name}" for name in EXAMPLES]
                         + [f"scripts/{name}" for name in SCRIPTS])
def test_example_or_script_is_short(path):
    """A page a reader takes in whole: no example or script over 300 lines."""
    n_lines = len((EXAMPLES_DIR.parent / path).read_text().splitlines())
    assert n_lines <= MAX_LINES, f"{path} has {n_lines} lines"


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_imports_only_its_folder_and_the_public_api(name):
    """The scripts share their folder's modules, never a gallery example or a
    private module of the package."""
    source = (SCRIPTS_DIR / name).read_text()
    gallery = {p.stem for p in EXAMPLES_DIR.glob("*.py")}
    assert not imported_modules(SCRIPTS_DIR / name) & gallery
    assert not re.search(r"^\s*(from|import) sklearn_sketch(\.\w+)*\._", source, re.M)


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


def _takes_random_state(name):
    """Whether scikit-learn or this package has a class ``name`` taking ``random_state``."""
    import importlib
    import inspect

    for module in ("sklearn_sketch", "sklearn.svm", "sklearn.linear_model", "sklearn.cluster",
                   "sklearn.kernel_approximation", "sklearn.decomposition"):
        cls = getattr(importlib.import_module(module), name, None)
        if isinstance(cls, type):
            return "random_state" in inspect.signature(cls).parameters
    return False


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_fixes_the_random_state_of_its_estimators(name):
    """The same figures on every run: every randomized estimator gets a seed
    (LinearSVC's dual solver and PCA's randomized solvers draw from NumPy's
    global generator otherwise). SVC uses it only with probability=True."""
    source = (EXAMPLES_DIR / name).read_text()
    # A factory whose estimators are seeded later (set_params) is fine.
    seeded_later = "set_params(random_state=" in source
    unseeded = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        called = getattr(function, "id", getattr(function, "attr", None))
        keywords = {keyword.arg for keyword in node.keywords}
        if called in (None, "SVC") or keywords & {"random_state", None}:
            continue
        if _takes_random_state(called) and not seeded_later:
            unseeded.append(f"line {node.lineno}: {called}")
    assert not unseeded, f"{name}: estimators without random_state: {unseeded}"


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


def _stand_in_messages(stdout):
    """The lines where an example says it fell back on stand-in data."""
    return [line for line in stdout.splitlines()
            if "bundled with scikit-learn" in line or "synthetic" in line]


RUNNER = Path(__file__).resolve().parent / "_example_runner.py"


@pytest.fixture(scope="module")
def example_runs(request, tmp_path_factory):
    """The folders of the examples this session tests, each run once.

    Each is copied into an empty folder, as the gallery's download buttons
    hand it out, and run with ``--quick`` and a notebook kernel's own
    arguments (``-f <connection file>``, which the examples ignore), on the
    data at hand: the real data sets through ``$SKLEARN_SKETCH_DATA`` where
    they are, else an empty folder (the stand-in data). All run in one
    interpreter (``_example_runner.py``), one after the other.
    """
    names = sorted({
        item.callspec.params["name"] for item in request.session.items
        if getattr(item, "originalname", None) == "test_example_runs_alone_as_downloaded"
    })
    spec, folders = [], {}
    for name in names:
        folder = tmp_path_factory.mktemp(Path(name).stem)
        shutil.copy(EXAMPLES_DIR / name, folder / name)
        real_data = find_data_home()
        if real_data is None:
            (folder / "no-data").mkdir()
        spec.append(dict(
            folder=str(folder), script=str(folder / name),
            args=["--quick", "-f", str(folder / "kernel.json")],
            data_home=str(real_data or folder / "no-data"),
        ))
        folders[name] = (folder, real_data)
    spec_path = tmp_path_factory.mktemp("runner") / "spec.json"
    spec_path.write_text(json.dumps(spec))
    python_path = os.pathsep.join(
        filter(None, [str(EXAMPLES_DIR.parent), os.environ.get("PYTHONPATH")])
    )
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=python_path)
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(spec_path)], capture_output=True, text=True,
        env=env, timeout=3600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return folders


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_alone_as_downloaded(name, example_runs):
    """Copied into an empty folder, as a notebook runs it, on the data at hand."""
    folder, real_data = example_runs[name]
    stdout = (folder / "stdout.txt").read_text()
    error = folder / "error.txt"
    assert not error.exists(), f"{name} failed:\n{stdout[-3000:]}\n{error.read_text()[-3000:]}"
    if real_data is not None:
        assert not _stand_in_messages(stdout), (
            f"{name} fell back on stand-in data although the real data is in {real_data}"
        )
    written = {path.suffix for path in (folder / "output").iterdir()}
    assert ".png" in written, f"{name} drew no figure: wrote {sorted(written)}"


@pytest.mark.slow
def test_reproduce_tables_prints_the_result_and_writes_the_tables(tmp_path):
    """The README's first command, on its quick settings: the three sections,
    the labelled result the README quotes, the tables and the figure."""
    command = [sys.executable, str(SCRIPTS_DIR / "reproduce_tables.py"), "--quick",
               "--output-dir", str(tmp_path)]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(EXAMPLES_DIR.parent))
    # Run from elsewhere: the script finds its helper modules beside itself.
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    stdout = result.stdout
    for heading in ("[1/3] Pham & Pagh", "[2/3] Li (2014)", "[3/3] Kpotufe & Sriperumbudur"):
        assert heading in stdout, stdout[-3000:]
    result_block = stdout[stdout.index("Result on digits (1257 training / 540 test rows)"):]
    for pipeline in ("TensorSketch (1+<x,y>)^4, D=1000 + LinearSVC",
                     "CoREHasher type 1, k=256 + LinearSVC",
                     "KernelJL(center=True), n=100, d=50 + KMeans", "Baselines: linear SVC"):
        assert pipeline in result_block, result_block
    assert "Wrote the tables" in stdout
    written = {path.name for path in tmp_path.iterdir()}
    assert {"tables_digits.md", "tables_digits.csv", "tables_digits.png"} <= written, written


def test_min_max_table_runs_one_cell_alone(tmp_path):
    # --hashers and --no-raw exist to run one missing cell of the table.
    command = [
        sys.executable, str(EXAMPLES_DIR / "min_max_svm_table.py"), "--quick",
        "--ks", "16", "--hashers", "core", "--no-raw", "--no-exact",
        "--output-dir", str(tmp_path),
    ]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(EXAMPLES_DIR.parent))
    data = find_data_home()
    if data is not None:
        # Here the flag, not the variable, says where the data is.
        command += ["--data-home", str(data)]
        env.pop("SKLEARN_SKETCH_DATA", None)
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = (tmp_path / "min_max_svm_table.md").read_text().splitlines()[2:]
    assert len(rows) == 1 and "| CoREHasher(core1, oph) | 16 |" in rows[0], rows

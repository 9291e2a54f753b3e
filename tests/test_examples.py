"""The gallery's examples are plain tutorials that run as downloaded; the scripts keep working.

The examples are what users copy from; running them here keeps them from
rotting. Each is a plain script (no options, no main(), text between its
code cells, seeded estimators, nothing imported from beside it) and runs
once, alone, as the gallery's download buttons hand it out: copied into an
empty folder and run with no arguments. It must draw a figure and write no
file. Its wall time is printed; the gallery aims at under a minute each on
two cores, and a run over three minutes fails as a regression.

The full-size reproductions in ``scripts/`` are command-line programs
sharing ``scripts/_common.py``; the README's main command,
``python scripts/reproduce_tables.py``, runs here on its quick settings.
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

import sklearn_sketch

EXAMPLES_DIR = repository_path("examples", module=True)
EXAMPLES = sorted(p.relative_to(EXAMPLES_DIR).as_posix() for p in EXAMPLES_DIR.glob("*/*.py"))
# The command-line reproduction scripts, beside the gallery: they share one
# helper module, ``_common.py``.
SCRIPTS_DIR = EXAMPLES_DIR.parent / "scripts"
SCRIPTS = sorted(p.name for p in SCRIPTS_DIR.glob("*.py"))
MAX_LINES = 300
# An example that runs longer than this fails: a guard against pathological
# regressions (the aim, under a minute on two cores, is measured and printed).
MAX_SECONDS = 180
# The documentation links these by name (sphx_glr_auto_examples_<folder>_<stem>.py).
GALLERY = {
    "polynomial": ["plot_tensor_sketch_svm.py", "plot_polynomial_sketches.py"],
    "hashing": ["plot_core_hasher_svm.py", "plot_core_hasher_variance.py",
                "plot_min_max_hasher.py"],
    "rbf": ["plot_rbf_features.py"],
    "sizing": ["plot_auto_n_components.py"],
    "clustering": ["plot_kernel_jl_clustering.py", "plot_kernel_jl_pca.py"],
    "large_data": ["plot_out_of_core.py", "plot_dask.py"],
    "gpu": ["plot_gpu.py"],
}


def test_the_gallery_has_its_examples_and_sections():
    assert set(EXAMPLES) == {f"{folder}/{name}" for folder, names in GALLERY.items()
                             for name in names}
    assert not list(EXAMPLES_DIR.glob("*.py")), "an example outside the gallery's sections"
    for folder in GALLERY:
        title = (EXAMPLES_DIR / folder / "README.txt").read_text().splitlines()
        assert title[0].strip() and set(title[1].strip()) == {"-"}, f"{folder}/README.txt"
    assert {"reproduce_tables.py", "_common.py"} <= set(SCRIPTS)


def test_every_estimator_appears_in_an_example():
    """The API pages' "Examples using X" galleries are never empty."""
    used = set()
    for name in EXAMPLES:
        for node in ast.walk(ast.parse((EXAMPLES_DIR / name).read_text())):
            used.add(getattr(node, "id", None) or getattr(node, "attr", None))
    estimators = [name for name in sklearn_sketch.__all__
                  if isinstance(getattr(sklearn_sketch, name), type) and name != "BaseSketch"]
    missing = [name for name in estimators if name not in used]
    assert not missing, f"estimators no example's code uses: {missing}"


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
    gallery = {p.stem for p in EXAMPLES_DIR.glob("*/*.py")}
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
    """A downloaded example has no sibling modules to import, nor the scripts' helper."""
    local = {p.stem for p in EXAMPLES_DIR.glob("*/*.py")} | {p.stem for p in SCRIPTS_DIR.glob("*.py")}
    assert not imported_modules(EXAMPLES_DIR / name) & (local | {"."})
    assert not re.search(r"^\s*(from|import) sklearn_sketch(\.\w+)*\._",
                         (EXAMPLES_DIR / name).read_text(), re.M)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_parses_no_arguments(name):
    """No options and no modes: what the page shows is what the file runs."""
    source = (EXAMPLES_DIR / name).read_text()
    assert not imported_modules(EXAMPLES_DIR / name) & {"argparse", "getopt", "optparse",
                                                         "click", "typer", "fire"}
    assert not re.search(r"\bsys\.argv\b|parse_(known_)?args|--quick", source), (
        f"{name} reads its command line"
    )


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_shows_its_figures_and_writes_no_file(name):
    """No backend forced, no figure closed or saved, no file written: the
    gallery scrapes the figures, and a reader's folder stays as it was."""
    text = (EXAMPLES_DIR / name).read_text()
    assert "matplotlib.use(" not in text and "plt.close(" not in text
    assert not re.search(r"\.savefig\(|\.to_csv\(|\.write_text\(|\bopen\(|np\.save", text)
    assert "plt.show()" in text


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
    title = re.match(r"(=+)\n(.+)\n(=+)\n", ast.get_docstring(ast.parse(text)) or "")
    assert title and title[1] == title[3] and len(title[1]) >= len(title[2]), (
        f"{name}: no title between = lines as long as it"
    )


RUNNER = Path(__file__).resolve().parent / "_example_runner.py"


@pytest.fixture(scope="module")
def example_runs(request, tmp_path_factory):
    """The folders of the examples this session tests, each run once.

    Each is copied alone into an empty folder, as the gallery's download
    buttons hand it out, and run there with no arguments; all run in one
    interpreter (``_example_runner.py``), one after the other, with
    ``SCIPY_ARRAY_API=1`` set before SciPy is imported, as the documentation
    build sets it. Their wall times are printed.
    """
    names = sorted({
        item.callspec.params["name"] for item in request.session.items
        if getattr(item, "originalname", None) == "test_example_runs_alone_as_downloaded"
    })
    spec, runs = [], {}
    for name in names:
        folder = tmp_path_factory.mktemp(Path(name).stem)
        report = tmp_path_factory.mktemp(Path(name).stem + "_report")
        shutil.copy(EXAMPLES_DIR / name, folder / Path(name).name)
        spec.append(dict(folder=str(folder), script=str(folder / Path(name).name),
                         report=str(report)))
        runs[name] = (folder, report)
    spec_path = tmp_path_factory.mktemp("runner") / "spec.json"
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ, MPLBACKEND="Agg", SCIPY_ARRAY_API="1")
    env.pop("SKLEARN_SKETCH_DATA", None)  # the examples need no data folder
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(spec_path)], capture_output=True, text=True,
        env=env, timeout=3600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines, total = ["", "Gallery examples, wall time as downloaded:"], 0.0
    for name, (_, report) in runs.items():
        if (report / "result.json").is_file():
            seconds = json.loads((report / "result.json").read_text())["seconds"]
            total += seconds
            lines.append(f"  {seconds:6.1f} s  {name}")
    lines.append(f"  {total:6.1f} s  in all")
    # Printed past pytest's capture, so that every run shows the times.
    with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
        print("\n".join(lines), flush=True)
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_alone_as_downloaded(name, example_runs):
    """Copied alone into an empty folder and run with no arguments: it runs,
    draws a figure, writes nothing beside itself, in under three minutes."""
    folder, report = example_runs[name]
    stdout = (report / "stdout.txt").read_text()
    error = report / "error.txt"
    assert not error.exists(), f"{name} failed:\n{stdout[-3000:]}\n{error.read_text()[-3000:]}"
    result = json.loads((report / "result.json").read_text())
    assert result["figures"] >= 1, f"{name} drew no figure"
    assert [p.name for p in folder.iterdir()] == [Path(name).name], (
        f"{name} wrote files beside itself: {sorted(p.name for p in folder.iterdir())}"
    )
    assert result["seconds"] <= MAX_SECONDS, f"{name} took {result['seconds']:.0f} s"


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
        sys.executable, str(SCRIPTS_DIR / "min_max_svm_table.py"), "--quick",
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

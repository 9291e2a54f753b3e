"""The package's house rules, checked on its source: function sizes, imports, citations.

The source read is the imported package's, so that the rules are checked on
what is installed too; the import graph needs ``tools/`` of the repository.
"""

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest
from _checkout import repository_path

import sklearn_sketch

PACKAGE = Path(sklearn_sketch.__file__).resolve().parent
# The folder holding the package: a checkout or site-packages.
ROOT = PACKAGE.parent

MAX_FUNCTION_LINES = 60
SOURCES = sorted(PACKAGE.rglob("*.py"))


def code_lines(function, lines):
    """Non-blank, non-comment lines of a function's body after its docstring."""
    body = function.body
    first = body[0]
    has_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    start = first.end_lineno if has_docstring and len(body) > 1 else first.lineno - 1
    return sum(
        1 for line in lines[start : function.end_lineno]
        if line.strip() and not line.strip().startswith("#")
    )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_are_under_sixty_lines(path):
    text = path.read_text()
    lines = text.splitlines()
    long = [
        (node.name, code_lines(node, lines))
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and code_lines(node, lines) > MAX_FUNCTION_LINES
    ]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines of code: {long}"


def _import_levels():
    """``tools/import_levels.py`` of the repository, as a module."""
    tools = repository_path("tools", "import_levels.py").parent
    sys.path.insert(0, str(tools))
    try:
        return importlib.import_module("import_levels")
    finally:
        sys.path.remove(str(tools))


def test_the_package_source_is_read():
    # An empty SOURCES would parametrize the size rule over nothing.
    assert PACKAGE / "__init__.py" in SOURCES and len(SOURCES) >= 20


def test_no_estimator_module_imports_another():
    import_levels = _import_levels()
    modules = import_levels.read_modules(ROOT)
    estimators = {n for n, p in modules.items() if import_levels.is_estimator_module(p)}
    assert len(estimators) >= 9
    for name in estimators:
        path = modules[name]
        imports = set().union(*[
            import_levels.imported(name, path, node, modules)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ] or [set()])
        assert not imports & estimators, f"{name} imports {imports & estimators}"


def test_the_package_cites_no_file_that_does_not_ship():
    unshipped = re.compile(r"MATH\.md|DESIGN\.md|\btests/|\bbenchmarks/|\bexamples/")
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in SOURCES
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if unshipped.search(line)
    ]
    assert not cited, f"the package cites files it does not ship: {cited}"


ESTIMATORS = [
    getattr(sklearn_sketch, name)
    for name in sklearn_sketch.__all__
    if isinstance(getattr(sklearn_sketch, name), type)
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_an_estimator_fills_one_hook_and_overrides_no_entry_point(estimator):
    # The base owns fit, transform and partial_fit; an estimator builds its
    # map in _make_map and has at most one more private method of its own.
    from sklearn_sketch._base import BaseSketch

    assert issubclass(estimator, BaseSketch)
    own = [
        name for klass in estimator.__mro__[: estimator.__mro__.index(BaseSketch)]
        for name, value in vars(klass).items()
        if callable(value) or isinstance(value, (property, staticmethod, classmethod))
    ]
    assert not {"fit", "transform", "partial_fit"} & set(own), own
    assert "_make_map" in own
    private = [n for n in own if n.startswith("_") and not n.startswith("__")]
    assert len(private) <= 2, f"{estimator.__name__} has private methods {private}"


def test_no_estimator_has_a_map_twin_module():
    # Map modules are named after what they compute: no _x.py beside _x_map.py.
    names = {path.stem for path in SOURCES}
    twins = sorted(name for name in names if f"{name}_map" in names)
    assert not twins, f"estimator modules with a _map twin: {twins}"


def _package_imports(path):
    """Modules of sklearn_sketch a script imports, as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.split(".")[0] == "sklearn_sketch"}


def test_benchmarks_use_only_the_public_api():
    benchmarks = repository_path("benchmarks", "_bench.py").parent
    private = {
        f"{path.name}: {name}"
        for path in sorted(benchmarks.glob("*.py"))
        for name in _package_imports(path)
        if any(p.startswith("_") and not p.startswith("__") for p in name.split(".")[1:])
    }
    assert not private, f"benchmarks importing private modules: {sorted(private)}"

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

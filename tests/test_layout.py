"""The package's house rules, checked on its source: function sizes, imports, citations."""

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sklearn_sketch"
sys.path.insert(0, str(ROOT / "tools"))
import import_levels  # noqa: E402

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


def test_no_estimator_module_imports_another():
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

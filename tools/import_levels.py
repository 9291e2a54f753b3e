"""The import graph of the package: modules, longest import chain, estimator edges.

Reads every module of ``sklearn_sketch`` (or of ``--root``) with ``ast``,
resolves its imports of other package modules, and prints the number of
modules, the number of levels (the modules on the longest import chain) with
that chain, and any import from one estimator module to another (a module
defining a class that derives from ``BaseSketch`` or a family base). Run::

    python tools/import_levels.py [--root PATH]
"""

import argparse
import ast
import functools
from pathlib import Path


def read_modules(root):
    package = root / "sklearn_sketch"
    modules = {}
    for path in sorted(package.rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    return modules


def imported(name, path, node, modules):
    """Package modules an import statement of module ``name`` reads."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
        module = ".".join(base + ([node.module] if node.module else []))
        targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module
                   for a in node.names]
    return {t for t in targets if t in modules and t != name}


def is_estimator_module(path):
    tree = ast.parse(path.read_text())
    bases = {"BaseSketch"}
    return any(
        isinstance(node, ast.ClassDef) and not node.name.startswith("_")
        and any(getattr(b, "id", None) in bases for b in node.bases)
        for node in tree.body
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=Path(__file__).resolve().parents[1], type=Path)
    root = parser.parse_args().root
    modules = read_modules(root)
    edges = {
        name: set().union(*[
            imported(name, path, node, modules)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ] or [set()]) - {"sklearn_sketch"}
        for name, path in modules.items()
    }
    # The root package re-exports the estimators and a module may read its
    # __version__: an edge back to it would be a cycle of the re-export, not
    # of the layers.

    @functools.cache
    def depth(name):
        return 1 + max((depth(other) for other in edges[name]), default=0)

    top = max(modules, key=depth)
    chain = [top]
    while edges[chain[-1]]:
        chain.append(max(edges[chain[-1]], key=depth))
    print(f"{len(modules)} modules, {depth(top)} levels: {' -> '.join(chain)}")
    estimators = {name for name, path in modules.items() if is_estimator_module(path)}
    crossing = [(a, b) for a in sorted(estimators) for b in sorted(edges[a] & estimators)]
    print(f"{len(estimators)} estimator modules; imports between them: {crossing or 'none'}")


if __name__ == "__main__":
    main()

"""Rerun the statistical tests on fresh seeds and count the failures per test.

The tests marked ``statistical`` compare Monte-Carlo estimates with the
theory within a stated number of standard errors, on fixed seeds. This
script runs ``python -m pytest -m statistical`` once for each seed offset
(``SKLEARN_SKETCH_TEST_SEED_OFFSET``, see ``tests/conftest.py``), each
offset giving every test disjoint seeds, and prints how often each test
failed. A tolerance derived honestly (4 standard errors per comparison, a
Bonferroni-style margin when a test makes many) should give no failure in
20 reruns; a test that fails more than once points at a tolerance whose
reasoning is wrong, or at a bug in the estimator.

Run from the checkout (about a minute per offset)::

    python tools/rerun_statistical_tests.py [--first 1] [--last 20] [-- PYTEST-ARGS]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED_OFFSET_VARIABLE = "SKLEARN_SKETCH_TEST_SEED_OFFSET"


def run_offset(offset, pytest_args, report):
    """Run the statistical tests with one seed offset.

    Returns
    -------
    outcomes : dict
        Test id -> "passed", "failed" or "skipped".
    """
    env = {**os.environ, SEED_OFFSET_VARIABLE: str(offset)}
    command = [
        sys.executable, "-m", "pytest", "-m", "statistical", "-q",
        "-p", "no:cacheprovider", f"--junitxml={report}", *pytest_args,
    ]
    completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if not Path(report).is_file():  # pytest did not get as far as running tests
        sys.exit(f"offset {offset}: pytest failed to run\n{completed.stdout}{completed.stderr}")
    outcomes = {}
    for case in ElementTree.parse(report).iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            outcomes[test_id] = "failed"
        elif case.find("skipped") is not None:
            outcomes[test_id] = "skipped"
        else:
            outcomes[test_id] = "passed"
    return outcomes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=1, help="first seed offset (default 1)")
    parser.add_argument("--last", type=int, default=20, help="last seed offset (default 20)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()

    failures, runs, skips = Counter(), Counter(), Counter()
    failed_offsets = {}
    with tempfile.TemporaryDirectory() as scratch:
        for offset in range(args.first, args.last + 1):
            report = Path(scratch) / f"offset-{offset}.xml"
            outcomes = run_offset(offset, args.pytest_args, report)
            failed = sorted(t for t, outcome in outcomes.items() if outcome == "failed")
            for test_id, outcome in outcomes.items():
                runs[test_id] += 1
                failures[test_id] += outcome == "failed"
                skips[test_id] += outcome == "skipped"
            for test_id in failed:
                failed_offsets.setdefault(test_id, []).append(offset)
            print(
                f"offset {offset}: {len(outcomes)} tests, {len(failed)} failed"
                + (f" ({', '.join(failed)})" if failed else ""),
                flush=True,
            )

    n_offsets = args.last - args.first + 1
    print(f"\n{len(runs)} statistical tests, {n_offsets} seed offsets "
          f"({args.first}..{args.last}), {sum(failures.values())} failures in all")
    for test_id in sorted(runs, key=lambda t: (-failures[t], t)):
        if failures[test_id] or skips[test_id]:
            note = f"failed at offsets {failed_offsets[test_id]}" if failures[test_id] else ""
            if skips[test_id]:
                note += f" skipped {skips[test_id]}x"
            print(f"  {failures[test_id]:2d}/{runs[test_id]}  {test_id}  {note.strip()}")
    return 1 if sum(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

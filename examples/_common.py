"""Command-line plumbing shared by the example scripts (not an example itself).

Every example takes ``--quick`` (small settings that run in seconds, used by
the test suite and the documentation build), ``--data-home`` (the folder of
real data sets) and ``--output-dir`` (where tables and plots are written).
"""

import argparse
from pathlib import Path

from sklearn_sketch.datasets import get_data_home

EXAMPLES_DIR = Path(__file__).resolve().parent
# A checkout of the project sits beside the shared data folder.
SHARED_DATA_HOME = EXAMPLES_DIR.parents[1] / "shared" / "datasets"


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small settings: seconds, not minutes")
    parser.add_argument(
        "--data-home",
        default=None,
        help="folder of the real data sets (default: $SKLEARN_SKETCH_DATA, else "
        "the shared data folder beside the checkout)",
    )
    parser.add_argument(
        "--output-dir",
        default=str(EXAMPLES_DIR / "output"),
        help="where tables (Markdown, CSV) and plots are written",
    )
    return parser


def data_home_and_output_dir(args):
    """Resolve ``--data-home`` and create ``--output-dir``."""
    data_home = get_data_home(args.data_home) or SHARED_DATA_HOME
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    return data_home, output_dir


def write_csv(path, rows):
    """Write a list of dicts as CSV, columns in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [",".join(columns)]
    lines += [",".join(str(row.get(column, "")) for column in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n")

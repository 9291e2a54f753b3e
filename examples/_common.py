"""Command-line plumbing shared by the example scripts (not an example itself).

Every example takes ``--quick`` (small settings that run in seconds, used by
the test suite and the documentation build), ``--data-home`` (the folder of
real data sets) and ``--output-dir`` (where tables and plots are written).
Without the real data sets (a fresh clone without ``$SKLEARN_SKETCH_DATA``)
the examples fall back on data that ships with scikit-learn (the digits) or
on synthetic data, and say so in their output; ``--download`` fetches the
missing real data sets instead (``sklearn_sketch.datasets``: public sources,
SHA-256 checked, kept in the data folder, ``~/sklearn_sketch_data`` by default).
"""

import argparse
import os
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from sklearn_sketch.datasets import DATA_ENV_VARIABLE, get_data_home

EXAMPLES_DIR = Path(__file__).resolve().parent
# A checkout of the project sits beside the shared data folder.
SHARED_DATA_HOME = EXAMPLES_DIR.parents[1] / "shared" / "datasets"
# Set from --download: missing real data sets are downloaded, not replaced.
_DOWNLOAD = False


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small settings: seconds, not minutes")
    parser.add_argument(
        "--data-home",
        default=None,
        help="folder of the real data sets (default: $SKLEARN_SKETCH_DATA, else "
        "the shared data folder beside the checkout, else ~/sklearn_sketch_data)",
    )
    parser.add_argument(
        "--download",
        action="store_true",
        help="download the real data sets that are missing (into the data folder) "
        "instead of falling back on scikit-learn's digits or synthetic data",
    )
    parser.add_argument(
        "--output-dir",
        default=str(EXAMPLES_DIR / "output"),
        help="where tables (Markdown, CSV) and plots are written",
    )
    return parser


def data_home_and_output_dir(args):
    """Resolve ``--data-home``: else ``$SKLEARN_SKETCH_DATA``, else the shared
    folder beside the checkout, else the default data folder of the fetchers."""
    global _DOWNLOAD
    _DOWNLOAD = bool(getattr(args, "download", False))
    if args.data_home is None and not os.environ.get(DATA_ENV_VARIABLE) and SHARED_DATA_HOME.is_dir():
        data_home = SHARED_DATA_HOME
    else:
        data_home = get_data_home(args.data_home)
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    return data_home, output_dir


def has_data(data_home, folder):
    """Whether to use the real data set ``folder`` (e.g. ``"mnist"``).

    True when it is in ``data_home``, or when ``--download`` asked for it.
    """
    return _DOWNLOAD or Path(data_home, folder).is_dir()


def digits_split(test_size=0.3):
    """scikit-learn's bundled digits (1797 x 64) scaled to [0, 1], stratified split.

    The fallback data of the examples: no download needed.
    """
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        (X / 16.0).astype(np.float32), y, test_size=test_size, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def write_csv(path, rows):
    """Write a list of dicts as CSV, columns in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [",".join(columns)]
    lines += [",".join(str(row.get(column, "")) for column in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n")

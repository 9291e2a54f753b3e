"""Shared fixtures: access to the real data sets.

Tests that need ``../shared/datasets`` take the ``data_home`` fixture. Where
the data folder is missing they are skipped with the reason shown in the
summary (``pytest -ra``); in CI (``CI=true``) a missing data set fails them
instead, so that a broken checkout cannot pass by skipping.
"""

import os
from pathlib import Path

import pytest

from sklearn_sketch.datasets import DATA_ENV_VARIABLE, get_data_home

# A checkout of the project sits beside the shared folder.
_DEFAULT_DATA_HOME = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def data_home():
    """The data folder: $SKLEARN_SKETCH_DATA, else ../shared/datasets."""
    home = get_data_home()
    if home is None and _DEFAULT_DATA_HOME.is_dir():
        home = _DEFAULT_DATA_HOME
    if home is None or not home.is_dir():
        message = (
            f"real data sets not found: set {DATA_ENV_VARIABLE} or place the "
            f"shared data beside the checkout ({_DEFAULT_DATA_HOME})"
        )
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return home


def require_data(data_home, *parts):
    """Skip (fail in CI) unless the file ``data_home/parts`` exists."""
    path = Path(data_home).joinpath(*parts)
    if not path.is_file():
        message = f"data file not found: {path}"
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return path

"""The CoRE examples run in --quick mode and write their outputs."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_data

ROOT = Path(__file__).resolve().parents[1]


def _run(script, data_home, output_dir, *extra):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--quick",
         "--data-home", str(data_home), "--output-dir", str(output_dir), *extra],
        check=True, env=env, cwd=ROOT, timeout=300,
    )


def test_figure3_quick(data_home, tmp_path):
    require_data(data_home, "20newsgroups", "counts_train.npz")
    _run("core_figure3_mse.py", data_home, tmp_path, "--repeats", "3")
    for suffix in ("png", "csv", "md"):
        assert (tmp_path / f"core_figure3_mse.{suffix}").stat().st_size > 0


@pytest.mark.parametrize("dataset", ["mnist10k"])
def test_svm_table_quick(data_home, tmp_path, dataset):
    require_data(data_home, "mnist", "t10k-images-idx3-ubyte.gz")
    require_data(data_home, "sector", "sector_tfidf.npz")
    _run("core_svm_table.py", data_home, tmp_path, "--datasets", dataset)
    for suffix in ("png", "csv", "md"):
        assert (tmp_path / f"core_svm_table.{suffix}").stat().st_size > 0

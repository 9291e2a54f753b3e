"""The KernelJL example runs in --quick mode and writes its tables and plots."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script", ["kernel_jl_clustering.py"])
def test_example_runs_quick(script, data_home, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--quick",
         "--data-home", str(data_home), "--output-dir", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for name in ["clustering.csv", "clustering.md", "clustering.png",
                 "kpca.csv", "kpca.md", "kpca.png"]:
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name
    # Every method produced a finite score.
    import pandas as pd

    table = pd.read_csv(tmp_path / "clustering.csv")
    assert table["nmi"].notna().all() and table["nmi"].between(0, 1).all()
    assert {"KernelJL", "Nystroem", "RBFSampler", "KMeans"} <= set(table["method"])

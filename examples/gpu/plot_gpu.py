"""
=================================================
Running a sketch and its classifier on a GPU
=================================================

Under scikit-learn's array API dispatch, :class:`sklearn_sketch.TensorSketch`
(and the other estimators with the ``array_api_support`` tag, see
:ref:`gpu`) take PyTorch tensors, CuPy arrays or ``array_api_strict`` arrays
and return their features in the same library and on the same device. With
scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`, which
supports the array API too, the pipeline ``TensorSketch -> LogisticRegression``
then runs on the GPU from the data to the predictions.

This example runs that pipeline on the best namespace at hand: torch on a
CUDA GPU, else torch on the CPU, else ``array_api_strict`` (NumPy behind the
array API, on the CPU), else plain NumPy. It checks that the features equal
those of the NumPy path for the same ``random_state``. In the documentation
build it runs on the CPU: its times are no GPU measurement (see
``benchmarks/bench_gpu.py``).

Data: MNIST from ``--data-home`` (``--quick``: 2000 training and 1000 test
images; without it the whole sets); without it, the digits bundled with
scikit-learn.
"""

import os
import sys

# Dispatch needs SciPy's array API support, which SciPy reads once, when it is
# first imported: set the variable before importing SciPy or scikit-learn.
SCIPY_TOO_EARLY = "scipy" in sys.modules and os.environ.get("SCIPY_ARRAY_API") != "1"
if not SCIPY_TOO_EARLY:
    os.environ["SCIPY_ARRAY_API"] = "1"

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn import config_context  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from sklearn_sketch import TensorSketch  # noqa: E402
from sklearn_sketch.datasets import fetch_mnist, get_data_home  # noqa: E402

# %%
# Command line and data
# ---------------------
# ``--quick`` selects the small settings this page shows (also in a
# notebook); ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``), without which the example runs on the digits;
# ``--output-dir`` gets the figure.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"

parser = argparse.ArgumentParser(description="A sketch and its classifier on a GPU.")
parser.add_argument("--quick", action="store_true", help="small settings: seconds")
parser.add_argument("--data-home", default=None, help="folder of the real data sets")
parser.add_argument("--output-dir", default=str(HERE / "output"), help="for the figure")
args, _ = parser.parse_known_args()
args.quick = args.quick or "ipykernel" in sys.modules
unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
data_home = SHARED_DATA_HOME if unset and SHARED_DATA_HOME.is_dir() else get_data_home(
    args.data_home)
output_dir = Path(args.output_dir)
output_dir.mkdir(parents=True, exist_ok=True)

if Path(data_home, "mnist").is_dir():
    X_train, y_train = fetch_mnist(data_home, return_X_y=True)
    X_test, y_test = fetch_mnist(data_home, subset="test", return_X_y=True)
    if args.quick:
        X_train, y_train, X_test, y_test = X_train[:2000], y_train[:2000], X_test[:1000], \
            y_test[:1000]
    gamma, title = 0.1, "MNIST"
else:
    print(f"No MNIST in {data_home}: running on the digits bundled with scikit-learn.")
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        (X / 16).astype(np.float32), y, test_size=0.3, stratify=y, random_state=0)
    gamma, title = 0.1, "digits"
y_train, y_test = y_train.astype(np.int64), y_test.astype(np.int64)
print(f"{title}: {X_train.shape[0]} training and {X_test.shape[0]} test rows, float32")

# %%
# The namespace and the device
# ----------------------------
# torch with CUDA where there is one; otherwise a CPU namespace, which runs
# the very same code. Dispatch cannot be turned on where SciPy was imported
# before ``SCIPY_ARRAY_API=1`` was set (scikit-learn refuses then, and rightly:
# SciPy would not take the arrays): the documentation build sets it before
# SciPy loads; a session that imported SciPy without it falls back here on
# plain NumPy, and says so.


def pick_namespace():
    """``(xp, device, name)`` of the best namespace installed, or Nones."""
    if SCIPY_TOO_EARLY:
        print("SciPy was imported before SCIPY_ARRAY_API=1 was set: no dispatch here.")
        return None, None, "NumPy"
    try:
        import torch

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        return torch, device, f"torch on {device}"
    except ImportError:
        pass
    try:
        import array_api_strict

        return array_api_strict, array_api_strict.Device("CPU_DEVICE"), "array_api_strict"
    except ImportError:
        print("Neither torch nor array_api_strict is installed: no dispatch here.")
        return None, None, "NumPy"


def to_numpy(Z):
    """A NumPy copy of an array of any of these namespaces, on the host."""
    if hasattr(Z, "get"):  # CuPy
        return Z.get()
    if hasattr(Z, "cpu"):  # torch
        return Z.cpu().numpy()
    return np.asarray(Z)  # NumPy, array_api_strict on its CPU device


def synchronize(device):
    """Wait for a CUDA device's queued work, so that the clock reads its end."""
    if getattr(device, "type", None) == "cuda":
        import torch

        torch.cuda.synchronize(device)


xp, device, namespace = pick_namespace()
print(f"Namespace: {namespace}")
if xp is None:  # plain NumPy: the same code, without dispatch
    xp, device = np, None


def on_device(a):
    return a if xp is np else xp.asarray(a, device=device)


# %%
# The same features on the device as on the host
# ----------------------------------------------
# The random hashes of the sketch are drawn by ``fit`` on the host, with
# NumPy, whatever the input; ``transform`` moves them to the device once. So
# the sketch fitted on the device input and the one fitted on the NumPy input,
# with the same ``random_state``, give the same features up to float32
# rounding. An estimator transforms data of the namespace and device it was
# fitted on, so each is fitted where it transforms.

D = 1024 if args.quick else 4096


def make_sketch():
    return TensorSketch(n_components=D, degree=2, gamma=gamma, coef0=1.0, random_state=0)


Z_host = make_sketch().fit(X_train).transform(X_test)
with config_context(array_api_dispatch=xp is not np):
    X_train_device, X_test_device = on_device(X_train), on_device(X_test)
    Z_device = make_sketch().fit(X_train_device).transform(X_test_device)
print(f"Features: {type(Z_device).__module__}.{type(Z_device).__name__} of dtype "
      f"{Z_device.dtype}, shape {tuple(Z_device.shape)}")
Z_device = to_numpy(Z_device)
difference = np.max(np.abs(Z_device - Z_host))
print(f"Largest difference from the NumPy features: {difference:.2e}")
np.testing.assert_allclose(Z_device, Z_host, rtol=1e-4, atol=1e-5)

# %%
# The pipeline on the device
# --------------------------
# The labels go to the device too; ``score`` returns a Python float. The same
# pipeline on NumPy input (our sketch on all cores, ``n_jobs=-1``) is the
# reference: the accuracies agree (the features differ only by rounding).


def pipeline(n_jobs=None):
    sketch = make_sketch().set_params(n_jobs=n_jobs)
    return make_pipeline(sketch, LogisticRegression(max_iter=100, random_state=0))


seconds, accuracy = {}, {}
start = time.perf_counter()
accuracy["NumPy, n_jobs=-1"] = pipeline(-1).fit(X_train, y_train).score(X_test, y_test)
seconds["NumPy, n_jobs=-1"] = time.perf_counter() - start

with config_context(array_api_dispatch=xp is not np):
    start = time.perf_counter()
    data = [on_device(a) for a in (X_train, y_train, X_test, y_test)]
    model = pipeline().fit(data[0], data[1])
    accuracy[namespace] = model.score(data[2], data[3])
    synchronize(device)
    seconds[namespace] = time.perf_counter() - start
for name in seconds:
    print(f"{name}: accuracy {100 * accuracy[name]:.2f}%, {seconds[name]:.2f} s end to end")
if getattr(device, "type", None) != "cuda":
    print("No GPU here: both runs are on the CPU, and their times say nothing of a GPU.")

# %%
# The figure
# ----------
# Left: the device features against the NumPy features of a few test rows
# (on the diagonal: equal). Right: the seconds of each pipeline, fit and
# test, with its accuracy.

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
rows = slice(0, 5)
left.plot(Z_host[rows].ravel(), Z_device[rows].ravel(), ".", markersize=2)
lims = [Z_host[rows].min(), Z_host[rows].max()]
left.plot(lims, lims, "k-", linewidth=0.5)
left.set(xlabel="NumPy features", ylabel=f"{namespace} features",
         title=f"TensorSketch, D = {D}: largest difference {difference:.1e}")
names = list(seconds)
right.barh(names, [seconds[name] for name in names])
for i, name in enumerate(names):
    right.text(seconds[name], i, f" {100 * accuracy[name]:.1f}%", va="center")
right.set(xlabel="seconds, fit + test", title=f"TensorSketch -> LogisticRegression, {title}")
fig.tight_layout()
fig.savefig(output_dir / "running_on_a_gpu.png", dpi=100)

# %%
# On a GPU
# --------
# With torch and CUDA installed, the same script runs the second pipeline on
# the GPU: the sketch's Count Sketches and FFTs and the logistic regression's
# solver then run there, and only ``score``'s float comes back. The gallery
# quotes no GPU times: ``benchmarks/bench_gpu.py`` measures them on a CUDA
# machine against all the cores of its CPU.

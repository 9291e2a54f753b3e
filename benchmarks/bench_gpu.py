"""The sketches on a GPU (array API dispatch) against the CPU path with all cores.

In one run of this script, on MNIST (60000 x 784 float32, ``fetch_mnist``;
``--synthetic`` or a missing data folder: uniform random rows of the same
shape, which the output says):

* every estimator of the package whose ``array_api_support`` tag is True
  (found through ``sklearn_sketch.__all__``, so that an estimator that gains
  the tag is timed without changing this script), at D = ``--n-components``
  (4096; KernelJL keeps its own sizes): ``transform`` of an input already on
  the device under ``sklearn.set_config(array_api_dispatch=True)``, the
  output left on the device (the device is synchronized before the clock is
  read), against ``transform`` of the NumPy input with ``n_jobs=-1``; the
  largest difference of the two outputs on their first rows checks that
  both compute the same features. OrthogonalRBFSampler runs on 20000 rows,
  the others on 60000 (``--rows`` caps them all);
* the pipeline ``TensorSketch(4096) -> LogisticRegression`` (scikit-learn's,
  lbfgs, which supports the array API): fit on the training rows and
  accuracy on the 10000 test images, on the device against the CPU (our
  sketch with ``n_jobs=-1``), seconds end to end (moving the data to the
  device included).

The device is CUDA through torch where it is present (``--namespace torch
--device cuda``, the default there); elsewhere torch on the CPU or
``array_api_strict`` run the same code, which tests it but measures no GPU:
the output says so. Times are medians over ``--repeats`` rounds, the device
and the CPU timed in turn within each round.

Run::

    python benchmarks/bench_gpu.py [--namespace torch|array_api_strict] [--device DEVICE]
        [--rows N] [--synthetic] [--repeats R] [--no-pipeline] [--data-home DIR]

Small check on any machine: ``--rows 2000 --repeats 1``.
"""

import os

# scikit-learn's array API dispatch needs SciPy's, chosen when SciPy is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import default_data_home, median_times  # noqa: E402
from sklearn import clone, config_context  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

import sklearn_sketch  # noqa: E402
from sklearn_sketch import TensorSketch  # noqa: E402
from sklearn_sketch.datasets import fetch_mnist  # noqa: E402

#: Rows of MNIST each estimator is timed on (the issue's cases); others: 60000.
ROWS = {"OrthogonalRBFSampler": 20000}
#: Parameters beyond ``n_components`` and ``random_state``; a list: one row each.
PARAMS = {
    "OrthogonalRBFSampler": [{"method": m} for m in ("sorf", "orf", "fastfood")],
    # KernelJL's size is its subsample's, not a feature count: its defaults.
    "KernelJL": [{"n_components": 100, "n_subsample": 300}],
}
#: The polynomial kernel of the timed sketches and of the pipeline: on MNIST's
#: pixels in [0, 1] (squared norms near 100) gamma=0.1 gave the best test accuracy
#: of 1/784, 0.01, 0.02, 0.05 and 0.1 at D=2048 on 5000 training rows.
POLY = dict(degree=2, gamma=0.1, coef0=1.0)


def namespace(name, device):
    """``(xp, device, synchronize, description)`` of the namespace asked for."""
    if name == "torch":
        import torch

        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        device = torch.device(device)
        if device.type == "cuda":
            def synchronize():
                torch.cuda.synchronize(device)

            gpu = torch.cuda.get_device_name(device)
            return torch, device, synchronize, f"torch {torch.__version__} on {gpu}"
        return torch, device, lambda: None, f"torch {torch.__version__} on the CPU"
    import array_api_strict

    device = array_api_strict.Device(device or "CPU_DEVICE")
    return array_api_strict, device, lambda: None, (
        f"array_api_strict {array_api_strict.__version__} (NumPy on the CPU)"
    )


def to_numpy(Z, xp):
    """A NumPy copy of a device array (moved to the host)."""
    if xp.__name__ == "torch":
        return Z.cpu().numpy()
    import array_api_strict

    return np.asarray(Z.to_device(array_api_strict.Device("CPU_DEVICE")))


def supported_estimators(n_components):
    """``(label, estimator)`` of every public estimator with the array API tag."""
    found = []
    for name in sklearn_sketch.__all__:
        cls = getattr(sklearn_sketch, name)
        if not isinstance(cls, type) or "n_components" not in inspect.signature(cls).parameters:
            continue
        for extra in PARAMS.get(name, [{}]):
            params = dict(n_components=n_components, random_state=0)
            if {"degree", "gamma", "coef0"} <= set(inspect.signature(cls).parameters):
                params.update(POLY)
            params.update(extra)
            estimator = cls(**params)
            if estimator.__sklearn_tags__().array_api_support:
                label = name + "".join(f" {v}" for k, v in extra.items() if k == "method")
                found.append((label, name, estimator))
    return found


def load(args):
    """``(X_train, y_train, X_test, y_test, source)``: MNIST, or random stand-in rows."""
    if not args.synthetic:
        try:
            X, y = fetch_mnist(args.data_home, download_if_missing=False, return_X_y=True)
            X_test, y_test = fetch_mnist(args.data_home, subset="test",
                                         download_if_missing=False, return_X_y=True)
            return X, y.astype(np.int64), X_test, y_test.astype(np.int64), "MNIST"
        except Exception as error:  # DataNotFoundError, or a damaged file
            print(f"No MNIST in {args.data_home} ({error}); random stand-in rows instead.")
    rng = np.random.RandomState(0)
    X, X_test = (rng.rand(n, 784).astype(np.float32) for n in (60000, 10000))
    # Labels a linear model can learn from the sketch: a fixed projection's bin.
    w = rng.randn(784)
    y, y_test = (np.digitize(A @ w, np.quantile(X @ w, np.linspace(0.1, 0.9, 9)))
                 for A in (X, X_test))
    return X, y.astype(np.int64), X_test, y_test.astype(np.int64), "random stand-in (synthetic)"


def bench_transforms(X, xp, device, synchronize, args):
    rows = []
    for label, name, estimator in supported_estimators(args.n_components):
        n = min(ROWS.get(name, 60000), args.rows or X.shape[0])
        X_host = np.ascontiguousarray(X[:n])
        X_device = xp.asarray(X_host, device=device)
        cpu = clone(estimator).set_params(n_jobs=-1).fit(X_host)
        with config_context(array_api_dispatch=True):
            on_device = clone(estimator).fit(X_device)
            Z = on_device.transform(X_device[:1000, ...])  # warm-up; compared below
        synchronize()
        diff = float(np.max(np.abs(to_numpy(Z, xp) - cpu.transform(X_host[:1000]))))
        del Z

        def run_device():
            with config_context(array_api_dispatch=True):
                on_device.transform(X_device)
            synchronize()

        times = median_times({"device": run_device, "cpu": lambda: cpu.transform(X_host)},
                             args.repeats)
        rows.append((f"{label} (D={estimator.n_components}, {n} rows)",
                     times["device"], times["cpu"], diff))
        del X_device, on_device
    return rows


def bench_pipeline(X, y, X_test, y_test, xp, device, synchronize, args):
    n = min(args.rows or X.shape[0], X.shape[0])
    n_test = min(X_test.shape[0], max(n // 6, 100))
    X, y, X_test, y_test = X[:n], y[:n], X_test[:n_test], y_test[:n_test]

    def pipeline(n_jobs):
        sketch = TensorSketch(args.n_components, **POLY, random_state=0, n_jobs=n_jobs)
        return make_pipeline(sketch, LogisticRegression(max_iter=args.max_iter))

    start = time.perf_counter()
    accuracy_cpu = pipeline(-1).fit(X, y).score(X_test, y_test)
    seconds_cpu = time.perf_counter() - start

    with config_context(array_api_dispatch=True):
        start = time.perf_counter()
        moved = [xp.asarray(a, device=device) for a in (X, y, X_test, y_test)]
        accuracy_device = pipeline(None).fit(moved[0], moved[1]).score(moved[2], moved[3])
        synchronize()
        seconds_device = time.perf_counter() - start
    label = f"TensorSketch({args.n_components}) -> LogisticRegression ({n} / {n_test} rows)"
    return label, seconds_device, seconds_cpu, 100 * accuracy_device, 100 * accuracy_cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespace", choices=["torch", "array_api_strict"], default=None,
                        help="default: torch where installed, else array_api_strict")
    parser.add_argument("--device", default=None,
                        help="default: cuda where torch sees one, else the CPU")
    parser.add_argument("--rows", type=int, default=None, help="cap on the rows of every case")
    parser.add_argument("--n-components", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-iter", type=int, default=100, help="LogisticRegression's")
    parser.add_argument("--no-pipeline", action="store_true")
    parser.add_argument("--synthetic", action="store_true", help="random rows, not MNIST")
    parser.add_argument("--data-home", default=default_data_home())
    args = parser.parse_args()
    if args.namespace is None:
        try:
            import torch  # noqa: F401

            args.namespace = "torch"
        except ImportError:
            args.namespace = "array_api_strict"
    xp, device, synchronize, description = namespace(args.namespace, args.device)
    on_gpu = "cuda" in str(device)

    X, y, X_test, y_test, source = load(args)
    print(f"Machine: {platform.node()}, {os.cpu_count()} CPUs; device: {description}")
    print(f"Data: {source}; float32; medians of {args.repeats} rounds; CPU path n_jobs=-1")
    if source != "MNIST":
        print("The accuracies of random stand-in rows mean nothing; the times do.")
    if not on_gpu:
        print("NO GPU: the 'device' column is the array API path on the CPU. It checks the "
              "code, not GPU speed; the GPU figures need a CUDA machine (torch with CUDA).")

    rows = bench_transforms(X, xp, device, synchronize, args)
    width = max([len(r[0]) for r in rows] + [60])
    print()
    print(f"{'transform, output kept on the device':{width}s} {'device s':>9s} {'CPU s':>9s}"
          f" {'speed-up':>9s} {'max |diff|':>11s}")
    for label, t_device, t_cpu, diff in rows:
        print(f"{label:{width}s} {t_device:9.4f} {t_cpu:9.4f} {t_cpu / t_device:9.2f}"
              f" {diff:11.2e}")
    if not args.no_pipeline:
        label, t_device, t_cpu, acc_device, acc_cpu = bench_pipeline(
            X, y, X_test, y_test, xp, device, synchronize, args)
        print()
        print(f"{'end to end (fit + test accuracy)':{width}s} {'device s':>9s} {'CPU s':>9s}"
              f" {'speed-up':>9s} {'acc. device':>11s} {'acc. CPU':>9s}")
        print(f"{label:{width}s} {t_device:9.3f} {t_cpu:9.3f} {t_cpu / t_device:9.2f}"
              f" {acc_device:10.2f}% {acc_cpu:8.2f}%")


if __name__ == "__main__":
    main()

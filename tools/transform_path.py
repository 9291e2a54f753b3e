"""The functions of sklearn_sketch that one ``transform`` call passes through.

For TensorSketch, CoREHasher and KernelJL (each fitted, then warmed by a
first transform so that compiling does not count), prints the number of
calls, distinct functions and module crossings of a second transform, the
calls made on the estimator itself (and how many go into its own class
rather than the base), then the functions in order of first call. Run from
any checkout, old or new::

    PYTHONPATH=<checkout> python tools/transform_path.py
"""
import sys
import numpy as np
import scipy.sparse as sp
import sklearn_sketch
from sklearn_sketch import TensorSketch, CoREHasher, KernelJL

PKG = sklearn_sketch.__file__.rsplit("/", 1)[0]
rng = np.random.RandomState(0)
X = rng.rand(200, 30)
Xs = sp.random(200, 1000, density=0.05, format="csr", random_state=0)
cases = {
    "TensorSketch": (TensorSketch(n_components=64, degree=2, random_state=0), X),
    "CoREHasher": (CoREHasher(n_components=64, random_state=0), Xs),
    "KernelJL": (KernelJL(n_components=16, n_subsample=50, random_state=0), X),
}
for name, (est, data) in cases.items():
    est.fit(data)
    est.transform(data)  # warm: compile / load kernels
    calls = []
    on_estimator = []
    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(PKG):
            code = frame.f_code
            rel = code.co_filename[len(PKG) + 1:]
            calls.append(f"{rel}:{code.co_qualname}")
            if frame.f_locals.get("self") is est:
                on_estimator.append(f"{rel}:{code.co_qualname}")
    sys.setprofile(profile)
    est.transform(data)
    sys.setprofile(None)
    seen = []
    for c in calls:
        if c not in seen:
            seen.append(c)
    files = [c.split(":")[0] for c in calls]
    crossings = sum(1 for a, b in zip(files, files[1:]) if a != b)
    hooks = [c for c in on_estimator if not c.startswith("_base.py:")]
    print(f"## {name}: {len(calls)} calls, {len(seen)} distinct functions, {crossings} module crossings, "
          f"{len(on_estimator)} calls on the estimator ({len(hooks)} into its own class: {sorted(set(hooks))})")
    for c in seen:
        print("  ", c)

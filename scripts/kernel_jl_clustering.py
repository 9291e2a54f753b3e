"""
=======================================================================
Kernel k-means through KernelJL features (Kpotufe & Sriperumbudur 2020)
=======================================================================

KMeans on KernelJL features (as in the paper, and with
``center=True``) against KMeans on Nystroem and RBFSampler features, plain
KMeans, and exact kernel k-means on a subset small enough for its Gram
matrix, on MNIST (t10k, 10000 points) and pendigits (train, 7494 points).
NMI and ARI are mean +- std over seeds, and preprocessing time
(fit_transform) the median, as the subsample size n and
the output dimension d vary with d <= n <= 400. The gallery example
``examples/clustering/plot_kernel_jl_pca.py`` compares PCA on such features
with kernel PCA.

Data: MNIST and pendigits from ``--data-home`` (default
``$SKLEARN_SKETCH_DATA``); without them (a fresh clone) the digits bundled
with scikit-learn. ``--quick`` takes 1000 points, 2 seeds and a small grid;
drop it for the full run. Run ``python scripts/kernel_jl_clustering.py --help``
for the options.
"""

import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from sklearn_sketch import KernelJL
from sklearn_sketch.datasets import fetch_mnist, fetch_pendigits

from _common import data_home_and_output_dir, kernel_kmeans, parse_settings, score, script_parser


N_CLUSTERS = 10
N_INIT = 3  # KMeans restarts; 1 in --quick mode


def load(name, data_home, n_points):
    """Rows scaled to [0, 1] and an RBF gamma of about 2 / median squared distance."""
    if name == "digits":  # the stand-in data, in the order of a stratified split
        X, y = load_digits(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(
            (X / 16.0).astype(np.float32), y, test_size=0.3, stratify=y, random_state=0)
        X, y, gamma = np.vstack([X_train, X_test]), np.concatenate([y_train, y_test]), 0.08
    elif name == "mnist":
        X, y = fetch_mnist(data_home, subset="test", return_X_y=True)
        gamma = 0.02
    else:
        X, y = fetch_pendigits(data_home, subset="train", return_X_y=True)
        X, gamma = (X / 100.0).astype(np.float32), 2.0
    return X[:n_points], y[:n_points], gamma


def clustering(name, X, y, gamma, grid, seeds, n_exact, progress=print):
    rows = []

    def record(method, n, d, features_fn, seed):
        start = time.perf_counter()
        features = features_fn(seed)
        prep = time.perf_counter() - start
        labels = KMeans(N_CLUSTERS, n_init=N_INIT, random_state=seed).fit_predict(features)
        nmi, ari = score(y, labels)
        rows.append(dict(dataset=name, method=method, n=n, d=d, seed=seed,
                         nmi=nmi, ari=ari, time=prep))

    for seed in seeds:
        record("KMeans", None, X.shape[1], lambda s: X, seed)
        for n, d in grid:
            # The paper's features are uncentered; the estimator centers by default.
            for center, method in ((False, "KernelJL"), (True, "KernelJL centered")):
                record(method, n, d, lambda s: KernelJL(
                    d, n_subsample=n, gamma=gamma, center=center, random_state=s
                ).fit_transform(X), seed)
        for n in sorted({n for n, _ in grid}):
            record("Nystroem", n, n, lambda s: Nystroem(
                gamma=gamma, n_components=n, random_state=s).fit_transform(X), seed)
        for d in sorted({d for _, d in grid}):
            record("RBFSampler", None, d, lambda s: RBFSampler(
                gamma=gamma, n_components=d, random_state=s).fit_transform(X), seed)
        # Exact kernel k-means needs the full Gram matrix: a subset only,
        # scored against that subset's labels.
        Xe, ye = X[:n_exact], y[:n_exact]
        start = time.perf_counter()
        K = rbf_kernel(Xe.astype(np.float64), gamma=gamma)
        nmi, ari = score(ye, kernel_kmeans(K, N_CLUSTERS, seed))
        rows.append(dict(dataset=name, method=f"exact kernel k-means (first {n_exact})",
                         n=n_exact, d=None, seed=seed, nmi=nmi, ari=ari,
                         time=time.perf_counter() - start))
        # The same subset through KernelJL, for a like-for-like comparison.
        n_max, d_max = max(grid)
        for center, label in ((False, "KernelJL"), (True, "KernelJL centered")):
            features = KernelJL(d_max, n_subsample=min(n_max, n_exact), gamma=gamma,
                                center=center, random_state=seed).fit_transform(Xe)
            labels = KMeans(N_CLUSTERS, n_init=N_INIT, random_state=seed).fit_predict(features)
            nmi, ari = score(ye, labels)
            rows.append(dict(dataset=name, method=f"{label} (first {n_exact})", n=n_max,
                             d=d_max, seed=seed, nmi=nmi, ari=ari, time=np.nan))
        progress(f"{name}, seed {seed}: {len(rows)} clusterings done")
    return rows


def summarize(df, keys, values):
    agg = df.groupby(keys, dropna=False)[values].agg(["mean", "std"])
    out = pd.DataFrame(index=agg.index)
    for v in values:
        out[v] = [f"{m:.3f} +- {s:.3f}" for m, s in zip(agg[(v, "mean")], agg[(v, "std")])]
    return out.reset_index()


def to_markdown(df):
    """A Markdown table (no extra dependency)."""
    lines = ["| " + " | ".join(map(str, df.columns)) + " |",
             "|" + " --- |" * len(df.columns)]
    lines += ["| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |"
              for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


# %%
# Settings
# --------
# ``--quick`` (also in a notebook): 1000 points, 2 seeds, one KMeans start
# and two (n, d) pairs; the exact kernel k-means on the first 300 points.
# Without it: 10000 points, 3 seeds, six (n, d) pairs, 2000 points for the
# exact kernel k-means.

# KMeans on a few thousand points gains nothing from OpenMP threads, and
# they slow it down badly when the machine is busy.
threadpool_limits(limits=1, user_api="openmp")
parser = script_parser("Kernel k-means through KernelJL features.")
parser.add_argument("--datasets", nargs="+", choices=["mnist", "pendigits", "digits"],
                    help="default: mnist pendigits (those present in --data-home), else digits")
args = parse_settings(parser)
data_home, out = data_home_and_output_dir(args)
if args.datasets is None:
    args.datasets = [name for name in ("mnist", "pendigits")
                     if args.download or Path(data_home, name).is_dir()]
    if not args.datasets:
        print(f"No MNIST or pendigits in {data_home}: "
              "running on the digits bundled with scikit-learn.")
        args.datasets = ["digits"]
if args.quick:
    N_INIT = 1
    n_points, seeds, n_exact, grid = 1000, [0, 1], 300, [(50, 25), (100, 50)]
else:
    n_points, seeds, n_exact = 10000, [0, 1, 2], 2000
    grid = [(50, 25), (50, 50), (100, 50), (100, 100), (200, 100), (400, 100)]

# %%
# Clustering
# ----------
# For each data set and seed: KMeans on the features of every pipeline
# (KernelJL uncentered as in the paper and centered, Nystroem, RBFSampler,
# the rows themselves), exact kernel k-means on a subset.

n_cells, cells, start = len(args.datasets) * len(seeds), [], time.perf_counter()


def progress(message):
    """Print a step of the run with the time spent and the time left."""
    cells.append(message)
    elapsed = time.perf_counter() - start
    left = elapsed / len(cells) * max(n_cells - len(cells), 0)
    print(f"[{len(cells)}/{n_cells}] {message} "
          f"(elapsed {elapsed:.0f} s, about {left:.0f} s left)", flush=True)


cluster_rows = []
for name in args.datasets:
    X, y, gamma = load(name, data_home, n_points)
    print(f"{name}: {X.shape}, rbf gamma={gamma}", flush=True)
    cluster_rows += clustering(name, X, y, gamma, grid, seeds, n_exact, progress)

# %%
# The tables
# ----------
# NMI and ARI (agreement of the clusters with the classes, 1 is perfect),
# mean +- std over the seeds, and the preprocessing seconds.

cdf = pd.DataFrame(cluster_rows)
cdf.to_csv(out / "clustering.csv", index=False)
ctab = summarize(cdf, ["dataset", "method", "n", "d"], ["nmi", "ari", "time"])
(out / "clustering.md").write_text(to_markdown(ctab))
pd.set_option("display.width", 200)
print(f"\nClustering (KMeans, 10 clusters, n_init={N_INIT}): NMI, ARI, preprocessing seconds, "
      "mean +- std over seeds")
print(ctab.to_string(index=False))

# %%
# NMI and time against the subsample size
# ---------------------------------------
# For each data set, top: the NMI of KMeans on each sketch against the
# subsample size n (KernelJL at its largest d per n), plain KMeans and exact
# kernel k-means (on its subset) as horizontal lines; bottom: the
# preprocessing time. Nystroem at the same n is the strong baseline; on the
# quick run's small n and d the sketches stay below plain KMeans on MNIST,
# and the full run's larger n closes part of the gap (the Benchmarks page has its
# table).

fig, axes = plt.subplots(2 * len(args.datasets), 1, figsize=(9, 9 * len(args.datasets)))
for row, name in enumerate(args.datasets):
    top, bottom = axes[2 * row], axes[2 * row + 1]
    sub = cdf[cdf.dataset == name]
    for method, marker in [("KernelJL", "o"), ("KernelJL centered", "D"), ("Nystroem", "s")]:
        m = sub[sub.method == method].groupby(["n", "d"])[["nmi", "time"]].mean().reset_index()
        m = m.sort_values("d").groupby("n").last().reset_index()
        top.plot(m.n, m.nmi, marker=marker, label=method)
        bottom.plot(m.n, m.time, marker=marker, label=method)
    top.axhline(sub[sub.method == "KMeans"].nmi.mean(), color="k", ls="--", label="plain KMeans")
    rff = sub[sub.method == "RBFSampler"].groupby("d").nmi.mean()
    top.plot(rff.index, rff.values, marker="^", label="RBFSampler (x = d)")
    exact = sub[sub.method.str.startswith("exact")]
    top.axhline(exact.nmi.mean(), color="r", ls=":", label=exact.method.iloc[0])
    top.set(title=f"{name}: NMI", xlabel="subsample size n", ylabel="NMI", xscale="log")
    bottom.set(title=f"{name}: preprocessing time", xlabel="subsample size n",
               ylabel="seconds", xscale="log", yscale="log")
    top.legend(fontsize=9)
    bottom.legend(fontsize=9)
fig.tight_layout()
fig.savefig(out / "clustering.png", dpi=100)
print(f"\nwrote {out}/clustering.(csv|md|png)")

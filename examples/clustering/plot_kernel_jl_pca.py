"""
==============================================================
Kernel PCA through KernelJL features (Kpotufe & Sriperumbudur)
==============================================================

On a subset of the rows, the top principal component scores of PCA on
``KernelJL`` features against exact kernel PCA's (the features approximate
<k(., x), Sigma^3 k(., y)>, whose eigenfunctions are those of Sigma): the
cosines of the principal angles between the two top-k score subspaces, and
the embedding itself: the first two principal components of the KernelJL
features beside exact kernel PCA's, one color per digit. The previous
example, ``kernel_jl_clustering.py``, clusters the same data.

Data: MNIST (t10k) and pendigits (train) from ``--data-home``; without them
(a fresh clone) the digits bundled with scikit-learn. ``--quick`` (used by
the documentation build) takes 300 points, 2 seeds and two (n, d) pairs;
drop it for the full run. Run ``python examples/kernel_jl_pca.py --help``
for the options; it writes kpca.csv, kpca.md, kpca.png and embedding.png.
"""

# sphinx_gallery_multi_image = "single"

import argparse
import os
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA, KernelPCA
from sklearn.model_selection import train_test_split

from sklearn_sketch import KernelJL
from sklearn_sketch.datasets import fetch_mnist, fetch_pendigits, get_data_home


# %%
# Command line and data
# ---------------------
# ``--quick`` selects the small settings this page shows (also in a
# notebook); ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``, see :func:`sklearn_sketch.datasets.get_data_home`),
# without which the example runs on stand-in data and says so;
# ``--download`` fetches them instead; ``--output-dir`` gets the results.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"
DOWNLOAD = False  # set from --download


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small settings: seconds")
    parser.add_argument("--data-home", default=None, help="folder of the real data sets")
    parser.add_argument("--download", action="store_true", help="fetch missing data sets")
    parser.add_argument("--output-dir", default=str(HERE / "output"), help="for the results")
    return parser


def parse_settings(parser, argv=None):
    """The settings; in a notebook, whose kernel passes ``-f ...`` (ignored), the quick ones."""
    global DOWNLOAD
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    DOWNLOAD = args.download
    return args


def data_home_and_output_dir(args):
    """``--data-home``, else ``$SKLEARN_SKETCH_DATA``, else the folder beside a
    checkout, else the fetchers' default; and the output folder, made."""
    unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
    use_shared = unset and SHARED_DATA_HOME.is_dir()
    data_home = SHARED_DATA_HOME if use_shared else get_data_home(args.data_home)
    Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    return data_home, Path(args.output_dir)


# %%
# The data and the comparison
# ---------------------------


def load(name, data_home, n_points):
    """Rows scaled to [0, 1] and an RBF gamma of about 2 / median squared distance."""
    if name == "digits":  # in the order of kernel_jl_clustering.py's training/test split
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


def principal_cosines(A, B, k):
    """Cosines of the principal angles between the column spans of A[:, :k], B[:, :k]."""
    qa, _ = np.linalg.qr(A[:, :k] - A[:, :k].mean(axis=0))
    qb, _ = np.linalg.qr(B[:, :k] - B[:, :k].mean(axis=0))
    return np.linalg.svd(qa.T @ qb, compute_uv=False)


def kernel_pca(name, X, gamma, grid, seeds, k):
    exact = KernelPCA(n_components=k, kernel="rbf", gamma=gamma, random_state=0).fit_transform(
        X.astype(np.float64))
    rows = []
    for n, d in grid:
        for seed in seeds:
            for center in (False, True):
                features = KernelJL(d, n_subsample=n, gamma=gamma, center=center,
                                    random_state=seed).fit_transform(X)
                approx = PCA(n_components=k, random_state=0).fit_transform(features)
                cos = principal_cosines(exact, approx, k)
                first = abs(np.corrcoef(exact[:, 0], approx[:, 0])[0, 1])
                rows.append(dict(dataset=name, center=center, n=n, d=d, seed=seed, k=k,
                                 mean_cosine=cos.mean(), min_cosine=cos.min(),
                                 first_component_corr=first))
    return rows


def plot_embedding(datasets, data_home, n_points, n_and_d, out):
    """The first two principal components of KernelJL features beside exact kernel PCA's."""
    n, d = n_and_d
    fig, axes = plt.subplots(len(datasets), 2, figsize=(10, 4.2 * len(datasets)), squeeze=False)
    for row, name in enumerate(datasets):
        X, y, gamma = load(name, data_home, n_points)
        features = KernelJL(
            d, n_subsample=n, gamma=gamma, center=True, random_state=0
        ).fit_transform(X)
        exact = KernelPCA(2, kernel="rbf", gamma=gamma, random_state=0)
        embeddings = {
            f"PCA of KernelJL(center=True) features (n={n}, d={d})":
                PCA(2, random_state=0).fit_transform(features),
            "exact kernel PCA": exact.fit_transform(X.astype(np.float64)),
        }
        for ax, (title, Z) in zip(axes[row], embeddings.items()):
            points = ax.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=6)
            ax.set(title=f"{name}: {title}", xlabel="component 1", ylabel="component 2")
        axes[row, 1].legend(*points.legend_elements(), fontsize=7, title="label", loc="best")
    for ax in axes.ravel():
        ax.title.set_fontsize(9)
    fig.tight_layout()
    fig.savefig(out / "embedding.png", dpi=100)


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
# ``--quick`` (this page, a notebook): the first 300 points, 2 seeds and two
# (n, d) pairs. Without it: the first 1500 points, 3 seeds and six pairs.

parser = example_parser("Kernel PCA through KernelJL features.")
parser.add_argument("--datasets", nargs="+", choices=["mnist", "pendigits", "digits"],
                    help="default: mnist pendigits (those present in --data-home), else digits")
args = parse_settings(parser)
data_home, out = data_home_and_output_dir(args)
if args.datasets is None:
    args.datasets = [name for name in ("mnist", "pendigits")
                     if DOWNLOAD or Path(data_home, name).is_dir()]
    if not args.datasets:
        print(f"No MNIST or pendigits in {data_home}: "
              "running on the digits bundled with scikit-learn.")
        args.datasets = ["digits"]
if args.quick:
    n_kpca, seeds, k, grid = 300, [0, 1], 5, [(50, 25), (100, 50)]
else:
    n_kpca, seeds, k = 1500, [0, 1, 2], 5
    grid = [(50, 25), (50, 50), (100, 50), (100, 100), (200, 100), (400, 100)]

# %%
# Agreement with the exact principal components
# ---------------------------------------------
# For each data set, (n, d) and seed, uncentered as in the paper and
# centered: the mean and smallest cosine of the principal angles between the
# top-k score subspaces of PCA on KernelJL features and of exact kernel PCA
# (1: the same subspace), and the correlation of the first components'
# scores, mean +- std over the seeds.

kpca_rows = []
for name in args.datasets:
    X, y, gamma = load(name, data_home, n_kpca)
    print(f"{name}: {X.shape}, rbf gamma={gamma}", flush=True)
    kpca_rows += kernel_pca(name, X, gamma, [(n, d) for n, d in grid if n <= n_kpca], seeds, k)
kdf = pd.DataFrame(kpca_rows)
kdf.to_csv(out / "kpca.csv", index=False)
ktab = summarize(
    kdf, ["dataset", "center", "n", "d"], ["mean_cosine", "min_cosine", "first_component_corr"]
)
(out / "kpca.md").write_text(to_markdown(ktab))
pd.set_option("display.width", 200)
print(f"\nKernel PCA agreement (top {k} components, first {n_kpca} points)")
print(ktab.to_string(index=False))

fig, ax = plt.subplots(figsize=(9, 5))
for name in args.datasets:
    for center, style in ((False, "-"), (True, "--")):
        sub = kdf[(kdf.dataset == name) & (kdf.center == center)]
        m = sub.groupby(["n", "d"]).mean_cosine.mean().reset_index()
        ax.plot([f"{a},{b}" for a, b in zip(m.n, m.d)], m.mean_cosine, marker="o",
                ls=style, label=f"{name}{', centered' if center else ''}")
ax.set(title=f"KernelJL + PCA vs exact kernel PCA (top {k})", xlabel="n, d",
       ylabel="mean cosine of principal angles", ylim=(0, 1.02))
ax.legend()
fig.tight_layout()
fig.savefig(out / "kpca.png", dpi=100)

# %%
# The embeddings
# --------------
# The first two principal components of the KernelJL features beside exact
# kernel PCA's, one color per digit: the same structure, up to a rotation.

plot_embedding(args.datasets, data_home, n_kpca, max(grid), out)
print(f"\nwrote {out}/kpca.(csv|md|png), embedding.png")

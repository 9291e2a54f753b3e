"""Kpotufe & Sriperumbudur (2020) use on digits: one section of ``reproduce_tables.py``.

KMeans on ``KernelJL`` features (uncentered as in the paper, and centered)
against Nystroem, random Fourier features, plain KMeans and exact kernel
k-means, scored by NMI and ARI; the section's figure panel is NMI against
the output dimension d.
"""

import numpy as np
from sklearn.cluster import KMeans
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics.pairwise import rbf_kernel

from sklearn_sketch import KernelJL

from _common import kernel_kmeans, pm, score, timed

N_CLUSTERS = 10

KJL_LINE = "  {:<22} {:>4} {:>4}  {:>14} {:>14}  {:>6} {:>6}"


def clustering_pipelines(grid, gamma):
    """(method, n, d, features of (X, seed)) of every KMeans pipeline."""
    pipelines = [("KMeans on the rows", "", 64, lambda X, seed: X)]
    for n, d in grid:
        for center, method in ((False, "KernelJL"), (True, "KernelJL(center=True)")):
            pipelines.append(
                (
                    method,
                    n,
                    d,
                    lambda X, seed, n=n, d=d, center=center: KernelJL(
                        d, n_subsample=n, gamma=gamma, center=center, random_state=seed
                    ).fit_transform(X),
                )
            )
    for n in sorted({n for n, _ in grid}):
        pipelines.append(
            (
                "Nystroem",
                n,
                n,
                lambda X, seed, n=n: Nystroem(
                    gamma=gamma, n_components=n, random_state=seed
                ).fit_transform(X),
            )
        )
    for d in sorted({d for _, d in grid}):
        pipelines.append(
            (
                "RBFSampler",
                "",
                d,
                lambda X, seed, d=d: RBFSampler(
                    gamma=gamma, n_components=d, random_state=seed
                ).fit_transform(X),
            )
        )
    return pipelines


def cluster_runs(cluster, X, y, seeds):
    """NMI, ARI and seconds of ``cluster(X, seed) -> labels`` for each seed."""
    runs = []
    for seed in seeds:
        labels, seconds = timed(cluster, X, seed)
        runs.append(score(y, labels) + (seconds,))
    runs = np.array(runs)
    return dict(
        nmi_mean=runs[:, 0].mean(),
        nmi_std=runs[:, 0].std(),
        ari_mean=runs[:, 1].mean(),
        ari_std=runs[:, 1].std(),
        seconds=runs[:, 2].mean(),
    )


def kernel_jl_rows(X, y, gamma, grid, seeds, n_init, log):
    """One row per pipeline (features + KMeans), then exact kernel k-means."""
    n_clusters = N_CLUSTERS
    exact = cluster_runs(
        lambda X, seed: kernel_kmeans(
            rbf_kernel(X, gamma=gamma), n_clusters, seed
        ),
        X,
        y,
        seeds,
    )
    reference = dict(
        reference="exact kernel k-means",
        reference_nmi=exact["nmi_mean"],
        reference_seconds=exact["seconds"],
    )
    rows = []
    for method, n, d, features in clustering_pipelines(grid, gamma):
        scores = cluster_runs(
            lambda X, seed, features=features: KMeans(
                n_clusters, n_init=n_init, random_state=seed
            ).fit_predict(features(X, seed)),
            X,
            y,
            seeds,
        )
        rows.append(
            dict(
                section="KernelJL",
                model=method,
                n_subsample=n,
                n_components=d,
                **scores,
                **reference,
            )
        )
        log(format_kjl_row(rows[-1]))
    rows.append(
        dict(
            section="KernelJL",
            model="exact kernel k-means",
            n_subsample=X.shape[0],
            n_components="",
            **exact,
        )
    )
    log(format_kjl_row(rows[-1]))
    return rows


def format_kjl_row(row):
    return KJL_LINE.format(
        row["model"],
        row["n_subsample"],
        row["n_components"],
        pm(row["nmi_mean"], row["nmi_std"], 3),
        pm(row["ari_mean"], row["ari_std"], 3),
        f"{row['seconds']:.3f}",
        f"{row['reference_seconds']:.3f}" if "reference" in row else "",
    )


def section(data, quick, log=print):
    X = np.vstack([data[0], data[2]])
    y = np.concatenate([data[1], data[3]])
    # RBF bandwidth: the inverse of the median squared distance between rows.
    rng = np.random.RandomState(0)
    sample = X[rng.choice(X.shape[0], 300, replace=False)]
    squared = ((sample[:, None, :] - sample[None, :, :]) ** 2).sum(-1)
    gamma = 1.0 / np.median(squared[squared > 0])
    seeds = [0, 1] if quick else [0, 1, 2]
    grid = [(50, 25), (100, 50)] if quick else [(25, 25), (50, 50), (100, 100), (200, 100)]
    log(
        f"\n[3/3] Kpotufe & Sriperumbudur (2020) use: KMeans on sketched features of all "
        f"{X.shape[0]} rows,"
    )
    log(
        f"      rbf gamma = {gamma:.3f}, NMI / ARI mean +- std over {len(seeds)} seeds; reference: "
        "exact kernel k-means;"
    )
    log("      time: features + KMeans, beside exact kernel k-means; no published digits figures.")
    log(KJL_LINE.format("method", "n", "d", "NMI", "ARI", "time s", "exact"))
    rows = kernel_jl_rows(X, y, gamma, grid, seeds, 1 if quick else 3, log)
    lines = [
        "### Kpotufe & Sriperumbudur (2020) use: kernel k-means through sketches on digits",
        "",
        f"NMI and ARI, mean ± std over {len(seeds)} seeds; n: subsample size, d: n_components; "
        "time: seconds for features + KMeans. Reference: exact kernel k-means "
        f"(NMI {rows[-1]['nmi_mean']:.3f}, {rows[-1]['seconds']:.3f} s). "
        "No published digits figures.",
        "",
        "| method | n | d | NMI | ARI | time s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['model']} | {r['n_subsample']} | {r['n_components']} | "
        f"{pm(r['nmi_mean'], r['nmi_std'], 3)} | {pm(r['ari_mean'], r['ari_std'], 3)} | "
        f"{r['seconds']:.3f} |".replace("+-", "±")
        for r in rows
    ]
    return rows, "\n".join(lines) + "\n", kernel_jl_panel(rows)


def kernel_jl_panel(rows):
    """NMI against d: per d the largest subsample n, for each sketch."""

    def curve(method):
        best = {r["n_components"]: r["nmi_mean"] for r in rows if r["model"] == method}
        return sorted(best), [best[d] for d in sorted(best)]

    x, y = curve("KernelJL")
    return dict(
        title="KernelJL + KMeans",
        label="KernelJL (as in the paper)",
        others={
            "KernelJL(center=True)": curve("KernelJL(center=True)"),
            "Nystroem (n = d)": curve("Nystroem"),
        },
        xlabel="n_components (d)",
        ylabel="NMI",
        x=x,
        y=y,
        exact=rows[-1]["nmi_mean"],
        exact_label="exact kernel k-means",
    )

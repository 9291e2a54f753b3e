"""KernelJL against Nystroem on MNIST t10k (10000 x 784, float32).

For each subsample size n (the same for both methods) and d = 100 output
features, measures in one run:

* fit time of KernelJL(n_components=d, n_subsample=n) and of
  Nystroem(n_components=n), and their ratio;
* transform time of KernelJL on all 10000 rows against the bare evaluation
  ``pairwise_kernels(X, kjl.components_)`` that it must perform anyway, in
  float32 (as given) and in float64, and their ratios (the overhead of the
  chunked ``@ W``);
* NMI and ARI of KMeans(10) on KernelJL features (uncentered, the paper's
  estimator, and with ``center=True``) and on Nystroem features, mean +- std
  over seeds.

Times are medians over ``--repeats`` runs, with the two methods interleaved so
that load from other processes affects both alike. Run::

    python benchmarks/bench_kernel_jl.py [--data-home DIR] [--n 1000 2000 4000]
"""

import argparse
import os

import numpy as np
from sklearn.cluster import KMeans
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.pairwise import pairwise_kernels

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import default_data_home, repeat_times

from sklearn_sketch import KernelJL
from sklearn_sketch.datasets import fetch_mnist


def _clustering_scores(features, y, seed):
    labels = KMeans(n_clusters=10, n_init=3, random_state=seed).fit_predict(features)
    return normalized_mutual_info_score(y, labels), adjusted_rand_score(y, labels)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--gamma", type=float, default=0.02,
                        help="RBF gamma; 0.02 is about 2 / median squared distance")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)

    X, y = fetch_mnist(args.data_home, subset="test", return_X_y=True)
    print(f"MNIST t10k {X.shape} {X.dtype}, rbf gamma={args.gamma}, d={args.d}, "
          f"median of {args.repeats} repeats, {os.cpu_count()} CPUs")

    header = (f"{'n':>5} | {'KJL fit':>8} {'Nys fit':>8} {'Nys/KJL':>8} | "
              f"{'KJL tr':>7} {'bare K':>7} {'KJL/bare':>8} {'bare64':>7} {'KJL/b64':>7} {'Nys tr':>7} | "
              f"{'NMI KJL':>13} {'NMI KJL-c':>13} {'NMI Nys':>13} | "
              f"{'ARI KJL':>13} {'ARI KJL-c':>13} {'ARI Nys':>13}")
    print(header)
    print("-" * len(header))
    for n in args.n:
        kjl = KernelJL(n_components=args.d, n_subsample=n, gamma=args.gamma, random_state=0)
        nys = Nystroem(n_components=n, gamma=args.gamma, random_state=0)
        times = repeat_times({
            "fit_kjl": lambda: kjl.fit(X),
            "fit_nys": lambda: nys.fit(X),
            "tr_kjl": lambda: kjl.transform(X),
            "tr_bare": lambda: pairwise_kernels(
                X, kjl.components_, metric="rbf", gamma=args.gamma
            ),
            "tr_nys": lambda: nys.transform(X),
            "tr_bare64": lambda: pairwise_kernels(
                X.astype(np.float64), kjl.components_.astype(np.float64),
                metric="rbf", gamma=args.gamma,
            ),
        }, args.repeats)
        # Ratios are medians of per-repeat ratios (both timed back to back).
        tr_ratio = np.median(times["tr_kjl"] / times["tr_bare"])
        tr_ratio64 = np.median(times["tr_kjl"] / times["tr_bare64"])
        fit_ratio = np.median(times["fit_nys"] / times["fit_kjl"])
        fit_kjl, fit_nys, tr_kjl, tr_bare, tr_nys, tr_bare64 = (
            np.median(values) for values in times.values()
        )

        scores = {"kjl": [], "kjl_c": [], "nys": []}
        for seed in range(args.seeds):
            for key, center in (("kjl", False), ("kjl_c", True)):
                scores[key].append(_clustering_scores(
                    kjl.set_params(random_state=seed, center=center).fit_transform(X), y, seed))
            scores["nys"].append(_clustering_scores(
                nys.set_params(random_state=seed).fit_transform(X), y, seed))
        s = {k: np.array(v) for k, v in scores.items()}

        def fmt(a):
            return f"{a.mean():.3f}+-{a.std():.3f}"

        print(f"{n:>5} | {fit_kjl:8.3f} {fit_nys:8.3f} {fit_ratio:7.1f}x | "
              f"{tr_kjl:7.3f} {tr_bare:7.3f} {tr_ratio:7.2f}x {tr_bare64:7.3f} {tr_ratio64:6.2f}x "
              f"{tr_nys:7.3f} | "
              f"{fmt(s['kjl'][:, 0]):>13} {fmt(s['kjl_c'][:, 0]):>13} {fmt(s['nys'][:, 0]):>13} | "
              f"{fmt(s['kjl'][:, 1]):>13} {fmt(s['kjl_c'][:, 1]):>13} {fmt(s['nys'][:, 1]):>13}",
              flush=True)
    print("times in seconds; ratios are medians of per-repeat ratios; NMI/ARI of KMeans(10, n_init=3) on the features, "
          f"mean+-std over {args.seeds} seeds; KJL-c is KernelJL(center=True)")


if __name__ == "__main__":
    main()

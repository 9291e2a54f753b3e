"""Accuracy of resemblance codes at equal k: CoREHasher's schemes against rensa.

Pairs of term sets (300 per data set, drawn at random with a fixed seed
among the pairs with resemblance 0.05 < J < 0.95):

* sector (train, raw counts): the terms of each page;
* MNIST (train): the pixels above one half of each image;
* 20 Newsgroups (train, raw counts): the terms of each message.

For every seed, the 600 rows are transformed at once by
``CoREHasher(k, kernel="resemblance", b_bits=None, hashing=...)`` (the
output column of block j is code j, the location itself, so the fraction
of equal codes is the estimate of J, with no b-bit bias), for "oph", "fss"
and "minwise" (k <= 256 only: it costs k hashes per entry), and by rensa's
``RMinHash.digest_matrix_from_flat_token_hashes`` (the column indices as
token ids, the seed as its seed) where rensa is installed. The table gives,
over the seeds and pairs, the RMSE and the bias of the estimate against the
exact J, the ratio of each RMSE to rensa's, and k independent minwise
hashes' theory ``sqrt(mean J (1 - J) / k)``. ``--plot FILE`` draws RMSE
against k per data set.

Then the speed of ``hashing="fss"`` at k = 256 on 3000 sector rows (float32
counts, 8-bit codes, CSR output; ``n_jobs=1`` and ``2``) against rensa's
batch digests of the same rows (both cores), with "oph" beside it, best of
``--repeats``, the functions run in turn within each repeat. Run::

    python benchmarks/bench_resemblance_accuracy.py [--seeds 200] [--quick] \\
        [--plot FILE] [--data-home DIR] [--repeats 5]
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp

# The script's folder; importing it puts this source tree first on sys.path.
from _bench import best_times, print_table, rensa_available, rensa_digests

from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import (
    fetch_20newsgroups_counts,
    fetch_mnist,
    fetch_sector,
)

N_PAIRS = 300
KS = (64, 128, 256, 512, 1024)
MINWISE_MAX_K = 256
SCHEMES = ("oph", "fss", "minwise")


def term_sets(name, data_home):
    """The binary CSR rows (canonical, float64) of a data set."""
    if name == "sector":
        X, _ = fetch_sector(data_home, subset="train", values="counts", return_X_y=True)
    elif name == "mnist":
        X, _ = fetch_mnist(data_home, subset="train", return_X_y=True)
        X = sp.csr_matrix(np.asarray(X[:20000]) > 0.5)
    else:
        X, _ = fetch_20newsgroups_counts(data_home, subset="train", return_X_y=True)
    X = sp.csr_matrix(X, dtype=np.float64)
    X.eliminate_zeros()
    X.sum_duplicates()
    X.data[:] = 1.0
    return X


def draw_pairs(X, n_pairs, seed=0):
    """``n_pairs`` random pairs with 0.05 < J < 0.95: stacked rows and their J."""
    rng = np.random.RandomState(seed)
    first, second, resemblances = [], [], []
    while len(first) < n_pairs:
        i, j = rng.randint(X.shape[0], size=2)
        a = X.indices[X.indptr[i] : X.indptr[i + 1]]
        b = X.indices[X.indptr[j] : X.indptr[j + 1]]
        union = np.union1d(a, b).size
        J = np.intersect1d(a, b).size / union if union else 0.0
        if i != j and 0.05 < J < 0.95:
            first.append(i)
            second.append(j)
            resemblances.append(J)
    return X[first + second], np.array(resemblances)


def hasher_estimates(rows, k, hashing, seed):
    """Fraction of equal codes of each pair: one transform of all rows."""
    hasher = CoREHasher(
        k, kernel="resemblance", b_bits=None, hashing=hashing, random_state=seed
    )
    codes = hasher.fit_transform(rows).indices.reshape(-1, k)
    n = codes.shape[0] // 2
    return (codes[:n] == codes[n:]).mean(axis=1)


def rensa_estimates(rows, k, seed):
    digests = rensa_digests(
        rows.indices.astype(np.uint64), rows.indptr.astype(np.uint64), k, seed
    )
    codes = np.array(digests.to_rows(), dtype=np.uint32)
    n = codes.shape[0] // 2
    return (codes[:n] == codes[n:]).mean(axis=1)


def accuracy(rows, J, ks, n_seeds):
    """``{(scheme, k): (rmse, bias)}`` over the seeds and pairs."""
    schemes = SCHEMES + (("rensa",) if rensa_available() else ())
    results = {}
    for k in ks:
        for scheme in schemes:
            if scheme == "minwise" and k > MINWISE_MAX_K:
                continue
            errors = np.empty((n_seeds, J.size))
            for seed in range(n_seeds):
                if scheme == "rensa":
                    estimates = rensa_estimates(rows, k, seed)
                else:
                    estimates = hasher_estimates(rows, k, scheme, seed)
                errors[seed] = estimates - J
            results[scheme, k] = (np.sqrt(np.mean(errors**2)), errors.mean())
        results["theory", k] = (np.sqrt(np.mean(J * (1 - J)) / k), 0.0)
    return results


def print_accuracy(name, rows, J, results, ks, n_seeds):
    sizes = np.diff(rows.indptr)
    print(f"\n{name}: {J.size} pairs, mean J {J.mean():.3f}, mean set size "
          f"{sizes.mean():.0f}, {n_seeds} seeds; RMSE (bias) [RMSE / rensa's]")
    schemes = [s for s in SCHEMES + ("rensa", "theory") if (s, ks[0]) in results]
    print("  " + f"{'k':>5s}" + "".join(f"{s:>26s}" for s in schemes))
    for k in ks:
        line = f"  {k:5d}"
        reference = results.get(("rensa", k), (np.nan,))[0]
        for scheme in schemes:
            if (scheme, k) not in results:
                line += f"{'-':>26s}"
                continue
            rmse, bias = results[scheme, k]
            line += f"{rmse:9.4f} ({bias:+.4f}) [{rmse / reference:4.2f}]"
        print(line)


def plot(all_results, ks, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(all_results), figsize=(5 * len(all_results), 4))
    for ax, (name, results) in zip(np.atleast_1d(axes), all_results.items()):
        for scheme in SCHEMES + ("rensa", "theory"):
            points = [(k, results[scheme, k][0]) for k in ks if (scheme, k) in results]
            if not points:
                continue
            label = {"theory": "k-hash MinHash theory", "rensa": "rensa RMinHash"}.get(
                scheme, f"CoREHasher {scheme}"
            )
            style = "k--" if scheme == "theory" else "o-"
            ax.plot(*zip(*points), style, label=label)
        ax.set(xscale="log", yscale="log", xlabel="k (codes per row)",
               ylabel="RMSE of J", title=name)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"\nplot written to {path}")


def speed(data_home, repeats, k=256, n_rows=3000):
    X, _ = fetch_sector(data_home, subset="train", values="counts", return_X_y=True)
    X = X[:n_rows].astype(np.float32)
    print(f"\nspeed: sector {X.shape}, nnz={X.nnz}, float32, k={k}, 8-bit codes, "
          f"best of {repeats}")

    def hasher(**params):
        fitted = CoREHasher(k, kernel="resemblance", random_state=0, **params)
        fitted.fit(X[:1])
        fitted.transform(X[:10])  # compiles (or loads) the kernels first
        return fitted

    functions, rensa = {}, "rensa digest_matrix_from_flat_token_hashes"
    if rensa_available():
        indices, offsets = X.indices.astype(np.uint64), X.indptr.astype(np.uint64)
        functions[rensa] = lambda: rensa_digests(indices, offsets, k)
    for hashing in ("fss", "oph"):
        for n_jobs in (1, 2):
            fitted = hasher(hashing=hashing, n_jobs=n_jobs)
            name = f"CoREHasher {hashing} n_jobs={n_jobs}"
            functions[name] = lambda fitted=fitted: fitted.transform(X)
    times = best_times(functions, repeats)
    print_table("method (speed-up = rensa's time / the row's)", times,
                rensa if rensa in times else None, unit="ms", speedup=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 seeds, k <= 256")
    parser.add_argument("--plot", default=None, help="file of the RMSE figure")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--datasets", default="sector,mnist,20newsgroups")
    args = parser.parse_args()
    n_seeds, ks = (20, KS[:3]) if args.quick else (args.seeds, KS)
    if not rensa_available():
        print("rensa is not installed: its column and the ratios are left out")
    all_results = {}
    for name in args.datasets.split(","):
        rows, J = draw_pairs(term_sets(name, args.data_home), N_PAIRS)
        start = time.perf_counter()
        all_results[name] = accuracy(rows, J, ks, n_seeds)
        print_accuracy(name, rows, J, all_results[name], ks, n_seeds)
        print(f"  ({time.perf_counter() - start:.0f} s)")
    if args.plot:
        plot(all_results, ks, args.plot)
    speed(args.data_home, args.repeats)


if __name__ == "__main__":
    main()

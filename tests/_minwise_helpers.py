"""What the statistical tests of CoREHasher share (not a test module).

Two example rows, the kernels and per-hash variances of MATH.md section 2,
an oracle with true random permutations, and the per-hash contributions of
the hasher actually used.
"""

import numpy as np
import scipy.sparse as sp

from sklearn_sketch import CoREHasher

N_DRAWS = 100_000


def pair(binary):
    """Two rows on consecutive (structured) coordinates, overlapping on 20 of 60.

    Heavy-tailed values with a few negative entries; the correlation is
    moderate, so that every term of the variance formulas matters.
    """
    rng = np.random.default_rng(1)
    n_features = 64
    u, v = np.zeros(n_features), np.zeros(n_features)
    u[0:40] = rng.lognormal(0, 1, 40)
    v[20:60] = rng.lognormal(0, 1, 40)
    v[20:40] = u[20:40] * rng.uniform(0.5, 1.5, 20)
    u[5], v[50] = -u[5], -v[50]
    if binary:
        u, v = (u != 0) * 1.0, (v != 0) * 1.0
    return u, v


def minwise_theory(u, v):
    """Kernels and per-hash variances (k = 1) of MATH.md section 2."""
    su, sv = u != 0, v != 0
    a, union = (su & sv).sum(), (su | sv).sum()
    f_u, f_v = su.sum(), sv.sum()
    un, vn = u / np.linalg.norm(u), v / np.linalg.norm(v)
    rho, R = un @ vn, a / union
    s = np.sum(un**2 * vn**2)
    k_c2 = rho * np.sqrt(f_u * f_v) / union
    return {
        "core1": (rho * R, (1 + 2 * rho**2) * R - rho**2 * R**2),
        "core1_rademacher": (rho * R, (1 + 2 * rho**2 - 2 * s) * R - rho**2 * R**2),
        "core2": (k_c2, f_u * f_v / union * s - k_c2**2),
        "resemblance": (R, R - R**2),
    }


def permutation_oracle(u, v, n, seed):
    """Per-hash samples with true random permutations and Gaussian projections.

    Only the coordinates of the union matter: under a uniformly random
    permutation the i.i.d. uniform ranks of those coordinates give a uniformly
    random order, and coordinates outside the union never reach a minimum nor
    enter a projection.
    """
    rng = np.random.default_rng(seed)
    union = np.flatnonzero((u != 0) | (v != 0))
    un, vn = u[union] / np.linalg.norm(u), v[union] / np.linalg.norm(v)
    ranks = rng.random((n, union.size))
    L_u = np.argmin(np.where(un != 0, ranks, np.inf), axis=1)
    L_v = np.argmin(np.where(vn != 0, ranks, np.inf), axis=1)
    collide = L_u == L_v
    r = rng.standard_normal((n, union.size))
    f_u, f_v = (u != 0).sum(), (v != 0).sum()
    return {
        "core1": collide * (r @ un) * (r @ vn),
        "core2": collide * np.sqrt(f_u * f_v) * un[L_u] * vn[L_v],
        "resemblance": collide * 1.0,
        "core2_miss": (~collide) * np.sqrt(f_u * f_v) * un[L_u] * vn[L_v],
    }


def per_hash(u, v, n, **params):
    """Per-hash contributions ``k z_u[j] . z_v[j]`` of the hasher actually used."""
    # The k hashes of the "minwise" scheme are independent draws.
    hasher = CoREHasher(n_components=n, hashing="minwise", **params)
    hasher.fit(np.vstack([u, v]))
    Z = hasher.transform(sp.csr_matrix(np.vstack([u, v])))
    width = Z.shape[1] // n
    product = Z[0].multiply(Z[1]).tocoo()
    contributions = np.bincount(product.col // width, product.data, minlength=n)
    return contributions * n


def check_mean_and_variance(samples, kernel, variance):
    n = samples.size
    mean, var = samples.mean(), samples.var()
    m4 = np.mean((samples - mean) ** 4)
    # Mean: within 4 standard errors of the kernel.
    assert abs(mean - kernel) < 4 * samples.std() / np.sqrt(n), (mean, kernel)
    # Variance: 10% of the formula must exceed 4 standard errors of the
    # sample variance (else the test would be noise), then match within 10%.
    se_var = np.sqrt((m4 - var**2) / n)
    assert 4 * se_var < 0.10 * variance, (se_var, variance)
    assert abs(var - variance) < 0.10 * variance, (var, variance)


def densified_oph_variance(n_common, n_union, k):
    """Variance of one-permutation hashing with optimal densification.

    The estimator is the fraction of the ``k`` bins whose codes collide, for
    two sets sharing ``n_common`` of their ``n_union`` elements, with a fully
    random hash and fully random probe sequences (the setting of Shrivastava
    2017's analysis). Given the number ``n`` of bins the union fills and
    ``m = k - n``, the estimate is ``sum_g N_g X_g / k`` over the filled
    bins: ``X_g`` says whether the union's minimum in bin ``g`` is common
    (the ``n`` minima are a uniform ``n``-subset of the union) and ``N_g``
    is 1 plus the empty bins whose first probe hit is ``g`` (multinomial,
    ``m`` trials over ``n`` bins, independent of the ``X``). With ``R =
    n_common / n_union``, ``R~ = (n_common - 1) / (n_union - 1)`` and
    ``E sum N_g**2 = n + 3 m + m (m - 1) / n``::

        Var = R R~ - R**2 + R (1 - R~) E[sum N_g**2] / k**2

    averaged over the occupancy distribution of ``n`` (``n_union`` balls in
    ``k`` bins). With no empty bin it is sampling without replacement,
    ``R (1 - R) (n_union - k) / (k (n_union - 1))``.
    """
    occupancy = np.zeros(k + 1)
    occupancy[0] = 1.0
    n = np.arange(k + 1)
    for _ in range(n_union):
        occupancy = occupancy * n / k + np.r_[0.0, occupancy[:-1] * (k - n[:-1]) / k]
    R, R_tilde = n_common / n_union, (n_common - 1) / (n_union - 1)
    n, occupancy = n[1:], occupancy[1:]
    m = k - n
    sum_squares = n + 3 * m + m * (m - 1) / n
    given_n = R * R_tilde - R**2 + R * (1 - R_tilde) * sum_squares / k**2
    return np.sum(occupancy * given_n)


def densified_oph_oracle(n_common, n_union, k, n_draws, seed):
    """Estimates of fully random densified OPH (elements ``< n_common`` are common)."""
    rng = np.random.default_rng(seed)
    estimates = np.empty(n_draws)
    for draw in range(n_draws):
        bins = rng.integers(0, k, n_union)
        by_rank = rng.permutation(n_union)
        filled, first = np.unique(bins[by_rank], return_index=True)
        common = by_rank[first] < n_common
        # Each empty bin's first hit: a uniform filled bin, independently.
        hits = rng.integers(0, filled.size, k - filled.size)
        weights = 1 + np.bincount(hits, minlength=filled.size)
        estimates[draw] = weights @ common / k
    return estimates

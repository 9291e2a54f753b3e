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

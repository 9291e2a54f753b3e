"""What the test files of the polynomial sketches share (not a test module).

The code paths of the registry the statistical tests name (``VARIANTS``), Monte-Carlo
helpers and the closed-form variances the statistical tests compare with.

Closed forms used below (MATH.md section 1, Wacker et al. 2023, Table 1),
for augmented rows x', y' with rho = <x', y'>, s = sum_i x'_i^2 y'_i^2 and
n = |x'|^2 |y'|^2:

* real Rademacher product, D features, per feature prod_j (w_j.x)(w_j.y):
  E[(w.x)^2 (w.y)^2] = n + 2 rho^2 - 2 s (pairings of four +-1 entries, the
  all-equal index counted once), so Var = ((n + 2 rho^2 - 2 s)^p - rho^(2p)) / D.
* complex Rademacher (entries 1, -1, i, -i; E w = E w^2 = 0, |w| = 1), with
  a = w.x and b = conj(w).y: E|a|^2|b|^2 = n + rho^2 - s =: A and
  E a^2 b^2 = 2 rho^2 - s =: B (only pairings of w with conj(w) survive).
  The estimate is the mean over D/2 rows of Re Z, Z = prod_j a_j b_j, and
  (Re Z)^2 = (|Z|^2 + Re Z^2) / 2, so Var = (A^p + B^p - 2 rho^(2p)) / D.
  Both need only 4-wise independent entries: every second moment involves
  at most four entries per degree.
"""

import numpy as np
from conftest import registry_variant, statistical_seeds
from sklearn import config_context

from sklearn_sketch import TensorSketch

# The code paths of the statistical and exact-oracle tests, by short name:
# entries of the registry of ``conftest.py`` (with an option changed where a
# formula is about another setting), each test setting every size and kernel
# parameter itself.
VARIANTS = {
    "tensorsrht": registry_variant("TensorSRHT"),
    "ctr-srht": registry_variant("ComplexToRealSketch-srht"),
    "ctr-rademacher": registry_variant("ComplexToRealSketch-rademacher"),
    "tree-srht": registry_variant("PolynomialTreeSketch-tensorsrht"),
    "tree-ts": registry_variant("PolynomialTreeSketch-tensorsketch"),
    "tree-ts-hash": registry_variant("PolynomialTreeSketch-hash"),
    "maclaurin": registry_variant("MaclaurinSketch-tree"),
    "maclaurin-ts-sketched-linear": registry_variant(
        "MaclaurinSketch-tensorsketch", linear="sketch"
    ),
    "maclaurin-srht": registry_variant("MaclaurinSketch-tensorsrht", linear="auto"),
}


def augment(x, gamma, coef0):
    return np.append(np.sqrt(gamma) * x, np.sqrt(coef0))


def sketched_products(make, X, n_draws, **params):
    """Z(x) . Z(y) for every pair of rows of X, for n_draws random states.

    Returns an array of shape (n_draws, n_rows, n_rows).
    """
    out = np.empty((n_draws, X.shape[0], X.shape[0]))
    with config_context(assume_finite=True, skip_parameter_validation=True):
        for draw, seed in enumerate(statistical_seeds(n_draws)):
            Z = make(random_state=seed, **params).fit_transform(X)
            out[draw] = Z @ Z.T
    return out


def mean_and_variance_errors(samples):
    """Sample variance and its standard error sqrt((m4 - var^2) / N)."""
    centered = samples - samples.mean(axis=0)
    variance = np.mean(centered**2, axis=0)
    error = np.sqrt((np.mean(centered**4, axis=0) - variance**2) / samples.shape[0])
    return variance, error


# ---------------------------------------------------------------------------
# The Hadamard transform


def ctr_rademacher_closed_form(x, y, degree, n_components):
    rho = x @ y
    s = np.sum(x**2 * y**2)
    A = (x @ x) * (y @ y) + rho**2 - s
    B = 2 * rho**2 - s
    return (A**degree + B**degree - 2 * rho ** (2 * degree)) / n_components


def real_rademacher_closed_form(x, y, degree, n_components):
    rho = x @ y
    s = np.sum(x**2 * y**2)
    return (((x @ x) * (y @ y) + 2 * rho**2 - 2 * s) ** degree - rho ** (2 * degree)) / n_components



def ordered_pairs_within_blocks(n_features, block_size):
    """Number of ordered pairs of distinct features that share a block."""
    full, rest = divmod(n_features, block_size)
    return full * block_size * (block_size - 1) + rest * (rest - 1)


def tensor_srht_closed_form(x, y, degree, n_components, d):
    """Var of TensorSRHT for augmented x, y and Hadamard length d.

    A feature is prod_j u_j with u = (H D x)_i (H D y)_i; per coordinate
    E u^2 = n + 2 rho^2 - 2 s (a Rademacher row of H D), so a feature has
    variance V1 = (n + 2 rho^2 - 2 s)^p - rho^(2p). Two features of one block
    read distinct coordinates i != i' in every degree, and sum_i u_i = d rho
    exactly (H^T H = d I), so the mean of u_i u_i' over distinct pairs is
    (d^2 rho^2 - d E u^2) / (d (d - 1)): their covariance is
    C = (rho^2 - (n + rho^2 - 2 s) / (d - 1))^p - rho^(2p). Blocks and
    degrees are independent. Var = (D V1 + M C) / D^2, M the ordered pairs
    of distinct features within blocks.
    """
    return tensor_srht_moment_form(
        (x @ x) * (y @ y), (x @ y) ** 2, np.sum(x**2 * y**2), degree, n_components, d
    )


def tensor_srht_moment_form(n, r2, s, degree, n_components, d):
    """``tensor_srht_closed_form`` from the moments n, r2 = rho^2 and s.

    Each is linear in the per-degree moments, so with a hash-down the
    same form taken at their means over the Count Sketch (``hashed_moments``)
    is the mean over the hashes of the conditional variance.
    """
    V1 = (n + 2 * r2 - 2 * s) ** degree - r2**degree
    C = (r2 - (n + r2 - 2 * s) / (d - 1)) ** degree - r2**degree
    M = ordered_pairs_within_blocks(n_components, d)
    return (n_components * V1 + M * C) / n_components**2


def ctr_srht_closed_form(x, y, degree, n_components, d):
    """Var of ComplexToRealSketch(projection="srht"), even n_components.

    m = D / 2 complex features Z_r = prod_j u_j, u = a conj(b) with
    a = (H D x)_i, b = (H D y)_i for a complex Rademacher diagonal D:
    E|u|^2 = A = n + rho^2 - s, E u^2 = B = 2 rho^2 - s (as for complex
    Rademacher rows), and sum_i u_i = d rho exactly. Within a block the
    distinct-coordinate means are C1 = rho^2 - (n - s) / (d - 1) for
    u_i conj(u_i') and C2 = rho^2 - (rho^2 - s) / (d - 1) for u_i u_i'. The
    estimate is Re of the mean of Z_r, and (Re W)^2 = (|W|^2 + Re W^2) / 2:
    Var = (m (A^p + B^p - 2 rho^(2p)) + M (C1^p + C2^p - 2 rho^(2p))) / (2 m^2).
    """
    return ctr_srht_moment_form(
        (x @ x) * (y @ y), (x @ y) ** 2, np.sum(x**2 * y**2), degree, n_components, d
    )


def ctr_srht_moment_form(n, r2, s, degree, n_components, d):
    """``ctr_srht_closed_form`` from the moments (see ``tensor_srht_moment_form``)."""
    m = n_components // 2
    A, B = n + r2 - s, 2 * r2 - s
    C1, C2 = r2 - (n - s) / (d - 1), r2 - (r2 - s) / (d - 1)
    M = ordered_pairs_within_blocks(m, d)
    twice = 2 * r2**degree
    return (m * (A**degree + B**degree - twice) + M * (C1**degree + C2**degree - twice)) / (
        2 * m**2
    )


def image_like_rows(seed, n_rows):
    """Non-negative, half-sparse unit rows of 30 features (like images)."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n_rows, 30) * (rng.rand(n_rows, 30) < 0.5)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def log_error_gap(make_better, X, n_draws, **params):
    """Mean log squared Frobenius error of TensorSketch minus ``make_better``'s.

    Returns the gap and its standard error; both use ``gamma = coef0 = 0.5``.
    """
    exact = (0.5 * X @ X.T + 0.5) ** params["degree"]
    log_errors = [
        np.log(np.sum((sketched_products(make, X, n_draws, **params) - exact) ** 2, axis=(1, 2)))
        for make in (TensorSketch, make_better)
    ]
    standard_error = np.sqrt(sum(e.var(ddof=1) / e.size for e in log_errors))
    return log_errors[0].mean() - log_errors[1].mean(), standard_error

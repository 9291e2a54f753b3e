"""The projections of CoREHasher (``minwise/_projection.py``): the hashed
Gaussian projection's extra variance, against its closed form.
"""

import numpy as np
import pytest
from _minwise_helpers import check_mean_and_variance, minwise_theory, pair, per_hash
from conftest import statistical_seed


def _hashed_theory(u, v, n_buckets, group_columns):
    """Mean and variance of the mean of ``group_columns`` type 1 hashes that
    share one Count Sketch of ``n_buckets`` buckets ("hashed_gaussian").

    With ``U, V`` the sketches of ``u~, v~`` and ``X = P(u) P(v)``, over the
    Gaussian and then the sketch: ``E[X^2] = 1 + 2 rho^2 + (2/m)(1 + 2 rho^2
    - 3 s)`` and ``E[<U, V>^2] = rho^2 + (1/m)(1 + rho^2 - 2 s)``; two hashes
    of a group are independent given the sketch, hence covary by ``R^2 (1 +
    rho^2 - 2 s) / m`` (independent minwise collisions).
    """
    theory = minwise_theory(u, v)
    R = theory["resemblance"][0]
    rho = theory["core1"][0] / R
    un, vn = u / np.linalg.norm(u), v / np.linalg.norm(v)
    s = np.sum(un**2 * vn**2)
    m, c = n_buckets, group_columns
    single = R * (1 + 2 * rho**2 + 2 / m * (1 + 2 * rho**2 - 3 * s)) - (rho * R) ** 2
    covariance = R**2 * (1 + rho**2 - 2 * s) / m
    return rho * R, single / c + (c - 1) / c * covariance


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.parametrize("binary", [False, True], ids=["real", "binary"])
def test_hashed_gaussian_mean_and_variance(binary, monkeypatch):
    # "hashed_gaussian" with 16 buckets per sketch (the default 8192 makes the
    # extra variance too small to see): the groups of 64 hashes are
    # independent draws of a 64-hash estimator; their mean is unbiased for
    # K_C1 and their variance follows the formula above, which the paper's
    # (independent Gaussian entries) misses by far here.
    import sklearn_sketch.minwise._projection as projection

    n_buckets, group_columns, n_groups = 16, 64, 12000
    monkeypatch.setattr(projection, "HASHED_BUCKETS", n_buckets)
    monkeypatch.setattr(projection, "HASHED_GROUP_COLUMNS", group_columns)
    u, v = pair(binary)
    samples = per_hash(
        u,
        v,
        group_columns * n_groups,
        kernel="core1",
        projection="hashed_gaussian",
        b_bits=None,
        random_state=statistical_seed(0),
    )
    group_means = samples.reshape(n_groups, group_columns).mean(axis=1)
    kernel_value, variance = _hashed_theory(u, v, n_buckets, group_columns)
    check_mean_and_variance(group_means, kernel_value, variance)
    paper = minwise_theory(u, v)["core1"][1] / group_columns
    assert abs(group_means.var() - paper) > 0.5 * paper


def test_hashed_gaussian_extra_variance_is_small_by_default():
    # With the default sketches the extra variance is at most 1.6% of the
    # paper's, for any k (here 256 and 4096) and both example pairs.
    from sklearn_sketch.minwise._projection import HASHED_BUCKETS, HASHED_GROUP_COLUMNS

    for binary in (False, True):
        u, v = pair(binary)
        for k in (256, 4096):
            _, variance = _hashed_theory(u, v, HASHED_BUCKETS, HASHED_GROUP_COLUMNS)
            # k / HASHED_GROUP_COLUMNS independent groups.
            variance /= k // HASHED_GROUP_COLUMNS
            paper = minwise_theory(u, v)["core1"][1] / k
            assert paper < variance < 1.016 * paper

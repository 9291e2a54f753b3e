"""What the hashed features estimate, and their variance, for ``n_components="auto"``.

Each of the ``k`` hashes of a row contributes one term to an inner product
of two output rows, and the terms of independent hashes are independent,
so the estimate's variance is that of one term over ``k``. For b-bit codes
of the location (CoREHasher) or of the sample (MinMaxHasher) two different
ones share a code with probability ``o = 2**-b`` (0 without codes), which
the features' expectation (what they estimate, ``estimated_kernel``) includes.

* MinMaxHasher: a term is 1 when the codes agree, which they do with
  probability ``P_b = P + (1 - P) o`` (``P`` the collision probability of
  the sample, the min-max kernel, or of its coordinate for ``"0bit"``):
  variance ``P_b (1 - P_b)``.
* CoREHasher (Li 2014), with ``R`` the resemblance, ``R_b = R + (1 - R) o``
  and the correlation ``rho`` of the normalized rows: the resemblance's
  term has variance ``R_b (1 - R_b)``; type 1's term carries the product
  of two projections, with mean ``rho`` and second moment
  ``1 + 2 rho^2`` (Gaussian) or ``1 + 2 rho^2 - 2 sum u~^2 v~^2``
  (Rademacher), so its mean is ``rho R_b`` and its second moment ``R_b``
  times that; type 2's term is ``sqrt(f_u f_v) u~_L v~_L'`` at the two
  rows' locations, the same with probability ``R``; when they differ, each
  row's location is uniform on its own set given the other's (minwise
  permutations), which gives the terms of :func:`core_moments`.

The hashes of ``hashing="minwise"`` are independent; those of "fss" and
"oph" are not (negatively correlated, or copied by densification): the
formula of independent hashes gives the size at which pilots measure them.
"""

import numpy as np
import scipy.sparse as sp

from .._sizing import Pilot, VarianceModel, compact_columns, dense_product, scale_rows, square
from ..metrics import _zero_bit_probability, gmm_kernel, min_max_kernel

#: The sampled rows that pilot hashers transform: fewer than the other
#: families' pilots, since hashing is cheap and the sizing must stay a small
#: part of it. The error of pilot hashes on 64 rows extrapolates within the
#: tests' tolerance; polynomial pilots on as few rows predict too small an error.
N_PILOT_ROWS = 64


def code_offset(b_bits):
    """``2**-b``, the probability that two different keys share a b-bit code (0 for None)."""
    return 0.0 if b_bits is None else 2.0**-b_bits


def pattern_statistics(X, kernel="core2", projection="gaussian", dtype=np.float64):
    """Per pair of rows of ``X``: the sizes and shared entries of their supports and,
    as ``kernel`` and ``projection`` need them, sums over their normalized values
    (see :func:`core_moments`), by matrix products in ``dtype`` (float32 for a
    variance, whose estimate needs no more digits; float64 for the kernel the
    error is measured against), returned in float64.
    """
    if sp.issparse(X):
        X = compact_columns(sp.csr_matrix(X, dtype=np.float64))
    else:  # Dense rows stay dense (through CSR and back would cost more than a copy).
        X = np.asarray(X, dtype=np.float64)
    B = (X != 0).astype(dtype)
    sizes = np.asarray(B.sum(axis=1), dtype=np.float64).ravel()
    shared = dense_product(B, B)
    stats = dict(sizes=sizes, shared=shared, union=sizes[:, None] + sizes[None, :] - shared)
    if kernel == "resemblance":
        return stats
    # Normalized in float64 (whatever the scale of the rows), then multiplied in dtype.
    norms = np.sqrt(np.asarray(square(X).sum(axis=1)).ravel())
    U = scale_rows(X, np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0))
    U = U.astype(dtype)
    stats["rho"] = dense_product(U, U)
    if kernel == "core1" and projection != "rademacher":
        return stats
    U2 = square(U)
    stats["fourth"] = dense_product(U2, U2)
    if kernel == "core2":
        sums = np.asarray(U.sum(axis=1), dtype=np.float64).ravel()
        stats.update(squares_shared=dense_product(U2, B), sums=sums,
                     sums_shared=dense_product(U, B))
    return stats


def core_moments(stats, kernel, projection, b_bits):
    """Mean and second moment of one hash's term of CoREHasher, every pair of rows."""
    offset = code_offset(b_bits)
    sizes, union = stats["sizes"], stats["union"]
    both = np.outer(sizes > 0, sizes > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        R = np.where(both, stats["shared"] / union, 0.0)
        collide = np.where(both, R + (1 - R) * offset, 0.0)
        if kernel == "resemblance":
            return collide, collide
        rho = stats["rho"]
        if kernel == "core1":
            second = 1 + 2 * rho**2
            if projection == "rademacher":
                second -= 2 * stats["fourth"]
            return rho * collide, collide * second
        f_u, f_v = sizes[:, None], sizes[None, :]
        scale = np.where(both, np.sqrt(f_u * f_v) / union, 0.0)
        sums, shared_sums = stats["sums"], stats["sums_shared"]
        apart = ((sums[:, None] - shared_sums) * sums[None, :] / f_v
                 + (sums[None, :] - shared_sums.T) * sums[:, None] / f_u)
        squares = stats["squares_shared"]
        apart_squares = (1 - squares) / f_v + (1 - squares.T) / f_u
        mean = scale * (rho + offset * np.where(both, apart, 0.0))
        second = scale * np.sqrt(f_u * f_v) * (
            stats["fourth"] + offset * np.where(both, apart_squares, 0.0))
    return mean, np.where(both, second, 0.0)


def core_kernel_with_offset(sketch_map, X):
    """What CoREHasher's features estimate between the rows of ``X``."""
    stats = pattern_statistics(X, sketch_map.kernel, sketch_map.projection)
    return core_moments(stats, sketch_map.kernel, sketch_map.projection, sketch_map.b_bits)[0]


def core_model(sketch_map, sample, build, random_state):
    """Independent hashes: the exact variance; "fss" and "oph": pilots at the size
    it predicts (their hashes are not independent)."""
    kernel, projection = sketch_map.kernel, sketch_map.projection
    stats = pattern_statistics(sample.rows, kernel, projection, dtype=np.float32)
    mean, second = core_moments(stats, kernel, projection, sketch_map.b_bits)
    ratio = sample.relative(sample.weigh_gram(second - mean**2), sample.weigh_gram(mean**2))
    pilot = None
    if sketch_map.hashing != "minwise":
        # The pilots' kernel: the sampled rows' (their means), not computed again.
        pilot = Pilot(sample, build, random_state, kernel=mean, n_rows=N_PILOT_ROWS,
                      has_floor=sketch_map.hashing == "oph")
    return VarianceModel(lambda n: ratio / n, pilot=pilot)


def min_max_kernel_with_offset(sketch_map, X):
    """What MinMaxHasher's features estimate: ``P + (1 - P) 2**-b`` (rows not all zero)."""
    if sketch_map.codes == "0bit":
        P = _zero_bit_probability(X)
    elif sketch_map.kernel == "gmm":
        P = gmm_kernel(X)
    else:
        P = min_max_kernel(X)
    nonempty = np.diff(sp.csr_matrix(X).indptr) > 0
    both = np.outer(nonempty, nonempty)
    return np.where(both, P + (1 - P) * code_offset(sketch_map.b_bits), 0.0)


def min_max_model(sketch_map, sample):
    """The variance ``P_b (1 - P_b) / k`` of the fraction of agreeing codes."""
    mean = min_max_kernel_with_offset(sketch_map, sample.rows)
    ratio = sample.relative(sample.weigh_gram(mean * (1 - mean)), sample.weigh_gram(mean**2))
    return VarianceModel(lambda n: ratio / n)

"""The variances of the polynomial sketches, for ``n_components="auto"``.

Every map sketches ``<x', y'> ** p`` for ``x' = [sqrt(gamma) x, sqrt(coef0)]``.
With ``rho = <x', y'>``, ``N = |x'|^2 |y'|^2`` and ``s = sum_i x'_i^2 y'_i^2``
(:func:`pair_moments`), the variance of one feature is exact in closed form:

* a product of independent Rademacher-type factors, whose degree ``j``
  contributes ``<u_j, x'> conj(<u_j, y'>)``: with ``A = N + rho^2 - s`` and
  ``B = 2 rho^2 - s``, ``(A^p + B^p - 2 rho^(2p)) / D`` for complex
  Rademacher entries (ComplexToRealSketch, ``D`` real features, Wacker et
  al. 2023), and the same for TensorSketch's Count Sketch product up to
  terms of order ``1 / D^2`` (buckets that collide in two degrees at once);
* TensorSRHT: each feature has variance ``(rho^2 + c)^p - rho^(2p)`` with
  ``c = N + rho^2 - 2 s``, and two features that sample distinct
  coordinates of one Hadamard block of length ``d`` have covariance
  ``(rho^2 - c / (d - 1))^p - rho^(2p)`` (``H^T H = d I``); the complex
  SRHT has the analogous terms. A Count Sketch that hashes wide input down
  to the block length ``W`` first adds ``(rho^2 + c / W)^p - rho^(2p)``,
  whatever ``D``.

The tree and the Maclaurin sketches, whose nodes sketch sketches, are sized
by pilots (``_sizing.PilotModel``).
"""

import functools

import numpy as np
import scipy.fft

from .._sizing import (
    Pilot,
    PilotModel,
    VarianceModel,
    dense_product,
    same_block_pairs,
    square,
)
from ._hadamard_blocks import n_augmented_features, srht_width

#: The size of the first pilots of the sketches without a closed form.
PILOT_SIZE = 256


def gram_moments(X, gamma, coef0):
    """``(rho, N, s)`` (see the module) of every pair of the augmented rows of ``X``."""
    squares = square(X)
    with np.errstate(over="ignore", invalid="ignore"):
        rho = gamma * dense_product(X, X) + coef0
        norms = np.diag(rho)
        s = gamma**2 * dense_product(squares, squares) + coef0**2
        return rho, np.multiply.outer(norms, norms), s


def sample_moments(sketch_map, sample):
    """:func:`gram_moments` of the sampled rows."""
    return gram_moments(sample.rows, sketch_map.gamma, sketch_map.coef0)


def polynomial_kernel(sketch_map, X):
    """``(gamma <x, y> + coef0) ** degree`` between the rows of ``X`` (float64)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (sketch_map.gamma * dense_product(X, X) + sketch_map.coef0) ** sketch_map.degree


def product_variance(moments, degree):
    """``A^p + B^p - 2 rho^(2p)``: one feature of a product of Rademacher-type factors."""
    rho, norms, s = moments
    with np.errstate(over="ignore", invalid="ignore"):
        return (norms + rho**2 - s) ** degree + (2 * rho**2 - s) ** degree - 2 * rho ** (2 * degree)


def _relative(sample, moments, degree, variance):
    """``weigh(variance(moments)) / weigh(K^2)`` over the pairs of the sampled rows."""
    with np.errstate(over="ignore", invalid="ignore"):
        kernel_norm = sample.weigh_gram(moments[0] ** (2 * degree))
        total = sample.weigh_gram(variance(moments))
    return sample.relative(total, kernel_norm)


def fast_length(n):
    """The smallest length at least ``n`` whose real FFT is fast (5-smooth)."""
    return scipy.fft.next_fast_len(max(int(n), 1), real=True)


def even(n):
    """The smallest even size at least ``n``."""
    n = max(int(n), 2)
    return n + n % 2


def count_sketch_model(sketch_map, sample):
    """TensorSketch: ``(A^p + B^p - 2 rho^(2p)) / D``, FFT-friendly sizes."""
    degree = sketch_map.degree
    ratio = _relative(sample, sample_moments(sketch_map, sample), degree,
                      lambda moments: product_variance(moments, degree))
    return VarianceModel(lambda n: ratio / n, fast_length)


def srht_terms(moments, degree, block, hashed, complex_signs):
    """Per pair, the variance of one SRHT sample, the covariance of two samples of
    one block of length ``block``, and the Count Sketch's variance of hashed input.

    Real samples (TensorSRHT) or complex ones (ComplexToRealSketch, whose
    ``n_components`` real features are half as many complex samples).
    """
    rho, norms, s = moments
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        power = rho ** (2 * degree)
        c = norms + rho**2 - 2 * s
        inverse = 1.0 / (block - 1) if block > 1 else 0.0
        if complex_signs:
            single = 0.5 * product_variance(moments, degree)
            pair = 0.5 * ((rho**2 + (s - norms) * inverse) ** degree
                          + (rho**2 + (s - rho**2) * inverse) ** degree) - power
        else:
            single = (rho**2 + c) ** degree - power
            pair = (rho**2 - c * inverse) ** degree - power
        floor = (rho**2 + c / block) ** degree - power if hashed else np.zeros_like(rho)
    return single, pair, floor


def srht_model(sketch_map, sample, complex_signs=False):
    """TensorSRHT (or the complex SRHT of ComplexToRealSketch): the exact variance,
    ``(n single + sum_b f_b (f_b - 1) pair) / n^2 + floor`` for ``n`` samples."""
    degree, moments = sketch_map.degree, sample_moments(sketch_map, sample)
    n_keys = n_augmented_features(sketch_map.n_features, sketch_map.coef0)
    with np.errstate(over="ignore", invalid="ignore"):
        kernel_norm = sample.weigh_gram(moments[0] ** (2 * degree))

    @functools.lru_cache(maxsize=None)
    def weighed_terms(block, hashed):
        # The block length takes a few values (powers of two) over a search.
        terms = srht_terms(moments, degree, block, hashed, complex_signs)
        return [sample.relative(sample.weigh_gram(term), kernel_norm) for term in terms]

    def variance(n_components):
        n_samples = -(-n_components // 2) if complex_signs else n_components
        block, hashed = srht_width(n_keys, n_samples)
        single, pair, floor = weighed_terms(block, hashed)
        same = same_block_pairs(n_samples, block)
        return (n_samples * single + same * pair) / n_samples**2 + floor

    return VarianceModel(variance, even if complex_signs else None)


def rademacher_model(sketch_map, sample):
    """ComplexToRealSketch with complex Rademacher projections: even sizes."""
    model = count_sketch_model(sketch_map, sample)
    model.admissible = even
    return model


def pilot_model(sample, build, random_state, admissible=None, minimum=1):
    """The sketches of sketches: pilots of ``PILOT_SIZE`` features first."""
    pilot = Pilot(sample, build, random_state)
    start = max(PILOT_SIZE, minimum)
    return PilotModel(pilot, start, lambda n: max((admissible or int)(n), minimum))

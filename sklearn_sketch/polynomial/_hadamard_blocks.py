"""The augmented input and the sampled, signed Hadamard blocks the SRHT maps share.

Every polynomial map sketches ``(gamma <x, y> + coef0) ** degree`` through the
homogeneous kernel ``<x', y'> ** degree`` of the augmented input
``x' = [sqrt(gamma) x, sqrt(coef0)]`` (Pham & Pagh 2013). The maps built on
subsampled randomized Hadamard transforms (TensorSRHT's product, the tree's
``tensorsrht`` nodes, the complex projections) share the dense augmented
rows, the hash-down of wide input, the sampled Hadamard coordinates and the
random signs of Hadamard blocks, which this module holds. The signs come
from the polynomial hashes of ``utils._hashing``, the home of every hash
family; the Count Sketch and the Walsh-Hadamard transform are in ``utils``.
"""

import itertools

import numpy as np
import scipy.sparse as sp

from ..utils._count_sketch import hash_down, hash_down_array, hash_down_array_tables
from ..utils._hadamard import hadamard_array, hadamard_length
from ..utils._hashing import polynomial_hash

# The unit complex numbers 1, i, -1, -i indexed by two hash bits.
UNIT_REAL = np.array([1.0, 0.0, -1.0, 0.0])
UNIT_IMAG = np.array([0.0, 1.0, 0.0, -1.0])


def n_augmented_features(n_features, coef0):
    """Width of ``x' = [sqrt(gamma) x, sqrt(coef0)]``; the constant is dropped when 0."""
    return n_features + (1 if coef0 > 0 else 0)


def augmented_dense(X, gamma, coef0, width, dtype):
    """The dense augmented rows ``[sqrt(gamma) x, sqrt(coef0), 0, ..., 0]``.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_rows, n_features)
    gamma, coef0 : float
    width : int
        Output width, at least ``n_augmented_features(n_features, coef0)``;
        the columns beyond it are zero (Hadamard padding).
    dtype : numpy dtype

    Returns
    -------
    U : ndarray of shape (n_rows, width)
    """
    n_rows, n_features = X.shape
    U = np.zeros((n_rows, width), dtype=dtype)
    # Sparse input is densified here, one row chunk at a time: the Hadamard
    # transform mixes every coordinate, so it cannot stay sparse.
    U[:, :n_features] = X.toarray() if sp.issparse(X) else X
    if gamma != 1.0:
        U[:, :n_features] *= np.dtype(dtype).type(np.sqrt(gamma))
    if coef0 > 0:
        U[:, n_features] = np.sqrt(coef0)
    return U


def augmented_padding(n_features, coef0, width, dtype):
    """The columns of :func:`augmented_dense` beyond the input's, as one row.

    ``[sqrt(coef0), 0, ..., 0]`` (without the constant when ``coef0`` is 0)
    of length ``width - n_features``, in ``dtype``; None when empty. The
    maps' ``transform_array`` moves it to the device and concatenates it to
    every row (:func:`augmented_array`).
    """
    if width == n_features:
        return None
    padding = np.zeros(width - n_features, dtype=dtype)
    if coef0 > 0:
        padding[0] = np.sqrt(coef0)
    return padding


def augmented_array(X, gamma, padding, xp):
    """:func:`augmented_dense` of an array ``X`` of namespace ``xp``.

    ``padding`` is :func:`augmented_padding` on ``X``'s device (or None):
    the same values as the NumPy rows, ``sqrt(gamma)`` rounded to ``X``'s
    dtype and multiplied in.
    """
    if gamma != 1.0:
        X = X * float(np.sqrt(gamma))
    if padding is None:
        return X
    n_rows = X.shape[0]
    return xp.concat(
        [X, xp.broadcast_to(xp.reshape(padding, (1, -1)), (n_rows, padding.shape[0]))],
        axis=1,
    )


def sampled_hadamard_array(U, signs, coordinates, xp):
    """One SRHT of the rows ``U`` (an array of ``xp``): what ``srht_rows`` reads.

    ``U`` of shape (n_rows, block_size), ``signs`` (n_blocks, block_size)
    from :func:`block_signs` and ``coordinates`` (flat indices, as
    :func:`block_coordinates` draws them) on ``U``'s device. Each block
    ``H (signs[b] * u)`` is transformed by :func:`hadamard_array` and the
    sampled coordinates gathered.

    Returns
    -------
    samples : array of shape (n_rows, coordinates.shape[0])
    """
    n_rows = U.shape[0]
    blocks = hadamard_array(xp.expand_dims(U, axis=1) * signs, xp)
    return xp.take(xp.reshape(blocks, (n_rows, -1)), coordinates, axis=1)


# Wide input. An SRHT transforms a dense vector of its whole (padded) input,
# which for hashed text features (2**20 to 2**31 columns) is gigabytes per
# row. Beyond the cap below, each SRHT input is first reduced by a Count
# Sketch of its own (Charikar et al. 2002; the first stage of TensorSketch),
# whose cost follows the nonzeros. The cap, a power of two, is at least
# the number of sampled coordinates, so the hashed input stays one Hadamard
# block, and at least 2**12, so the hash adds little variance where the
# sketch's own is larger (the extra term is about 2 |x|^2 |y|^2 / width per
# degree, against |x|^2 |y|^2 / n_samples for the SRHT itself).
MIN_HASHED_WIDTH = 2**12


def srht_width(n_keys, n_samples):
    """The Hadamard length of an SRHT input, and whether it is hashed down.

    Parameters
    ----------
    n_keys : int
        Number of input coordinates (``x'`` and any padding keys).
    n_samples : int
        Number of coordinates the SRHT samples from its transform.

    Returns
    -------
    width : int
        ``hadamard_length(n_keys)`` when that is at most
        ``cap = max(MIN_HASHED_WIDTH, hadamard_length(n_samples))``
        (the exact SRHT of the padded input), else ``cap``.
    hashed : bool
        Whether the input is wider than ``cap`` and must be hashed down to
        ``width`` coordinates by a Count Sketch first.
    """
    padded = hadamard_length(n_keys)
    cap = max(MIN_HASHED_WIDTH, hadamard_length(n_samples))
    if padded <= cap:
        return padded, False
    return cap, True


def srht_inputs(X, gamma, coef0, width, hashes, n_sketches, dtype):
    """The rows that each of ``n_sketches`` SRHTs transforms.

    Without ``hashes``, the same dense augmented rows (padded to ``width``)
    for every SRHT; with them, each SRHT's own hash-down of the rows
    (:func:`hash_down`), computed one at a time as the iterator advances.

    Returns
    -------
    rows : iterator of ndarray of shape (n_rows, width)
    """
    if hashes is None:
        return itertools.repeat(augmented_dense(X, gamma, coef0, width, dtype), n_sketches)
    return (hash_down(X, hashes[j], width, gamma, coef0, dtype) for j in range(n_sketches))


def srht_array_tables(n_features, gamma, coef0, width, hashes, n_sketches, dtype, scatter):
    """The host tables of :func:`srht_inputs_array`, flat.

    Without ``hashes``: the padding row (:func:`augmented_padding`); with
    them, the three tables of :func:`hash_down_array_tables` of each
    sketch, in order (``scatter`` as there).
    """
    if hashes is None:
        return (augmented_padding(n_features, coef0, width, dtype),)
    return tuple(
        table
        for j in range(n_sketches)
        for table in hash_down_array_tables(
            hashes[j], n_features, width, gamma, coef0, dtype, scatter
        )
    )


def srht_inputs_array(X, gamma, tables, n_sketches, width, xp):
    """:func:`srht_inputs` of an array ``X`` of namespace ``xp``, with
    :func:`srht_array_tables` on ``X``'s device."""
    if len(tables) == 1:
        return itertools.repeat(augmented_array(X, gamma, tables[0], xp), n_sketches)
    return (
        hash_down_array(X, tables[3 * j : 3 * j + 3], width, xp) for j in range(n_sketches)
    )


def block_coordinates(random_state, n_samples, block_size, n_sketches=None):
    """Hadamard coordinates sampled without replacement within blocks.

    Sample ``r`` reads coordinate ``perm_b[r mod block_size]`` of block
    ``b = r // block_size``, ``perm_b`` an independent random permutation:
    the samples of one block are distinct, which lowers the variance (with
    a whole block and degree 1 the estimate is exact, since ``H^T H = d I``).

    With ``n_sketches``, the coordinates of that many sketches, drawn at
    once: the numbers of as many calls in a row (one draw, whatever the
    degree, instead of a call per degree).

    Returns
    -------
    coordinates : ndarray of shape (n_samples,) or (n_sketches, n_samples), dtype intp
        Flat indices into the ``(n_blocks, block_size)`` array of transformed
        blocks.
    """
    n_blocks = -(-n_samples // block_size)
    shape = (1 if n_sketches is None else n_sketches, n_blocks, block_size)
    permutations = np.argsort(random_state.rand(*shape), axis=2)
    flat = permutations + block_size * np.arange(n_blocks)[:, None]
    coordinates = flat.reshape(shape[0], -1)[:, :n_samples].astype(np.intp)
    return coordinates[0] if n_sketches is None else coordinates


def block_signs(coefficients, n_blocks, block_size, n_keys, dtype, complex_signs=False):
    """Random signs of every (block, coordinate) from one 4-wise polynomial hash.

    Key ``b * block_size + i`` gives the sign of coordinate ``i`` in block
    ``b``; coordinates ``>= n_keys`` are Hadamard padding (zero input) and get
    sign 0, which saves hashing them.

    Returns
    -------
    signs : ndarray of shape (n_blocks, block_size)
        +-1 of ``dtype``, or one of {1, i, -1, -i} (complex) when
        ``complex_signs``.
    """
    keys = (
        np.arange(n_blocks, dtype=np.uint64)[:, None] * np.uint64(block_size)
        + np.arange(n_keys, dtype=np.uint64)
    )
    values = polynomial_hash(coefficients, keys)
    result_dtype = np.result_type(dtype, np.complex64) if complex_signs else dtype
    signs = np.zeros((n_blocks, block_size), dtype=result_dtype)
    if complex_signs:
        code = (values & np.uint64(3)).astype(np.intp)
        signs[:, :n_keys] = UNIT_REAL[code] + 1j * UNIT_IMAG[code]
    else:
        signs[:, :n_keys] = 1.0 - 2.0 * (values & np.uint64(1)).astype(np.float64)
    return signs

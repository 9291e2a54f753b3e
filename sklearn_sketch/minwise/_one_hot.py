"""The b-bit one-hot output shared by the minwise-type hashers.

A hasher with ``k`` hashes gives every nonempty row one location per hash
(a coordinate chosen by the hash). Its output has one block per hash: the
block of hash ``j`` holds a single nonzero, at the b-bit code of the
location (a universal hash of it to ``b`` bits, so the block is ``2**b``
wide) or at the location itself (``b_bits=None``, blocks as wide as the
locations' range). All-zero rows have no locations and give empty rows, so
every output row has exactly ``k`` nonzeros or none, and its row pointers
are known before any hashing. The output's ``k * block_width`` columns are
indexed by int64 at most: a wider output is refused when the hasher's map,
a :class:`OneHotCodesMap`, is built, before anything is drawn.
"""

from abc import abstractmethod

import numpy as np
import scipy.sparse as sp

from .._map import SketchMap
from .._sizing import product_gram
from ..utils._hashing import bbit_codes
from ..utils._sparse import dense_to_csr

# Column indices and the shape of the CSR output are int64 (scipy's shape a
# C long): the widest output that can be indexed.
MAX_OUTPUT_WIDTH = np.iinfo(np.int64).max


def index_dtype(n_columns, nnz):
    """int32 for the indices of a CSR output when they and its nnz fit, else int64."""
    fits_int32 = max(n_columns, nnz) <= np.iinfo(np.int32).max
    return np.dtype(np.int32 if fits_int32 else np.int64)


def nonempty_rows(X):
    """Whether each row of a dense or CSR matrix has a nonzero."""
    return np.diff(X.indptr) > 0 if sp.issparse(X) else X.any(axis=1)


def output_indptr(nonempty, k, block_width):
    """Row pointers of an output with ``k`` entries per nonempty row.

    Their dtype, that of the output's indices, is int32 when the width ``k *
    block_width`` and the number of entries fit it, int64 otherwise.
    """
    n_nonempty = int(np.count_nonzero(nonempty))
    dtype = index_dtype(k * block_width, n_nonempty * k)
    indptr = np.zeros(len(nonempty) + 1, dtype=dtype)
    np.cumsum(nonempty, dtype=dtype, out=indptr[1:])
    indptr *= dtype.type(k)
    return indptr


def block_starts(k, block_width):
    """First output column of each hash's block: ``j * block_width`` (uint64)."""
    return np.arange(0, k * block_width, block_width, dtype=np.uint64)


def write_codes(
    locations, bucket_coefficients, b_bits, block_width, n_keys, out, positions=None
):
    """Column of each location in its hash's block, written into ``out``.

    Parameters
    ----------
    locations : ndarray of shape (n_rows, k) of non-negative integers
        Location chosen by hash ``j`` (column ``j``) in each row; with
        ``positions``, the one-dimensional array they index.
    bucket_coefficients : ndarray of shape (k, 2), dtype uint64
        Multiply-add-shift hashes of the b-bit codes (unused if ``b_bits``
        is None).
    b_bits : int or None
    block_width : int
        ``2**b_bits``, or the range of the locations when ``b_bits`` is None.
    n_keys : int
        An upper bound on the locations (exclusive).
    out : ndarray of shape (n_rows, k)
        Integer columns of the output (its indices' dtype).
    positions : ndarray of shape (n_rows, k), default=None
        The locations are ``locations[positions]``.
    """
    return bbit_codes(
        bucket_coefficients, locations, b_bits, out=out,
        offsets=block_starts(out.shape[1], block_width),
        n_keys=n_keys, positions=positions,
    )


class OneHotCodesMap(SketchMap):
    """The map of a hasher whose output is one-hot codes: ``k`` blocks of ``block_width``.

    A subclass writes the codes and values of canonical CSR rows in
    :meth:`transform_csr`. The output's width is checked by :meth:`check`,
    before anything is drawn, so that an output that cannot be indexed fails
    at once, not with an OverflowError in transform.

    Parameters
    ----------
    n_components : int
        The number of hashes ``k``, one block each.
    b_bits : int or None
        Bits of the codes; None keeps the locations (blocks of ``n_keys``).
    n_keys : int
        The range of the locations (the number of input features, or twice
        that for a split vector).
    """

    sparse_output = True
    #: What the locations range over, for the messages.
    keys_description = "the number of input features"

    def __init__(self, n_components, b_bits, n_keys):
        self.n_components = n_components
        self.b_bits = b_bits
        self.n_keys = n_keys
        self.block_width = n_keys if b_bits is None else 2**b_bits
        self.n_output = n_components * self.block_width

    def fitted_attributes(self):
        return {"n_output_features_": self.n_output}

    def output_bytes_per_row(self, dtype):
        # k entries, each a value and an index (int64 at most).
        return self.n_components * (np.dtype(dtype).itemsize + 8)

    def output_indptr(self, X):
        # Every nonempty row has exactly k nonzeros, so the output is
        # allocated before hashing and the chunks' pieces copied into it.
        return output_indptr(nonempty_rows(X), self.n_components, self.block_width)

    def transform_chunk(self, X_chunk, out, state):
        # A dense input is converted to CSR chunk by chunk, never whole.
        if not sp.issparse(X_chunk):
            X_chunk = dense_to_csr(X_chunk)
        return self.transform_csr(X_chunk, state)

    def gram(self, Z):
        # k comparisons per pair of nonempty rows (see _one_hot_kernels).
        from ._one_hot_kernels import one_hot_agreements, one_hot_gram

        Z = sp.csr_matrix(Z)
        counts = np.diff(Z.indptr)
        if not (np.all((counts == 0) | (counts == self.n_components)) and Z.has_sorted_indices):
            # Not k entries per row in block order (zeros dropped): the product.
            return product_gram(Z)
        nonempty = np.flatnonzero(counts)
        shape = (nonempty.size, self.n_components)
        start = Z.indptr[0]
        columns = Z.indices[start : start + nonempty.size * shape[1]].reshape(shape)
        values = Z.data[start : start + columns.size].astype(np.float64).reshape(shape)
        inner = np.empty((nonempty.size, nonempty.size))
        if values.size and np.all(values == values.flat[0]):
            one_hot_agreements(columns, inner)
            inner *= values.flat[0] ** 2
        else:
            one_hot_gram(columns, values, inner)
        gram = np.zeros((Z.shape[0], Z.shape[0]))
        gram[np.ix_(nonempty, nonempty)] = inner
        return gram

    @abstractmethod
    def transform_csr(self, X, state):
        """The output rows of canonical CSR rows ``X`` (a chunk), as a CSR matrix."""

    def width_advice(self):
        what = "a smaller b_bits" if self.b_bits is not None else "b_bits"
        return (
            f"{what} or n_components (the output has n_components * block "
            f"width columns, a block being {self._block_description()})"
        )

    def _block_description(self):
        """What a block's width is, for the messages."""
        if self.b_bits is not None:
            return f"2**b_bits with b_bits={self.b_bits}"
        return f"{self.keys_description}, with b_bits=None"

    def check(self):
        k, width = self.n_components, self.block_width
        if self.n_output <= MAX_OUTPUT_WIDTH:
            return
        advice = (
            "Set b_bits (blocks of 2**b_bits columns, for example b_bits=16)"
            if self.b_bits is None
            else "Use a smaller b_bits or n_components"
        )
        raise ValueError(
            f"{self.owner}'s output would have n_components * block "
            f"width = {k} * {width} = {self.n_output} columns (a block is "
            f"{self._block_description()}), more than the {MAX_OUTPUT_WIDTH} "
            f"(2**63 - 1) that sparse matrix indices allow. {advice}."
        )

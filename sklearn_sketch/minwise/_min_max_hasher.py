"""MinMaxHasher: the min-max and GMM kernels by consistent weighted sampling (DartMinHash)."""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_non_negative

from .._base import BaseSketch
from ..utils._chunking import check_allocation
from ..utils._compat import StrOptions
from ..utils._hashing import draw_multiply_shift
from ..utils._sparse import gather
from ..utils._validation import N_JOBS_CONSTRAINT, StrictInterval, positive_int
from ._cws import dart_samples
from ._one_hot import (
    OneHotOutputMixin,
    output_indptr,
    write_codes,
)

# Temporaries of transform per row and hash (positions, dart keys, features,
# codes and values), per row, and per stored entry of the chunk's input
# ("gmm": the split keys and weights); the sampler's own state is one
# float64 per hash.
_BYTES_PER_ROW_AND_HASH = 48
_BYTES_PER_ROW = 256
_BYTES_PER_ENTRY = 32
# Largest code of a full sample (sample_keys): 32 bits.
_SAMPLE_KEY_RANGE = 2**32


class MinMaxHasher(OneHotOutputMixin, BaseSketch):
    r"""Hashed min-max / GMM kernel features: sparse, ``k * 2**b_bits`` columns wide.

    For nonnegative rows the min-max kernel is

    ``K_MM(x, y) = sum_i min(x_i, y_i) / sum_i max(x_i, y_i)``,

    the weighted version of the resemblance (Jaccard) of sets. Each of the
    ``k = n_components`` hashes draws, by DartMinHash (Christiani 2020), a
    sample of the row: the first of random "darts" ``(i, w, rank)``, the
    same for every row, that lands under the row (``w < x_i``). Two rows
    draw the same dart with probability exactly ``K_MM(x, y)``, at any
    scale of their values. The output row has one block per
    hash with a single nonzero ``1 / sqrt(k)`` at the b-bit code of the
    sample, so inner products of output rows are the fraction of hashes
    whose codes agree, and a linear model on them approximates the min-max
    kernel machine.

    With ``codes="0bit"`` (after Li's 0-bit CWS) the code is that of the
    dart's coordinate ``i`` alone. Its collision probability is at least
    ``K_MM`` and not equal to it: when the darts differ, the coordinates
    still agree with probability ``sum_i (x_i - y_i)+ / M * y_i / |y|_1 +
    sum_i (y_i - x_i)+ / M * x_i / |x|_1`` (``M = sum max``), so a row and
    its multiple ``c x`` agree at ``1 / c + (1 - 1 / c) sum_i p_i**2``
    (``p = x / |x|_1``). The user guide measures the difference.

    With ``kernel="gmm"`` (generalized min-max) each coordinate is split into
    its positive and negative parts, ``x~ = [max(x, 0), max(-x, 0)]``, and
    ``K_GMM(x, y) = K_MM(x~, y~)``: real data, negative values included.

    Read more in the :ref:`User Guide <min_max_hasher>`.

    Parameters
    ----------
    n_components : int, default=256
        The number of hashes ``k``, also the number of nonzeros of each
        output row.

    b_bits : int or None, default=8
        Bits of the code of each sample, between 1 and 32: a block is
        ``2**b_bits`` wide. ``None`` keeps the sampled coordinate itself
        (blocks of width ``n_features_in_``, twice that for "gmm"), which
        only the 0-bit scheme can: it needs ``codes="0bit"``.

    codes : {"full", "0bit"}, default="full"
        What is coded. "full": the whole sample ``(i*, t*)``, whose
        collision probability is the kernel. "0bit": the coordinate ``i*``
        only (Li 2015), whose collision probability is above the kernel.

    kernel : {"minmax", "gmm"}, default="minmax"
        "minmax" needs nonnegative data; "gmm" accepts any real data.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads hashing row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    hash_seed_ : int
        Key of the darts (a counter-based generator: nothing is stored per
        feature) and of the keys of the full samples.

    bucket_coefficients_ : ndarray of shape (n_components, 2), dtype uint64
        Hash of each block's b-bit code (when ``b_bits`` is set).

    n_output_features_ : int
        Number of output columns, ``n_components * 2**b_bits`` (with
        ``b_bits=None``: ``n_components`` times the number of input
        features); each nonempty output row has ``n_components`` nonzeros.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn_sketch.metrics.min_max_kernel : The exact min-max kernel.
    sklearn_sketch.metrics.gmm_kernel : The exact GMM kernel.
    CoREHasher : Hashed features for the resemblance of nonzero patterns and
        the CoRE kernels.

    Notes
    -----
    Writing :math:`P` for the collision probability of what is coded
    (:math:`K_{MM}` for "full" codes), the inner product of two output rows has
    mean :math:`P + (1 - P) 2^{-b}` and variance at most :math:`1 / (4 k)`. Two
    different coordinates ("0bit") share a code with probability :math:`2^{-b}`;
    two different full samples are first hashed to 32-bit keys, which two
    different samples share with probability about :math:`2^{-32}`, and then
    coded. With ``b_bits=None`` ("0bit" only) the mean is :math:`P`. The offset
    is not corrected.

    The kernel does not change when both rows are scaled by the same factor,
    but does when one is (a row and its double have kernel 1/2): the rows
    are hashed as given, not normalized. The values are read in float64 for
    float32 input too (the same samples).

    The expected cost per row is
    :math:`O(k \log k + \mathrm{nnz} \log(\|x\|_1 + 1 / \|x\|_1))`:
    a row throws about :math:`k \ln k + 2k` darts, whatever its number of stored
    entries, and the darts are generated, not stored.

    References
    ----------
    .. [1] Christiani, T. "DartMinHash: Fast Sketching for Weighted Sets."
       arXiv:2005.11547, 2020.
    .. [2] Ioffe, S. "Improved Consistent Sampling, Weighted Minhash and L1
       Sketching." ICDM 2010.
    .. [3] Li, P. "0-Bit Consistent Weighted Sampling." KDD 2015.
    .. [4] Li, P. "Linearized GMM Kernels and Normalized Random Fourier Features."
       KDD 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import MinMaxHasher
    >>> from sklearn_sketch.metrics import min_max_kernel
    >>> X = np.array([[1.0, 2.0, 0.0, 3.0], [1.0, 0.0, 0.0, 3.0], [2.0, 4.0, 0.0, 6.0]])
    >>> hasher = MinMaxHasher(n_components=2048, random_state=0)
    >>> X_hashed = hasher.fit_transform(X)
    >>> X_hashed.shape, X_hashed.nnz
    ((3, 524288), 6144)
    >>> estimate = (X_hashed @ X_hashed.T).toarray()
    >>> bool(np.allclose(estimate, min_max_kernel(X), atol=0.05))
    True
    """

    _parameter_constraints: dict = {
        "n_components": [positive_int()],
        "b_bits": [StrictInterval(Integral, 1, 32, closed="both"), None],
        "codes": [StrOptions({"full", "0bit"})],
        "kernel": [StrOptions({"minmax", "gmm"})],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }


    def __init__(
        self, n_components=256, *, b_bits=8, codes="full", kernel="minmax",
        random_state=None, n_jobs=None,
    ):
        self.n_components = n_components
        self.b_bits = b_bits
        self.codes = codes
        self.kernel = kernel
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X):
        """Draw the key of the variables and the code hashes; X is only checked."""
        if self.b_bits is None and self.codes == "full":
            raise ValueError(
                "b_bits=None codes the sampled coordinate itself, which is the 0-bit "
                "scheme: use codes='0bit', or a b_bits of at most 32 with the full "
                "codes (b_bits=32: two different samples share a code with "
                "probability about 2**-31)."
            )
        self._check_values(X)
        k = self.n_components
        check_allocation(
            72 * k + _BYTES_PER_ROW_AND_HASH * k + _BYTES_PER_ROW,
            f"MinMaxHasher with n_components={k} (its hashes and the transform "
            f"of one row)",
        )
        random_state = check_random_state(self.random_state)
        self.hash_seed_ = int(draw_multiply_shift(random_state, 1)[0, 0])
        self.bucket_coefficients_ = draw_multiply_shift(random_state, k)
        self._n_features_out = k * self._block_width
        return self

    def _check_values(self, X):
        if self.kernel == "minmax":
            check_non_negative(
                X, "MinMaxHasher (kernel='minmax'; kernel='gmm' accepts real data)"
            )

    @property
    def _n_keys(self):
        """Range of the sampled coordinates: twice the features for "gmm"."""
        return self.n_features_in_ * (2 if self.kernel == "gmm" else 1)

    @property
    def _block_width(self):
        return self._n_keys if self.b_bits is None else 2**self.b_bits

    def transform(self, X):
        """Hash X into sparse features whose inner products estimate the kernel.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data to transform: nonnegative for ``kernel="minmax"``, any real
            values for ``kernel="gmm"``.

        Returns
        -------
        X_new : csr_matrix of shape (n_samples, n_components * B)
            ``B = 2**b_bits`` (``n_features_in_``, or twice that for
            "gmm", when ``b_bits=None``). Exactly ``n_components`` nonzeros
            ``1 / sqrt(n_components)`` per nonempty input row, none for an
            all-zero row; float32 for float32 input, float64 otherwise.
        """
        return super().transform(X)

    def _prepare_transform(self, X):
        self._check_values(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = self.kernel == "minmax"
        return tags

    def _bytes_per_row(self, dtype):
        return _BYTES_PER_ROW_AND_HASH * self.n_components + _BYTES_PER_ROW

    def _input_bytes_per_row(self, X):
        nnz_per_row = X.nnz / max(X.shape[0], 1) if sp.issparse(X) else X.shape[1]
        return self._bytes_per_row(X.dtype) + int(_BYTES_PER_ENTRY * nnz_per_row)

    def _transform_csr(self, X):
        """The transform of canonical CSR rows (a whole input or a chunk)."""
        k = self.n_components
        nonempty = np.diff(X.indptr) > 0
        indptr = output_indptr(nonempty, k, self._block_width)
        keys, weights = self._weighted_keys(X)
        samples = self._sample_keys(keys, weights, X.indptr)
        codes = np.empty(samples.shape, dtype=indptr.dtype)
        n_keys = self._n_keys if self.codes == "0bit" else _SAMPLE_KEY_RANGE
        write_codes(
            samples, self.bucket_coefficients_, self.b_bits, self._block_width,
            n_keys, codes,
        )
        values = np.full(codes.size, 1.0 / np.sqrt(k), dtype=X.dtype)
        return sp.csr_matrix(
            (values, codes.ravel(), indptr), shape=(X.shape[0], self._n_features_out)
        )

    def _sample_keys(self, keys, weights, indptr):
        """What is coded, per nonempty row and hash: the dart's coordinate or key."""
        if self.codes == "0bit":
            return gather(keys, self._positions(keys, weights, indptr))
        return dart_samples(keys, weights, indptr, self.hash_seed_, self.n_components)[1]

    def _positions(self, keys, weights, indptr):
        """Position in ``keys`` of the winning dart's coordinate, per nonempty row and hash."""
        return dart_samples(keys, weights, indptr, self.hash_seed_, self.n_components)[0]

    def _weighted_keys(self, X):
        """The coordinates and positive weights of the stored entries.

        "minmax": the columns and values. "gmm": column ``2 i`` for a
        positive value of feature ``i`` and ``2 i + 1`` for a negative one,
        with its absolute value: the nonzeros of the split vector, in the
        same (sorted) order.
        """
        if self.kernel == "minmax":
            return X.indices, X.data
        keys = X.indices.astype(np.int64)
        keys <<= 1
        keys += X.data < 0
        return keys, np.abs(X.data)

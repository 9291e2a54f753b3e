"""The binary-tree composition of degree-2 sketches (Ahle et al., SODA 2020)."""

import numpy as np
import scipy.fft
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from ._hashing import (
    draw_polynomial_hashes,
    hash_to_buckets,
    hash_to_signs,
    polynomial_hash,
)
from ._polynomial_base import (
    SIGN_HASH_INDEPENDENCE,
    _PolynomialSketchBase,
    augmented_dense,
    block_coordinates,
    block_signs,
    fwht,
    n_augmented_features,
    next_power_of_two,
)
from ._tensor_sketch import BUCKET_HASH_INDEPENDENCE
from ._validation import validate_features


class PolynomialTreeSketch(_PolynomialSketchBase):
    """Polynomial kernel approximation by a binary tree of degree-2 sketches.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``.
    The degree is padded to a power of two ``q``: the ``q`` leaves hold
    ``degree`` copies of ``x' = [sqrt(gamma) x, sqrt(coef0)]`` and
    ``q - degree`` copies of a fixed unit vector ``e`` (an extra coordinate,
    so ``<e, e> = 1`` leaves the kernel unchanged). Each internal node maps
    its two children ``u, v`` to the degree-2 sketch ``S(u (x) v)`` of length
    ``n_components``, with independent randomness per node, up to the root::

        base="tensorsketch": S(u (x) v) = irfft(rfft(C_a u) * rfft(C_b v))
        base="tensorsrht":   S(u (x) v) = (H D_a u)[i_a] * (H D_b v)[i_b] / sqrt(D)

    Every node is unbiased given its children, so by the tower rule
    ``E <Phi(x), Phi(y)> = <x', y'> ** degree`` exactly. For ``degree=1``
    the map is the base's degree-1 sketch.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension of the output feature space, and of every node.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    base : {"tensorsrht", "tensorsketch"}, default="tensorsrht"
        The degree-2 sketch of the nodes.

    random_state : int, RandomState instance or None, default=None
        Seeds the hashes and coordinates drawn in ``fit``.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once (joblib's
        convention: ``None`` means 1 unless in a :func:`joblib.parallel_config`
        context, ``-1`` all processors). The output is identical whatever
        ``n_jobs`` is.

    Attributes
    ----------
    n_leaves_ : int
        ``degree`` rounded up to a power of two.

    sign_hashes_ : ndarray of shape (n_inputs, 4), dtype uint64
        4-wise independent sign hash of each node input (``n_inputs =
        2 (n_leaves_ - 1)``, or 1 for ``degree=1``), leaves first, then
        level by level.

    bucket_hashes_ : ndarray of shape (n_inputs, 2), dtype uint64 or None
        Pairwise independent bucket hash of each node input
        ("tensorsketch" only).

    coordinates_ : ndarray of shape (n_inputs, n_components), dtype intp or None
        Sampled Hadamard coordinates of each node input ("tensorsrht" only).

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    TensorSketch : The flat degree-``p`` Count Sketch product.
    TensorSRHT : The flat degree-``p`` SRHT product.

    Notes
    -----
    The flat sketches multiply ``degree`` independent factors, and their
    variance grows like ``3**degree / n_components``; the tree multiplies
    only ``log2(degree)`` levels of degree-2 factors, which Ahle et al. show
    needs a sketch size polynomial rather than exponential in the degree.
    The price is ``n_leaves_ - 1`` node sketches per row instead of one
    product of ``degree`` factors: about twice the work of the flat sketch
    of the same base. Whether the tree wins at a given ``n_components`` and
    ``degree`` is an empirical question: see the user guide.

    With ``base="tensorsketch"`` the leaves are Count Sketches (sparse input
    costs ``O(nnz)``); with ``base="tensorsrht"`` sparse input is densified
    one row chunk at a time.

    References
    ----------
    Ahle, T. D., Kapralov, M., Knudsen, J. B. T., Pagh, R., Velingker, A.,
    Woodruff, D. P. and Zandieh, A. "Oblivious sketching of high-degree
    polynomial kernels." SODA 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import PolynomialTreeSketch
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    >>> sketch = PolynomialTreeSketch(n_components=4096, degree=4, random_state=0)
    >>> X_sketch = sketch.fit_transform(X)
    >>> X_sketch.shape
    (3, 4096)
    >>> bool(np.allclose(X_sketch @ X_sketch.T, (X @ X.T) ** 4, atol=0.3))
    True
    """

    _parameter_constraints: dict = {
        **_PolynomialSketchBase._parameter_constraints,
        "base": [StrOptions({"tensorsrht", "tensorsketch"})],
    }

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        base="tensorsrht",
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.base = base
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the randomness of every node; only the number of features is read.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        validate_features(self, X, reset=True)
        random_state = check_random_state(self.random_state)
        self.n_leaves_ = next_power_of_two(self.degree)
        n_inputs = max(2 * (self.n_leaves_ - 1), 1)
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, n_inputs, SIGN_HASH_INDEPENDENCE
        )
        if self.base == "tensorsketch":
            self.bucket_hashes_ = draw_polynomial_hashes(
                random_state, n_inputs, BUCKET_HASH_INDEPENDENCE
            )
            self.coordinates_ = None
        else:
            self.bucket_hashes_ = None
            sizes = [self._input_size(t) for t in range(n_inputs)]
            self.coordinates_ = np.stack(
                [block_coordinates(random_state, self.n_components, s) for s in sizes]
            )
        self._n_features_out = self.n_components
        return self

    # -- structure -------------------------------------------------------

    def _n_leaf_keys(self):
        """Width of a leaf: x', plus the coordinate of ``e`` when padded."""
        n_keys = n_augmented_features(self.n_features_in_, self.coef0)
        return n_keys + (1 if self.n_leaves_ > self.degree else 0)

    def _is_leaf_input(self, t):
        return t < self.n_leaves_

    def _input_size(self, t):
        """Padded (Hadamard) length of node input ``t`` ("tensorsrht")."""
        width = self._n_leaf_keys() if self._is_leaf_input(t) else self.n_components
        return next_power_of_two(width)

    def _bytes_per_row(self, dtype):
        itemsize = np.dtype(dtype).itemsize
        D = self.n_components
        if self.base == "tensorsketch":
            # Live node outputs (at most half the leaves) and two spectra.
            return (self.n_leaves_ // 2 + 4) * D * itemsize
        widest = max(next_power_of_two(self._n_leaf_keys()), next_power_of_two(D))
        n_blocks = -(-D // min(next_power_of_two(self._n_leaf_keys()), next_power_of_two(D)))
        return (self.n_leaves_ // 2 + 3) * D * itemsize + (n_blocks + 2) * widest * itemsize

    # -- transform -------------------------------------------------------

    def _prepare_transform(self, X):
        dtype = X.dtype
        n_inputs = self.sign_hashes_.shape[0]
        if self.base == "tensorsketch":
            return [self._count_sketch_matrix(t, dtype) for t in range(n_inputs)]
        signs = []
        for t in range(n_inputs):
            size = self._input_size(t)
            n_blocks = -(-self.n_components // size)
            n_keys = self._n_leaf_keys() if self._is_leaf_input(t) else self.n_components
            signs.append(block_signs(self.sign_hashes_[t], n_blocks, size, n_keys, dtype))
        return signs

    def _count_sketch_matrix(self, t, dtype):
        """The Count Sketch of input ``t`` as a sparse (n_keys, D) matrix."""
        n_keys = self._n_leaf_keys() if self._is_leaf_input(t) else self.n_components
        keys = np.arange(n_keys)
        buckets = hash_to_buckets(polynomial_hash(self.bucket_hashes_[t], keys), self.n_components)
        signs = hash_to_signs(polynomial_hash(self.sign_hashes_[t], keys), dtype)
        if self._is_leaf_input(t) and self.gamma != 1.0:
            signs[: self.n_features_in_] *= np.sqrt(self.gamma)
        return sp.csr_matrix(
            (signs, buckets, np.arange(n_keys + 1)), shape=(n_keys, self.n_components)
        )

    def _leaf_rows(self, X_chunk, dtype):
        """The leaf inputs of one chunk: ``x'`` and the unit vector ``e``.

        For "tensorsrht" both are dense rows padded to the leaf Hadamard
        length; for "tensorsketch" ``x'`` is the chunk itself (its constant
        coordinate is added after the Count Sketch) and ``e`` is ``None``.
        """
        if self.base == "tensorsketch":
            return X_chunk, None
        width = self._input_size(0)
        U = augmented_dense(X_chunk, self.gamma, self.coef0, width, dtype)
        e = np.zeros((1, width), dtype=dtype)
        e[0, self._n_leaf_keys() - 1] = 1.0
        return U, e

    def _sketch_input(self, t, U, dtype, state, leaf=None):
        """The degree-1 sketch of node input ``t`` applied to rows ``U``.

        ``leaf`` is "x" or "e" at the leaves (``U`` then comes from
        :meth:`_leaf_rows`), None above them.
        """
        if self.base == "tensorsketch":
            S = state[t]
            n_features = self.n_features_in_
            if leaf == "e":
                return S[self._n_leaf_keys() - 1].toarray()
            if leaf == "x":
                projected = U @ S[:n_features]
                projected = projected.toarray() if sp.issparse(projected) else np.asarray(projected)
                if self.coef0 > 0:
                    projected += np.sqrt(self.coef0) * S[n_features].toarray().astype(dtype)
                return projected.astype(dtype, copy=False)
            return np.asarray(U @ S, dtype=dtype)
        size = self._input_size(t)
        if leaf is None and U.shape[1] != size:
            padded = np.zeros((U.shape[0], size), dtype=dtype)
            padded[:, : U.shape[1]] = U
            U = padded
        blocks = fwht(U[:, None, :] * state[t])
        return blocks.reshape(U.shape[0], -1)[:, self.coordinates_[t]]

    def _combine(self, a, b):
        """The degree-2 node sketch from its inputs' degree-1 sketches."""
        if self.base == "tensorsketch":
            spectrum = scipy.fft.rfft(a, axis=1) * scipy.fft.rfft(b, axis=1)
            return scipy.fft.irfft(spectrum, n=self.n_components, axis=1, overwrite_x=True)
        product = a * b
        product *= product.dtype.type(1.0 / np.sqrt(self.n_components))
        return product

    def _transform_chunk(self, X_chunk, out, state):
        dtype = out.dtype
        x_rows, e_row = self._leaf_rows(X_chunk, dtype)
        leaf_rows = {"x": x_rows, "e": e_row}
        leaves = ["x"] * self.degree + ["e"] * (self.n_leaves_ - self.degree)
        if self.n_leaves_ == 1:
            sketch = self._sketch_input(0, x_rows, dtype, state, leaf="x")
            if self.base == "tensorsrht":
                sketch = sketch * dtype.type(1.0 / np.sqrt(self.n_components))
            out[...] = sketch
            return out
        # Level 1: pairs of leaves; then pairs of nodes, level by level.
        t = 0
        nodes = []
        for k in range(self.n_leaves_ // 2):
            a, b = (
                self._sketch_input(t + i, leaf_rows[leaf], dtype, state, leaf=leaf)
                for i, leaf in enumerate(leaves[2 * k : 2 * k + 2])
            )
            t += 2
            nodes.append(self._combine(a, b))
        while len(nodes) > 1:
            parents = []
            for k in range(len(nodes) // 2):
                a = self._sketch_input(t, nodes[2 * k], dtype, state)
                b = self._sketch_input(t + 1, nodes[2 * k + 1], dtype, state)
                t += 2
                parents.append(self._combine(a, b))
            nodes = parents
        # An (e, e) node alone at the root cannot happen (degree >= 1), but a
        # node of constants broadcasts: fill every row.
        out[...] = np.broadcast_to(nodes[0], out.shape)
        return out

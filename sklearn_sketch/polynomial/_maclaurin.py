"""The polynomial kernel sketched degree by degree (binomial / Maclaurin expansion).

``(gamma <x, y> + coef0) ** p = sum_i a_i <x, y> ** i`` with
``a_i = C(p, i) coef0 ** (p - i) gamma ** i``. The padded sketches (every
other estimator of the family) sketch ``<x', y'> ** p`` for
``x' = [sqrt(gamma) x, sqrt(coef0)]`` as one degree-``p`` product, so the
constant and the low degrees, which carry most of the kernel when ``coef0``
is comparable to ``gamma <x, y>``, pay the variance of a degree-``p``
sketch. Here the constant is one exact feature, the linear term is exact
when its ``n_features`` columns fit, and every other degree gets a sketch
of its own, of a size chosen to minimize the total variance (Wacker,
Kanagawa and Filippone 2022 optimize the same allocation for Maclaurin
features of dot-product kernels).
"""

import numpy as np
import scipy.sparse as sp
from scipy import special
from sklearn.utils import check_random_state

from ..utils._chunking import check_allocation
from ..utils._compat import StrOptions
from ._base import POLYNOMIAL_PARAMETER_CONSTRAINTS, _PolynomialSketchBase
from ._common import (
    next_power_of_two,
    srht_width,
)
from ._tensor_sketch_map import CountSketchMap
from ._tensor_srht_map import SRHTMap
from ._tree_map import TreeMap

# Rows of the training data whose pairs estimate each degree's variance.
N_ALLOCATION_ROWS = 256

_BASES = {
    "tree": (TreeMap, dict(base="tensorsketch", buckets="permutation")),
    "tensorsketch": (CountSketchMap, {}),
    "tensorsrht": (SRHTMap, {}),
}
# Bases whose transform is a real FFT of the sketch size.
_FFT_BASES = ("tree", "tensorsketch")


def binomial_coefficients(degree, gamma, coef0):
    """``a_i = C(p, i) coef0 ** (p - i) gamma ** i`` for ``i = 0 .. p``.

    Raises
    ------
    ValueError
        If a coefficient exceeds the range of float64 (then so would every
        kernel value of the expansion).
    """
    i = np.arange(degree + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        coefficients = (
            special.comb(degree, i)
            * np.float64(coef0) ** (degree - i)
            * np.float64(gamma) ** i
        )
    if not np.isfinite(coefficients).all():
        raise ValueError(
            f"MaclaurinSketch overflowed float64: the coefficients C(degree, i) "
            f"coef0**(degree - i) gamma**i of the kernel's expansion exceed the "
            f"range of the dtype (degree={degree}, gamma={gamma}, coef0={coef0}). "
            "Use smaller gamma and coef0."
        )
    return coefficients


def variance_proxies(X, degrees):
    """Per degree ``i``, the mean over pairs of ``(|x|^2 |y|^2)^i + <x, y>^(2i)``.

    The variance of a degree-``i`` product sketch of size ``D`` is about
    this over ``D`` (TensorSketch's, up to a constant of the base), so the
    proxies weigh the degrees against each other on the data at hand.
    Sparse rows are restricted to the columns they use first, so the cost
    follows their nonzeros whatever ``n_features`` is.
    """
    if sp.issparse(X):
        X = X.tocsr()
        # Renumbering the used columns in order keeps every product's terms
        # and their order; the transpose of the full width would cost
        # O(n_features).
        columns, inverse = np.unique(X.indices, return_inverse=True)
        X = sp.csr_matrix(
            (X.data, inverse.reshape(-1), X.indptr), shape=(X.shape[0], columns.size)
        )
    # Proxies beyond float64 (input near its maximum) are infinite, and
    # ``allocate`` then splits the features evenly; transform reports the
    # overflow of the features themselves.
    with np.errstate(over="ignore", invalid="ignore"):
        gram = X @ X.T
        gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
        gram = gram.astype(np.float64)
        squared_norms = np.diag(gram)
        norms_product = np.multiply.outer(squared_norms, squared_norms)
        return np.array([np.mean(norms_product**i + gram ** (2 * i)) for i in degrees])


def previous_smooth_length(n):
    """The largest ``m <= n`` whose prime factors are all 2, 3, 5 or 7.

    Real FFTs of such lengths are fast; a length with a large prime factor
    is several times slower.
    """
    for m in range(int(n), 0, -1):
        rest = m
        for factor in (2, 3, 5, 7):
            while rest % factor == 0:
                rest //= factor
        if rest == 1:
            return m
    return 1


def allocate(budget, weights):
    """Split ``budget`` features among terms in proportion to ``weights``.

    Every term gets at least one feature (a term without features would
    bias the estimate); the rest goes by largest remainders, so the sizes
    add up to ``budget`` exactly.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if not np.isfinite(weights).all() or weights.sum() <= 0:
        weights = np.ones_like(weights)
    shares = (budget - weights.size) * weights / weights.sum()
    sizes = 1 + np.floor(shares).astype(np.int64)
    remainder = budget - int(sizes.sum())
    sizes[np.argsort(-(shares - np.floor(shares)), kind="stable")[:remainder]] += 1
    return sizes


class MaclaurinSketch(_PolynomialSketchBase):
    r"""Polynomial kernel approximation by a sketch per degree of its expansion.

    Maps each row ``x`` to ``n_components`` features whose inner products are
    unbiased estimates of ``K(x, y) = (gamma <x, y> + coef0) ** degree``,
    written as ``sum_i a_i <x, y> ** i`` with
    ``a_i = C(degree, i) coef0 ** (degree - i) gamma ** i``. The features are
    the blocks::

        [ sqrt(a_0) | sqrt(a_1) x  or  sqrt(a_1) S_1(x) | sqrt(a_i) S_i(x), i >= 2 ]

    where ``S_i`` is an independent ``base`` sketch of ``<x, y> ** i`` with
    ``D_i`` features. The constant is exact, and so is the linear term when
    it is kept whole. With ``coef0=0`` the estimator is its ``base`` sketch.

    Read more in the :ref:`User Guide <polynomial_sketches>`.

    Parameters
    ----------
    n_components : int, default=100
        Dimension of the output feature space, all blocks together.

    degree : int, default=2
        Degree of the polynomial kernel.

    gamma : float, default=1.0
        Multiplier of the inner product in the kernel. Must be positive.

    coef0 : float, default=0.0
        Constant term of the kernel. Must be non-negative.

    base : {"tree", "tensorsketch", "tensorsrht"}, default="tree"
        The sketch of each degree: :class:`PolynomialTreeSketch` (default
        settings), :class:`TensorSketch` or :class:`TensorSRHT`.

    linear : {"auto", "exact", "sketch"}, default="auto"
        The degree-1 term: "exact" keeps ``x`` itself (``n_features``
        columns), "sketch" sketches it like the other degrees, "auto" keeps
        it exact when that predicts the lower variance and fits.

    random_state : int, RandomState instance or None, default=None
        Seeds the sketches and the rows that weigh the degrees.

    n_jobs : int, default=None
        Number of threads transforming row chunks at once. ``None`` means 1
        unless in a :func:`joblib.parallel_config` context, ``-1`` all
        processors. The output does not depend on ``n_jobs``.

    Attributes
    ----------
    coefficients_ : ndarray of shape (degree + 1,)
        The ``a_i`` of the expansion.

    expanded_ : bool
        Whether the kernel is sketched degree by degree. False when
        ``n_components`` is below the number of terms.

    allocation_ : ndarray of shape (degree + 1,), dtype int64 or None
        Number of features of each degree's block. None when not
        ``expanded_``.

    linear_exact_ : bool
        Whether the degree-1 block is ``x`` itself.

    block_seeds_ : ndarray of shape (degree + 1,)
        The ``random_state`` each sketch was drawn with.

    sketches_ : list or None
        The random map of each degree: the fitted state of the ``base``
        estimator (:class:`PolynomialTreeSketch`, :class:`TensorSketch` or
        :class:`TensorSRHT`) with ``n_components=allocation_[i]``,
        ``degree=i``, ``coef0=0`` and ``random_state=block_seeds_[i]``, whose
        fitted attributes it carries. ``None`` for the constant, an exact
        linear term and absent terms. None when not ``expanded_``.

    padded_sketch_ : object or None
        The random map of the whole kernel, when not ``expanded_``: that of
        the ``base`` estimator with this estimator's ``n_components``,
        ``degree``, ``gamma``, ``coef0`` and ``random_state=block_seeds_[0]``.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    PolynomialTreeSketch : The degree-``p`` tree, padded with ``coef0``.
    TensorSketch : The flat degree-``p`` Count Sketch product.

    Notes
    -----
    The blocks are independent and unbiased, so the variance is
    :math:`\sum_i a_i^2 \operatorname{Var}_i(D_i)`. With
    :math:`\operatorname{Var}_i \approx v_i / D_i`, :math:`v_i` the mean of
    :math:`(\|x\|^2 \|y\|^2)^i + \langle x, y \rangle^{2i}` over pairs of up to
    256 training rows, ``fit`` sets :math:`D_i \propto a_i \sqrt{v_i}`
    [1]_. Unlike the other polynomial sketches, ``fit`` reads the data.

    References
    ----------
    .. [1] Wacker, J., Kanagawa, M. and Filippone, M. "Improved random
       features for dot product kernels." arXiv:2201.08712, 2022.
    .. [2] Kar, P. and Karnick, H. "Random feature maps for dot product
       kernels." AISTATS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import MaclaurinSketch
    >>> X = np.random.RandomState(0).rand(5, 8)
    >>> sketch = MaclaurinSketch(n_components=64, degree=3, coef0=1.0, random_state=0)
    >>> sketch.fit_transform(X).shape
    (5, 64)
    >>> sketch.allocation_.tolist()  # constant, exact linear, degrees 2 and 3
    [3, 8, 25, 28]
    """

    _parameter_constraints: dict = {
        **POLYNOMIAL_PARAMETER_CONSTRAINTS,
        "base": [StrOptions(set(_BASES))],
        "linear": [StrOptions({"auto", "exact", "sketch"})],
    }

    def __init__(
        self,
        n_components=100,
        *,
        degree=2,
        gamma=1.0,
        coef0=0.0,
        base="tree",
        linear="auto",
        random_state=None,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.base = base
        self.linear = linear
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X):
        """Weigh the degrees on X, size their blocks and draw their sketches."""
        random_state = check_random_state(self.random_state)
        seeds = random_state.randint(np.iinfo(np.int32).max, size=self.degree + 1)
        self.block_seeds_ = seeds
        rows = X
        if X.shape[0] > N_ALLOCATION_ROWS:
            rows = X[np.sort(random_state.choice(X.shape[0], N_ALLOCATION_ROWS, replace=False))]

        self.coefficients_ = binomial_coefficients(self.degree, self.gamma, self.coef0)
        terms = np.flatnonzero(self.coefficients_)
        sketched = [i for i in terms if i >= 1]
        weights = self.coefficients_[sketched] * np.sqrt(variance_proxies(rows, sketched))
        map_class, options = _BASES[self.base]
        budget = self.n_components - (1 if 0 in terms else 0)
        self.expanded_ = budget >= len(sketched)
        self._check_blocks_size(budget, sketched, X.dtype)
        if not self.expanded_:
            # Fewer features than terms: an expansion would leave a term
            # out (a biased estimate), so the kernel is sketched whole.
            self.allocation_ = self.sketches_ = None
            self.linear_exact_ = False
            self.padded_sketch_ = map_class.drawn(
                self.n_components, self.degree, self.n_features_in_, int(seeds[0]),
                gamma=self.gamma, coef0=self.coef0, **options,
            )
            self._n_features_out = self.n_components
            return self
        self.padded_sketch_ = None
        self.linear_exact_ = self._keep_linear_exact(sketched, weights, budget, 0 in terms)

        self.allocation_ = np.zeros(self.degree + 1, dtype=np.int64)
        self.allocation_[0] = 1 if 0 in terms else 0
        if self.linear_exact_:
            self.allocation_[1] = self.n_features_in_
            budget -= self.n_features_in_
            weights, sketched = weights[1:], sketched[1:]
        if sketched:
            self.allocation_[sketched] = allocate(budget, weights)
        else:
            self.allocation_[0] += budget  # only the constant and x
        if self.base in _FFT_BASES and self.allocation_[0]:
            # FFT-friendly sketch sizes; the features this frees go to the
            # constant block, whose columns share sqrt(a_0) exactly.
            for i in sketched:
                smooth = previous_smooth_length(self.allocation_[i])
                self.allocation_[0] += self.allocation_[i] - smooth
                self.allocation_[i] = smooth

        self.sketches_ = [None] * (self.degree + 1)
        for i in sketched:
            self.sketches_[i] = map_class.drawn(
                int(self.allocation_[i]), int(i), self.n_features_in_, int(seeds[i]), **options
            )
        self._n_features_out = self.n_components
        return self

    def _check_blocks_size(self, budget, sketched, dtype):
        """Refuse, before drawing them, blocks that could not transform one row here.

        Whatever the allocation, the sketched blocks share at most
        ``budget`` features: each block's random state and temporaries are
        bounded by those of a ``budget``-feature sketch of its degree (a
        tree's inputs, or TensorSRHT's coordinates, and their Hadamard
        length), and the blocks are drawn one after the other.
        """
        itemsize = np.dtype(dtype).itemsize
        width = max(budget, 1)
        if self.base != "tensorsketch":
            n_keys = self.n_features_in_ + 2  # x, and at most a constant and e
            width = max(width, srht_width(n_keys, width)[0])
        n_leaves = next_power_of_two(max(sketched, default=self.degree))
        state = 0 if self.base == "tensorsketch" else 2 * n_leaves * (48 + itemsize) * width
        row = (n_leaves // 2 + 6) * itemsize * width
        check_allocation(
            state + row + self.n_components * itemsize,
            f"MaclaurinSketch with n_components={self.n_components} and "
            f"degree={self.degree} (its random state and the transform of one row)",
        )

    def _keep_linear_exact(self, sketched, weights, budget, has_constant):
        """Whether the degree-1 block is ``x`` itself (see ``linear``)."""
        if not sketched or sketched[0] != 1 or self.linear == "sketch":
            return False
        d, others = self.n_features_in_, len(sketched) - 1
        # Features left over by an exact linear term alone go to the
        # constant block; without one, x must fill the output exactly.
        fits = d + others <= budget and (others or has_constant or d == budget)
        if self.linear == "exact":
            if not fits:
                raise ValueError(
                    f"linear='exact' needs n_features={d} columns plus one per "
                    f"other term, more than n_components={self.n_components} allows."
                )
            return True
        if not fits:
            return False
        if others == 0:
            return True  # no variance left at all
        # Optimal total variance (sum of a_i sqrt(v_i))**2 / budget, with and
        # without the linear term among the sketched ones.
        with_sketch = weights.sum() ** 2 / budget
        exact = weights[1:].sum() ** 2 / (budget - d)
        return exact < with_sketch

    def _blocks(self):
        """``(degree, column slice)`` of every nonempty block, in order."""
        stops = np.cumsum(self.allocation_)
        return [
            (i, slice(int(stop - size), int(stop)))
            for i, (size, stop) in enumerate(zip(self.allocation_, stops))
            if size
        ]

    def _bytes_per_row(self, dtype):
        if not self.expanded_:
            return self.padded_sketch_._bytes_per_row(dtype)
        # The blocks are written one after the other: the largest sketch's
        # temporaries, or the dense linear block of a sparse chunk.
        itemsize = np.dtype(dtype).itemsize
        sizes = [s._bytes_per_row(dtype) for s in self.sketches_ if s is not None]
        if self.linear_exact_:
            sizes.append(self.n_features_in_ * itemsize)
        return max(sizes, default=0)

    def _prepare_transform(self, X):
        if not self.expanded_:
            return self.padded_sketch_._prepare_transform(X)
        return [None if s is None else s._prepare_transform(X) for s in self.sketches_]

    def _transform_chunk(self, X_chunk, out, state):
        if not self.expanded_:
            return self.padded_sketch_._transform_chunk(X_chunk, out, state)
        dtype = out.dtype
        # The constant block's columns share a_0: each holds sqrt(a_0 / m).
        scales = np.sqrt(self.coefficients_)
        if self.allocation_[0]:
            scales[0] = np.sqrt(self.coefficients_[0] / self.allocation_[0])
        scales = scales.astype(dtype)
        for i, columns in self._blocks():
            block = out[:, columns]
            if i == 0:
                block[...] = scales[0]
                continue
            if self.sketches_[i] is None:  # the exact linear term
                block[...] = X_chunk.toarray() if sp.issparse(X_chunk) else X_chunk
            else:
                self.sketches_[i]._transform_chunk(X_chunk, block, state[i])
            block *= scales[i]
        return out

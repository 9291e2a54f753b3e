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

from .._map import host_dtype
from .._sizing import _renumbered, _used_column_indices
from ..utils._hadamard import hadamard_length
from ._count_sketch_product import CountSketchProductMap
from ._hadamard_blocks import srht_width
from ._polynomial_map import PolynomialMap
from ._sizing import pilot_model
from ._srht_product import SRHTProductMap
from ._tree import TreeMap

# Rows of the training data whose pairs estimate each degree's variance.
N_ALLOCATION_ROWS = 256

MACLAURIN_BASES = {
    "tree": (TreeMap, dict(base="tensorsketch", buckets="permutation")),
    "tensorsketch": (CountSketchProductMap, {}),
    "tensorsrht": (SRHTProductMap, {}),
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
        # Renumbering the used columns in order keeps every product's terms
        # and their order; the transpose of the full width would cost
        # O(n_features).
        X = X.tocsr()
        X = _renumbered(X, _used_column_indices(X))
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

    Real FFTs of such lengths are fast; the FFT of a length with a large
    prime factor costs in proportion to that factor.
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


class MaclaurinMap(PolynomialMap):
    """A block per term of the kernel's expansion, each sketched by its own ``base`` map.

    The layout of the expansion (its coefficients, the terms sketched, the
    features they share) depends on the sizes only; the draw weighs the
    degrees on rows of the training data, sizes their blocks and draws a
    map per block (or one ``base`` map of the whole kernel, when the
    features are fewer than the terms). Before the draw, ``state_bytes`` and
    ``bytes_per_row`` are bounds for any allocation, which the size check
    reads. Fitted attributes, as documented by MaclaurinSketch:
    ``block_seeds_``, ``coefficients_``, ``expanded_``, ``allocation_``,
    ``linear_exact_``, ``sketches_`` and ``padded_sketch_``.
    """

    fitted_names = (
        "block_seeds_", "coefficients_", "expanded_", "allocation_", "linear_exact_",
        "sketches_", "padded_sketch_",
    )

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0,
                 base="tree", linear="auto"):
        super().__init__(n_components, degree, n_features, gamma, coef0)
        self.base = base
        self.linear = linear
        self.coefficients_ = binomial_coefficients(degree, gamma, coef0)
        terms = np.flatnonzero(self.coefficients_)
        self.has_constant = 0 in terms
        self.sketched = [i for i in terms if i >= 1]
        self.budget = n_components - (1 if self.has_constant else 0)
        self.expanded_ = self.budget >= len(self.sketched)
        self.sketches_ = self.padded_sketch_ = None
        # Every block map (Count Sketch, SRHT and tree products) transforms
        # arrays of other namespaces, wide input included.
        self.array_api_support = True

    def sizing_model(self, sample, build, random_state):
        # An exact linear term needs its n_features columns besides one per
        # other term (and exactly them when it is the only one).
        minimum = 1
        if self.linear == "exact" and self.sketched and self.sketched[0] == 1:
            minimum = self.n_features + len(self.sketched) - 1 + int(self.has_constant)
        # Every pilot is drawn on the same rows: their degrees are weighed once.
        weighed = {}

        def build_weighed(n_components):
            sketch_map = build(n_components)
            sketch_map._weighed = weighed
            return sketch_map

        return pilot_model(sample, build_weighed, random_state, minimum=minimum)

    def drawn_maps(self):
        """The maps drawn for the blocks (or the whole kernel); None before the draw."""
        if self.padded_sketch_ is not None:
            return [self.padded_sketch_]
        if self.sketches_ is None:
            return None
        return [s for s in self.sketches_ if s is not None]

    def state_bytes(self, dtype):
        maps = self.drawn_maps()
        if maps is None:
            return self._bounds(dtype)[0]
        return sum(s.state_bytes(dtype) for s in maps)

    def bytes_per_row(self, dtype):
        maps = self.drawn_maps()
        if maps is None:
            return self._bounds(dtype)[1]
        # The blocks are written one after the other: the largest sketch's
        # temporaries, or the dense linear block of a sparse chunk.
        sizes = [s.bytes_per_row(dtype) for s in maps]
        if self.linear_exact_:
            sizes.append(self.n_features * np.dtype(dtype).itemsize)
        return max(sizes, default=0)

    def _bounds(self, dtype):
        """Random state and row temporaries of any allocation, before the draw.

        Whatever the allocation, the sketched blocks share at most
        ``budget`` features: each block's random state and temporaries are
        bounded by those of a ``budget``-feature sketch of its degree (a
        tree's inputs, or TensorSRHT's coordinates, and their Hadamard
        length), and the blocks are drawn one after the other.
        """
        itemsize = np.dtype(dtype).itemsize
        width = max(self.budget, 1)
        if self.base != "tensorsketch":
            n_keys = self.n_features + 2  # x, and at most a constant and e
            width = max(width, srht_width(n_keys, width)[0])
        n_leaves = hadamard_length(max(self.sketched, default=self.degree))
        state = 0 if self.base == "tensorsketch" else 2 * n_leaves * (48 + itemsize) * width
        return state, (n_leaves // 2 + 6) * itemsize * width

    def draw(self, random_state, X):
        """Weigh the degrees on X, size their blocks and draw their sketches."""
        seeds = random_state.randint(np.iinfo(np.int32).max, size=self.degree + 1)
        self.block_seeds_ = seeds
        rows = X
        if X.shape[0] > N_ALLOCATION_ROWS:
            rows = X[np.sort(random_state.choice(X.shape[0], N_ALLOCATION_ROWS, replace=False))]
        sketched = self.sketched
        map_class, options = MACLAURIN_BASES[self.base]
        if not self.expanded_:
            # Fewer features than terms: an expansion would leave a term
            # out (a biased estimate), so the kernel is sketched whole.
            self.allocation_ = None
            self.linear_exact_ = False
            self.padded_sketch_ = map_class(
                self.n_components, self.degree, self.n_features, gamma=self.gamma,
                coef0=self.coef0, **options,
            )
            self.padded_sketch_.owner = self.owner  # its overflow errors name ours
            self.padded_sketch_.draw(check_random_state(int(seeds[0])), X)
            return
        weights = self.coefficients_[sketched] * np.sqrt(self._proxies(rows))
        self.linear_exact_ = self._keep_linear_exact(sketched, weights, self.budget)
        self.allocation_ = self._allocate(sketched, weights)
        self.sketches_ = [None] * (self.degree + 1)
        for i in sketched:
            if self.linear_exact_ and i == 1:
                continue
            self.sketches_[i] = map_class(
                int(self.allocation_[i]), int(i), self.n_features, **options
            )
            self.sketches_[i].owner = self.owner
            self.sketches_[i].draw(check_random_state(int(seeds[i])), X)

    def _proxies(self, rows):
        """:func:`variance_proxies` of the sketched degrees on ``rows``, computed once
        for the pilots of a sizing (which share ``_weighed``, and their rows)."""
        weighed = getattr(self, "_weighed", None)
        if weighed is None:
            return variance_proxies(rows, self.sketched)
        if weighed.get("rows") is not rows:
            weighed.update(rows=rows, proxies=variance_proxies(rows, self.sketched))
        return weighed["proxies"]

    def _allocate(self, sketched, weights):
        """The number of features of each degree's block."""
        allocation = np.zeros(self.degree + 1, dtype=np.int64)
        allocation[0] = 1 if self.has_constant else 0
        budget = self.budget
        if self.linear_exact_:
            allocation[1] = self.n_features
            budget -= self.n_features
            weights, sketched = weights[1:], sketched[1:]
        if sketched:
            allocation[sketched] = allocate(budget, weights)
        else:
            allocation[0] += budget  # only the constant and x
        if self.base in _FFT_BASES and allocation[0]:
            # FFT-friendly sketch sizes; the features this frees go to the
            # constant block, whose columns share sqrt(a_0) exactly.
            for i in sketched:
                smooth = previous_smooth_length(allocation[i])
                allocation[0] += allocation[i] - smooth
                allocation[i] = smooth
        return allocation

    def _keep_linear_exact(self, sketched, weights, budget):
        """Whether the degree-1 block is ``x`` itself (see ``linear``)."""
        if not sketched or sketched[0] != 1 or self.linear == "sketch":
            return False
        d, others = self.n_features, len(sketched) - 1
        # Features left over by an exact linear term alone go to the
        # constant block; without one, x must fill the output exactly.
        fits = d + others <= budget and (others or self.has_constant or d == budget)
        if self.linear == "exact":
            if not fits:
                raise ValueError(self._linear_exact_error(d, others, budget))
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

    def _linear_exact_error(self, d, others, budget):
        """The message of a ``linear='exact'`` that ``n_components`` cannot hold."""
        if others or self.has_constant:
            extra = others + (1 if self.has_constant else 0)
            return (
                f"linear='exact' needs n_features={d} columns plus one per other term "
                f"of the expansion ({extra}): {d + extra}, more than n_components="
                f"{self.n_components}."
            )
        # Only the degree-1 term: its block is x itself, nothing else to fill.
        return (
            f"linear='exact' with only the linear term (degree=1, coef0=0) makes the "
            f"output x itself: n_components must equal n_features={d}, not "
            f"{self.n_components}. Use n_components={d}, or linear='sketch'."
        )

    def blocks(self):
        """``(degree, column slice)`` of every nonempty block, in order."""
        stops = np.cumsum(self.allocation_)
        return [
            (i, slice(int(stop - size), int(stop)))
            for i, (size, stop) in enumerate(zip(self.allocation_, stops))
            if size
        ]

    def prepare(self, X, n_jobs=1, n_chunks=1):
        if not self.expanded_:
            return self.padded_sketch_.prepare(X, n_jobs, n_chunks)
        return [None if s is None else s.prepare(X, n_jobs, n_chunks) for s in self.sketches_]

    def transform_chunk(self, X_chunk, out, state):
        if not self.expanded_:
            return self.padded_sketch_.transform_chunk(X_chunk, out, state)
        dtype = out.dtype
        # The constant block's columns share a_0: each holds sqrt(a_0 / m).
        scales = np.sqrt(self.coefficients_)
        if self.allocation_[0]:
            scales[0] = np.sqrt(self.coefficients_[0] / self.allocation_[0])
        scales = scales.astype(dtype)
        for i, columns in self.blocks():
            block = out[:, columns]
            if i == 0:
                block[...] = scales[0]
                continue
            if self.sketches_[i] is None:  # the exact linear term
                block[...] = X_chunk.toarray() if sp.issparse(X_chunk) else X_chunk
            else:
                self.sketches_[i].transform_chunk(X_chunk, block, state[i])
            block *= scales[i]
        return out

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        The blocks of :meth:`transform_chunk`, concatenated in their order:
        the constant block, the exact linear block ``x`` or the block maps'
        own ``transform_array``, each times its scale (rounded to ``X``'s
        dtype as on the host). Without the expansion, the padded sketch's.
        """
        if not self.expanded_:
            return self.padded_sketch_.transform_array(X, xp, device)
        dtype = host_dtype(X.dtype, xp)
        n_rows = X.shape[0]
        blocks = []
        # Scales beyond float32, and a namespace computing with NumPy
        # (array_api_strict), would warn of an overflow, which check_array
        # reports as the NumPy path does.
        with np.errstate(over="ignore", invalid="ignore"):
            scales = np.sqrt(self.coefficients_)
            if self.allocation_[0]:
                scales[0] = np.sqrt(self.coefficients_[0] / self.allocation_[0])
            scales = scales.astype(dtype)
            for i, columns in self.blocks():
                if i == 0:
                    blocks.append(xp.full(
                        (n_rows, columns.stop - columns.start), float(scales[0]),
                        dtype=X.dtype, device=device,
                    ))
                    continue
                if self.sketches_[i] is None:  # the exact linear term
                    block = X
                else:
                    block = self._block_array(self.sketches_[i], X, xp, device, dtype)
                blocks.append(block * float(scales[i]))
            out = xp.concat(blocks, axis=1) if len(blocks) > 1 else blocks[0]
        self.check_array(X, out, xp)
        return out

    def _block_array(self, sketch, X, xp, device, dtype):
        """A block map's ``transform_array``; its overflow is reported as the whole kernel's.

        The NumPy path checks the whole output once, naming the kernel's
        degree: a block's overflow (non-finite features, which its scale
        keeps non-finite) is that error.
        """
        try:
            return sketch.transform_array(X, xp, device)
        except ValueError as error:
            if str(error) != str(sketch._overflow(dtype)):
                raise
            raise self._overflow(dtype) from None

"""Sizing a sketch from the error a user accepts: ``n_components="auto"``.

For features whose inner products estimate a kernel ``K`` without bias, the
expected squared error of the Gram matrix of ``n`` rows is the sum of its
entries' variances, ``E ||K_hat - K||_F^2 = sum_ij Var(K_hat_ij)``, and the
relative error ``eps = ||K_hat - K||_F / ||K||_F`` follows from that sum and
``||K||_F^2``. Both sums are estimated on a :class:`Sample` of the training
rows: the ``n (n - 1)`` off-diagonal entries from the pairs of distinct
sampled rows, the ``n`` diagonal ones from the sampled rows, each weighed by
its share of the Gram matrix of all ``n`` training rows. The work is bounded
by the sample, whatever ``n`` is; it runs on one BLAS thread (its products
are small).

A family gives, through its map's ``sizing_model`` hook, a
:class:`SizingModel`: the predicted relative error against the size, from
a per-pair variance formula (:class:`VarianceModel`) or, where no closed
form holds, from pilot sketches measured on the sample rows and the ``1/n``
law (:class:`PilotModel`); a model may refine itself with pilots near the
size it predicts. :func:`auto_size` then searches the smallest admissible
size whose predicted error is at most ``eps``. The base estimator calls it
and publishes ``n_components_`` and ``expected_error_``.
"""

import functools

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .utils._chunking import single_threaded_blas
from .utils._validation import canonical_csr

#: The largest size ``n_components="auto"`` chooses: an ``eps`` that needs
#: more is refused, at once, with the error predicted at this size.
MAX_AUTO_COMPONENTS = 2**17
#: Training rows that the formulas are evaluated on (all their pairs), and
#: the fewer that pilot sketches transform.
N_SIZING_ROWS = 256
N_PILOT_ROWS = 128
#: Independent pilot sketches averaged at each pilot size: at least the
#: first number, more while the relative standard error of their mean error
#: is above ``PILOT_PRECISION``, at most the second.
PILOT_DRAWS = (3, 12)
PILOT_PRECISION = 0.1
#: Most refinements of a model by pilots near the size it predicts.
MAX_REFINEMENTS = 4
#: A refinement's pilot is at most this many times larger than the largest so far.
MAX_PILOT_STEP = 8
#: Bytes of features held at once to compute a Gram matrix of sample rows.
GRAM_BYTES = 2**28


class Sample:
    """Training rows drawn for sizing, weighed as in the Gram matrix of all of them.

    ``rows`` are up to ``n_sample_rows`` training rows drawn without
    replacement (all of them when there are fewer), in float64: the
    formulas are evaluated on all their pairs, each weighed by
    :meth:`weigh_gram` as the pairs of all the training rows. ``pilot()``
    is the sample of fewer of those rows (``N_PILOT_ROWS`` by default) that
    pilot sketches transform.

    Parameters
    ----------
    X : {ndarray, csr_matrix} of shape (n_samples, n_features)
        The validated training rows.
    random_state : numpy.random.RandomState
    owner : str
        The estimator's class name, for the messages.
    n_sample_rows : int, default=N_SIZING_ROWS
    among : ndarray of int, default=None
        The rows of ``X`` to draw from (all of them by default): a pilot
        sample draws from its parent's rows, without copying them.
    """

    def __init__(self, X, random_state, owner="the sketch", n_sample_rows=N_SIZING_ROWS,
                 among=None):
        self.X, self.n_rows, self.owner = X, X.shape[0], owner
        n = self.n_rows if among is None else among.size
        if n > n_sample_rows:
            self._in_parent = np.sort(random_state.choice(n, n_sample_rows, replace=False))
        else:
            self._in_parent = np.arange(n)
        self._rows = self._in_parent if among is None else among[self._in_parent]
        self._random_state = random_state
        self._pilots = {}

    def pilot(self, n_rows=N_PILOT_ROWS):
        """A :class:`Sample` of ``n_rows`` of the sampled rows (itself if it has no more)."""
        if self._rows.size <= n_rows:
            return self
        if n_rows not in self._pilots:
            self._pilots[n_rows] = Sample(self.X, self._random_state, self.owner, n_rows,
                                          among=self._rows)
        return self._pilots[n_rows]

    @property
    def index_in_parent(self):
        """The positions of these rows among the rows they were drawn from."""
        return self._in_parent

    @functools.cached_property
    def rows(self):
        """The sampled rows, float64 (canonical CSR for sparse input)."""
        return _float64_rows(self.X, self._rows)

    def weigh_gram(self, M):
        """:func:`weigh_gram` of a matrix ``M`` over all pairs of :attr:`rows`."""
        return weigh_gram(M, self.n_rows)

    def relative(self, variance, kernel_norm):
        """``variance / kernel_norm`` (weighed sums), refusing a kernel that is 0.

        Raises
        ------
        ValueError
            If the kernel is 0 on every sampled pair, or the sums are not
            finite (values too large for float64).
        """
        if not (np.isfinite(variance) and np.isfinite(kernel_norm)):
            raise ValueError(
                f"n_components='auto' cannot size {self.owner}: its kernel or variance "
                "exceeds the range of float64 on the training rows. Scale the input "
                "down, or pass n_components as an integer."
            )
        if kernel_norm <= 0:
            raise ValueError(
                f"n_components='auto' cannot size {self.owner}: its kernel is 0 on "
                "every sampled pair of training rows, so a relative error eps is not "
                "defined. Check the input (all-zero rows?), or pass n_components as "
                "an integer."
            )
        return variance / kernel_norm


def weigh_gram(M, n_rows):
    """The sum over a Gram matrix of ``n_rows`` rows, from ``M`` over ``m`` of them.

    ``(n_rows - 1)`` times the mean of ``M``'s off-diagonal entries plus the
    mean of its diagonal: ``M.sum() / m`` when ``n_rows == m``, and an
    unbiased estimate of the sum over ``n_rows`` rows, divided by
    ``n_rows``, when the ``m`` rows are drawn from them.
    """
    m = M.shape[0]
    trace = np.trace(M)
    off = (M.sum() - trace) / (m * (m - 1)) if m > 1 else 0.0
    return (n_rows - 1) * off + trace / m


def _float64_rows(X, index):
    """Rows ``index`` of ``X`` in float64 (canonical CSR for sparse ``X``)."""
    rows = X[index]
    if sp.issparse(rows):
        return canonical_csr(rows.astype(np.float64))
    return np.asarray(rows, dtype=np.float64)


#: Sparse factors of :func:`dense_product` at least this dense over the
#: columns they use, and at most ``DENSE_FACTOR_BYTES`` once dense, are
#: multiplied dense: a sparse product costs the sum over the columns of the
#: squared number of rows that share each, which dense rows (pixels) make
#: quadratic, where BLAS is linear in the factors' size.
DENSE_FACTOR_DENSITY = 0.05
DENSE_FACTOR_BYTES = 2**25
#: Inputs at most this wide find their used columns by counting, not sorting.
MAX_COUNTED_COLUMNS = 2**22


def dense_product(A, B):
    """``A @ B.T`` as a dense float64 array (``A``, ``B`` dense or CSR).

    CSR factors are renumbered to the columns they use first, so that the
    cost follows their nonzeros whatever their width (scipy's product and
    column indexing allocate arrays as long as the width).
    """
    if sp.issparse(A) and sp.issparse(B):
        same = B is A  # a Gram matrix: its factor renumbered (and densified) once
        used = _used_column_indices(*((A,) if same else (A, B)))
        A = _renumbered(A, used)
        B = A if same else _renumbered(B, used)
        if _densify(A.shape[0] + B.shape[0], used.size, A.nnz + B.nnz):
            A = A.toarray()
            B = A if same else B.toarray()
    product = A @ B.T
    return product.toarray() if sp.issparse(product) else np.asarray(product, dtype=np.float64)


def compact_columns(X):
    """CSR ``X`` restricted to the columns it uses: dense where :func:`dense_product`
    would densify it, CSR otherwise (the same products between its rows)."""
    used = _used_column_indices(X)
    X = _renumbered(X, used)
    return X.toarray() if _densify(X.shape[0], used.size, X.nnz) else X


def _densify(n_rows, n_columns, nnz):
    """Whether rows that store ``nnz`` of their ``n_rows * n_columns`` cells are
    multiplied dense (``DENSE_FACTOR_DENSITY``, ``DENSE_FACTOR_BYTES``)."""
    cells = n_rows * n_columns
    return 8 * cells <= DENSE_FACTOR_BYTES and nnz >= DENSE_FACTOR_DENSITY * cells


def square(X):
    """The entries of ``X`` squared (dense or CSR)."""
    return X.multiply(X).tocsr() if sp.issparse(X) else X * X


def scale_rows(X, factors):
    """Row ``i`` of ``X`` (dense or CSR) times ``factors[i]``."""
    return sp.diags(factors) @ X if sp.issparse(X) else X * factors[:, None]


def same_block_pairs(n_samples, block):
    """Ordered pairs of distinct samples in the same block: ``sum_b f_b (f_b - 1)``.

    For ``n_samples`` samples laid in consecutive blocks of ``block`` (the
    last one partial): the pairs whose random factors are drawn together
    (orthogonal frequencies, coordinates of one Hadamard block).
    """
    full, rest = divmod(n_samples, block)
    return full * block * (block - 1) + rest * (rest - 1)


class SizingModel:
    """The predicted relative error of a sketch against its size.

    Subclasses give :meth:`squared_error`; ``admissible(n)`` is the smallest
    size at least ``n`` that the sketch takes (even sizes, fast FFT
    lengths), and :meth:`refine` may return a better model from pilots
    near a size.
    """

    def __init__(self, admissible=None):
        self.admissible = admissible or (lambda n: max(int(n), 1))

    def squared_error(self, n_components):
        """The predicted squared relative error at ``n_components``."""
        raise NotImplementedError

    def refine(self, n_components):
        """A model measured near ``n_components``, or None where this one is final."""
        return None

    def measured_size(self, requested):
        """The size this model (a refinement asked for ``requested``) measured."""
        return requested


class VarianceModel(SizingModel):
    """A closed form: ``squared_error(n)`` is ``variance(n)``, already relative.

    Parameters
    ----------
    variance : callable
        ``variance(n)``: the weighed sum of the entries' variances at size
        ``n``, divided by the weighed sum of the squared kernel.
    admissible : callable, default=None
    pilot : :class:`Pilot`, default=None
        Where the closed form is a bound or an approximation only: pilots at
        the size it predicts refine it (a :class:`PilotModel`).
    """

    def __init__(self, variance, admissible=None, pilot=None):
        super().__init__(admissible)
        self.variance, self.pilot = variance, pilot

    def squared_error(self, n_components):
        return self.variance(n_components)

    def refine(self, n_components):
        if self.pilot is None:
            return None
        return PilotModel(self.pilot, n_components, self.admissible)


class PilotModel(SizingModel):
    """The error of pilot sketches, and its law: ``err^2 = C n^-a``.

    The pilots' mean relative errors (the mean of the error, as a user sees
    it over fits, not the root of its mean square: the errors of Count
    Sketches of sparse rows are heavy-tailed) at every size measured so far
    give the law (:func:`_fit_law`): through one measurement, ``a = 1`` (the
    ``1/n`` law of independent features); through several, the weighted
    least-squares line in log-log scale, its slope clipped to ``[0.5, 2]``
    (an unbiased sketch's squared error falls at least as fast as ``1/n``
    until a floor; a flatter slope between noisy pilots is noise), to
    ``[0.5, 1]`` for a sketch that can stop falling, whose squared error
    ``C/n + F`` falls at most as fast as ``1/n``. Each
    refinement measures the size the law predicts, so that the line is
    fitted on pilots around the size chosen. For a sketch whose error can
    stop falling (``pilot.has_floor``: one permutation's hashes, once they
    outnumber the nonzeros), a larger size that measured a larger error (by
    more than 10% and two standard errors) means it is past its best size:
    the model keeps the least error measured as a floor, which no ``eps``
    below reaches. Other sketches have no floor, and such a measurement is
    noise.

    Parameters
    ----------
    pilot : :class:`Pilot`
    n0 : int
        The size to measure.
    admissible : callable, default=None
    former : PilotModel, default=None
        The model this one refines.
    """

    def __init__(self, pilot, n0, admissible=None, former=None):
        super().__init__(admissible)
        self.pilot, self.n0 = pilot, self.admissible(n0)
        error, se = pilot.mean_error(self.n0)
        earlier = former.history if former is not None else ()
        self.history = (*earlier, (self.n0, error, se))
        self.floor = None
        least = min((m for m in earlier if m[0] < self.n0), default=None,
                    key=lambda measured: measured[1])
        if pilot.has_floor and least is not None and error > 1.1 * least[1] and (
            error - least[1] > 2 * np.hypot(se, least[2])
        ):
            self.floor = least[:2]
        # A sketch with a floor, err^2 = C / n + F, falls at most as 1 / n.
        self.log_scale, self.exponent = _fit_law(self.history,
                                                 highest=1.0 if pilot.has_floor else 2.0)

    def squared_error(self, n_components):
        if self.floor is not None:
            size, error = self.floor
            return error**2 * max(size / n_components, 1.0)
        return float(np.exp(self.log_scale - self.exponent * np.log(n_components)))

    def refine(self, n_components):
        if self.floor is not None or n_components == self.n0:
            return None
        # Measured at most MAX_PILOT_STEP times beyond the largest pilot:
        # the law of pilots far smaller extrapolates poorly (the error of a
        # sketch of sketches can fall faster than 1/n from a small size).
        largest = max(size for size, _, _ in self.history)
        n_components = min(n_components, MAX_PILOT_STEP * largest)
        return PilotModel(self.pilot, n_components, self.admissible, former=self)

    def measured_size(self, requested):
        return self.n0


def _fit_law(history, lowest=0.5, highest=2.0):
    """``(log C, a)`` of ``err^2 = C n^-a`` through the measured ``(n, err, se)``.

    Weighted least squares of ``log err^2`` on ``log n``, each point weighed
    by the inverse variance of its ``log err^2``, ``(err / 2 se)^2``; the
    slope is 1 where the sizes span less than a factor 1.5 (a slope between
    close sizes is noise), and clipped to ``[lowest, highest]``.
    """
    sizes, errors, ses = (np.array(column, dtype=float) for column in zip(*history))
    x, y = np.log(sizes), 2 * np.log(errors)
    weights = (errors / (2 * np.maximum(ses, 1e-3 * errors))) ** 2
    x_mean, y_mean = np.average(x, weights=weights), np.average(y, weights=weights)
    exponent = 1.0
    if sizes.max() >= 1.5 * sizes.min():
        slope = np.sum(weights * (x - x_mean) * (y - y_mean)) / np.sum(
            weights * (x - x_mean) ** 2
        )
        exponent = float(np.clip(-slope, lowest, highest))
    return y_mean + exponent * x_mean, exponent


class Pilot:
    """Sketches of a given size drawn on the sample rows, and their measured error.

    Parameters
    ----------
    sample : :class:`Sample`
        Its ``pilot`` rows are transformed.
    build : callable
        ``build(n)``: a new map of size ``n``, not drawn.
    random_state : numpy.random.RandomState
        Draws the pilots' seeds.
    draws : tuple of int, default=PILOT_DRAWS
        The fewest and the most draws at a size.
    kernel : ndarray of shape (n_sampled, n_sampled), default=None
        The estimated kernel on all of ``sample``'s rows where the caller has
        it; otherwise the first pilot computes it on the pilot rows.
    n_rows : int, default=N_PILOT_ROWS
        The sampled rows that the pilots transform.
    has_floor : bool, default=False
        Whether the sketch's error can stop falling with the size (see
        :class:`PilotModel`).
    """

    def __init__(self, sample, build, random_state, draws=PILOT_DRAWS, kernel=None,
                 n_rows=N_PILOT_ROWS, has_floor=False):
        self.sample, self.build = sample.pilot(n_rows), build
        self.random_state, self.has_floor = random_state, has_floor
        self.draws = draws
        self.kernel = self.kernel_norm = None
        if kernel is not None:
            index = self.sample.index_in_parent
            self.kernel = kernel[np.ix_(index, index)]
            self.kernel_norm = self.sample.weigh_gram(self.kernel**2)

    def draw(self, n_components):
        """A map of size ``n_components`` drawn on the sample rows."""
        sketch_map = self.build(n_components)
        sketch_map.owner = self.sample.owner
        seed = self.random_state.randint(np.iinfo(np.int32).max)
        sketch_map.draw(check_random_state(seed), self.sample.rows)
        return sketch_map

    def drawn(self, n_components):
        """A drawn map of size ``n_components``; the kernel on the rows at the first."""
        sketch_map = self.draw(n_components)
        if self.kernel is None:
            self.kernel = sketch_map.estimated_kernel(self.sample.rows)
            self.kernel_norm = self.sample.weigh_gram(self.kernel**2)
        return sketch_map

    def error(self, n_components):
        """The squared error ``||G - K||^2`` (weighed) of one draw of size ``n_components``."""
        rows = self.sample.rows
        sketch_map = self.drawn(n_components)
        gram = feature_gram(functools.partial(map_features, sketch_map), rows, sketch_map)
        return self.sample.weigh_gram((gram - self.kernel) ** 2)

    def errors(self, n_components, squared):
        """Relative errors (or their squares) of draws at ``n_components``.

        Draws are added (up to ``draws[1]``) until their mean is known within
        ``PILOT_PRECISION`` (relative standard error): few where the error of
        one draw varies little, as on wide data.
        """
        def one():
            value = self.sample.relative(self.error(n_components), self.kernel_norm)
            return value if squared else np.sqrt(value)

        fewest, most = self.draws
        errors = [one() for _ in range(fewest)]
        while len(errors) < most and _relative_spread(errors) > PILOT_PRECISION:
            errors.append(one())
        return np.array(errors)

    def squared_error(self, n_components):
        """The mean squared relative error of the draws at ``n_components``."""
        return self.errors(n_components, squared=True).mean()

    def mean_error(self, n_components):
        """The mean relative error of the draws at ``n_components``, and its standard error."""
        errors = self.errors(n_components, squared=False)
        return errors.mean(), errors.std(ddof=1) / np.sqrt(errors.size)


def _relative_spread(values):
    """The standard error of the mean of ``values`` over the mean (0 for a zero mean)."""
    mean = np.mean(values)
    if mean <= 0:
        return 0.0
    return np.std(values, ddof=1) / np.sqrt(len(values)) / mean


def map_features(sketch_map, rows):
    """The features of ``rows`` under a drawn map (float64, in one piece)."""
    state = sketch_map.prepare(rows, 1, 1)
    if sketch_map.sparse_output:
        return sketch_map.transform_chunk(rows, None, state)
    out = np.empty((rows.shape[0], sketch_map.n_output))
    with np.errstate(over="ignore", invalid="ignore"):
        sketch_map.transform_chunk(rows, out, state)
    return out


def feature_gram(features, rows, sketch_map, max_bytes=GRAM_BYTES):
    """``Z Z^T`` (float64) of the features ``Z = features(rows)`` of a few rows.

    ``sketch_map`` is the drawn map behind ``features``: its ``n_output``,
    ``sparse_output`` and :meth:`~sklearn_sketch._map.SketchMap.gram`.
    Dense features of at most ``max_bytes`` are computed at once; beyond,
    by blocks of rows, each pair of blocks transformed again, so that the
    memory stays bounded whatever ``n_output`` is.
    """
    n_rows, n_output = rows.shape[0], max(sketch_map.n_output, 1)
    block = n_rows if sketch_map.sparse_output else max(max_bytes // (16 * n_output), 1)
    if block >= n_rows:
        return sketch_map.gram(features(rows))
    gram = np.empty((n_rows, n_rows))
    starts = range(0, n_rows, block)
    for a in starts:
        Z_a = np.asarray(features(rows[a : a + block]), dtype=np.float64)
        for b in starts:
            if b > a:
                break
            Z_b = Z_a if b == a else np.asarray(features(rows[b : b + block]), dtype=np.float64)
            gram[a : a + block, b : b + block] = Z_a @ Z_b.T
            gram[b : b + block, a : a + block] = gram[a : a + block, b : b + block].T
    return gram


def product_gram(Z):
    """``Z Z^T`` as a dense float64 array, of dense or CSR features ``Z``.

    CSR features are restricted to the columns they store first
    (:func:`compact_columns`): a hasher's output has ``n_components *
    2**b_bits`` columns, most of them empty among a few rows.
    """
    if sp.issparse(Z):
        Z = compact_columns(sp.csr_matrix(Z, dtype=np.float64))
    else:
        Z = np.asarray(Z, dtype=np.float64)
    product = Z @ Z.T
    return product.toarray() if sp.issparse(product) else product


def _renumbered(M, used):
    """CSR ``M`` with its columns numbered by their place in ``used`` (sorted, and
    holding every column ``M`` stores): ``used.size`` columns, the same products."""
    M = sp.csr_matrix(M)
    if M.shape[1] <= MAX_COUNTED_COLUMNS:
        # A gather through a table of the columns: several times faster than
        # a binary search of every stored index.
        table = np.zeros(M.shape[1], dtype=M.indptr.dtype)
        table[used] = np.arange(used.size, dtype=M.indptr.dtype)
        indices = table[M.indices]
    else:
        indices = np.searchsorted(used, M.indices).astype(M.indptr.dtype, copy=False)
    return sp.csr_matrix((M.data, indices, M.indptr), shape=(M.shape[0], used.size))


def _used_column_indices(*matrices):
    """The sorted columns that any of the CSR ``matrices`` stores."""
    n_columns = matrices[0].shape[1]
    if n_columns <= MAX_COUNTED_COLUMNS:
        counts = sum(np.bincount(M.indices, minlength=n_columns) for M in matrices)
        return np.flatnonzero(counts)
    return np.unique(np.concatenate([M.indices for M in matrices]))


def smallest_size(model, eps):
    """The smallest admissible size whose predicted error is at most ``eps``, or None.

    The predicted error falls with the size: a doubling search finds a size
    that reaches ``eps`` (None if none does up to ``MAX_AUTO_COMPONENTS``),
    then a bisection the smallest admissible one.
    """
    target = eps**2
    low = high = model.admissible(1)
    if model.squared_error(high) <= target:
        return high
    while model.squared_error(high) > target:
        if high >= MAX_AUTO_COMPONENTS:
            return None
        low, high = high, model.admissible(min(2 * high, MAX_AUTO_COMPONENTS))
        if high > MAX_AUTO_COMPONENTS:
            return None
    while True:
        middle = model.admissible((low + high) // 2)
        if middle >= high or middle <= low:
            return high
        if model.squared_error(middle) <= target:
            high = middle
        else:
            low = middle


def auto_size(estimator, X):
    """``(n_components, expected_error)`` for ``estimator.eps`` on the training rows ``X``.

    Draws the sample and the pilots from ``check_random_state(
    estimator.random_state)``: the same sizes for the same seed. The final
    map is drawn afterwards from its own ``check_random_state``, so a fit
    with an int seed draws the same features as a fit with
    ``n_components=n_components_``.

    Raises
    ------
    ValueError
        If no size up to ``MAX_AUTO_COMPONENTS`` reaches ``eps``, or the
        kernel is 0 on the sample.
    """
    owner, eps = type(estimator).__name__, estimator.eps
    random_state = check_random_state(estimator.random_state)
    sample = Sample(X, random_state, owner)
    build = functools.partial(estimator._make_map, X)
    probe = build(2)
    probe.owner = owner
    with single_threaded_blas():
        model = probe.sizing_model(sample, build, random_state)
        return refined_size(model, eps, owner)


def refined_size(model, eps, owner="the sketch"):
    """``(n_components, expected_error)``: :func:`smallest_size` of ``model``, refined.

    Each refinement measures pilots at the size chosen (at most
    ``MAX_PILOT_STEP`` times the largest pilot so far) and chooses again,
    until the size chosen is within 25% of the size measured, at most
    ``MAX_REFINEMENTS`` times.
    """
    n_components = _reachable_size(model, eps, owner)
    for _ in range(MAX_REFINEMENTS):
        finer = model.refine(n_components)
        if finer is None:
            break
        model, former = finer, finer.measured_size(n_components)
        n_components = _reachable_size(model, eps, owner)
        if abs(n_components - former) <= 0.25 * former:
            break
    return n_components, float(np.sqrt(model.squared_error(n_components)))


def _reachable_size(model, eps, owner):
    """:func:`smallest_size`, or the ValueError of an ``eps`` beyond the largest size."""
    n_components = smallest_size(model, eps)
    if n_components is not None:
        return n_components
    largest = model.admissible(MAX_AUTO_COMPONENTS)
    raise ValueError(
        f"n_components='auto' cannot reach eps={eps} with {owner} on this data: its "
        f"predicted error is {np.sqrt(model.squared_error(largest)):.3g} at "
        f"n_components={largest}, the most n_components='auto' chooses. Use a larger "
        "eps, a kernel or option the sketch estimates with less variance on this data "
        "(see the estimator's Notes), or pass n_components as an integer."
    )

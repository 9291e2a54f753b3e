"""The error a fitted sketch achieves: its Gram matrix against the kernel it estimates."""

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._sizing import feature_gram, weigh_gram
from ..utils._compat import _safe_indexing
from ..utils._validation import validate_features


def kernel_approximation_error(estimator, X, *, n_samples=1000, random_state=None):
    r"""Relative Frobenius error of a fitted sketch's Gram matrix on ``X``.

    .. math::

        \frac{\|\hat K - K\|_F}{\|K\|_F}, \qquad
        \hat K_{ij} = \langle \phi(x_i), \phi(x_j) \rangle,

    for the rows :math:`x_i` of ``X``, :math:`\phi` the estimator's
    ``transform`` and :math:`K` what its features estimate: the kernel its
    docstring states, with the gamma it was fitted with (``gamma_``), and
    for the b-bit codes of :class:`~sklearn_sketch.CoREHasher` and
    :class:`~sklearn_sketch.MinMaxHasher` the offset the docstrings give
    (:math:`(1 - P) 2^{-b}` added to the collision probability :math:`P`;
    for ``codes="0bit"``, :math:`P` is the collision probability of the
    coordinates, above the min-max kernel): the features' expectation. The
    offset is a bias that no ``n_components`` removes, left out of the
    error on purpose, as ``n_components="auto"`` leaves it out of ``eps``.

    This is the quantity ``n_components="auto"`` sizes a sketch for (its
    ``eps``) and predicts (its ``expected_error_``), when ``X`` are the
    training rows.

    Parameters
    ----------
    estimator : fitted estimator of sklearn_sketch
        Any estimator whose features estimate a kernel by inner products
        (every one but :class:`~sklearn_sketch.KernelJL`).

    X : {array-like, sparse matrix} of shape (n_rows, n_features)
        The rows whose Gram matrix is compared.

    n_samples : int or None, default=1000
        With more rows than this, ``n_samples`` rows drawn without
        replacement stand for them: the error of the Gram matrix of all the
        rows of ``X`` is estimated from the sampled rows' off-diagonal and
        diagonal entries, each weighed by its share of the whole matrix.
        None: all rows.

    random_state : int, RandomState instance or None, default=None
        Draws the sampled rows.

    Returns
    -------
    error : float
        The relative error; 0 for features that are the kernel exactly.

    Raises
    ------
    ValueError
        If the estimator's features do not estimate its kernel (KernelJL),
        if ``X`` is not valid input of the estimator, or if the kernel is 0
        on every pair of the rows (the relative error is not defined).

    Notes
    -----
    The memory is that of the features of at most ``n_samples`` rows,
    computed by blocks of rows of at most 256 MiB (a block transformed
    again for each block it meets), and of two ``n_samples`` by
    ``n_samples`` matrices.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketch import OrthogonalRBFSampler
    >>> from sklearn_sketch.metrics import kernel_approximation_error
    >>> X = np.random.RandomState(0).rand(200, 10)
    >>> sampler = OrthogonalRBFSampler(n_components="auto", eps=0.05, random_state=0)
    >>> sampler.fit(X).expected_error_ <= 0.05
    True
    >>> error = kernel_approximation_error(sampler, X)
    >>> bool(0.04 < error < 0.06)
    True
    """
    check_is_fitted(estimator, "_map")
    refusal = getattr(estimator, "_auto_size_refusal", None)
    if refusal is not None:
        raise ValueError(f"kernel_approximation_error cannot measure "
                         f"{type(estimator).__name__}: {refusal}")
    n_rows = _num_rows(X)
    index = np.arange(n_rows)
    if n_samples is not None and n_rows > n_samples:
        index = np.sort(check_random_state(random_state).choice(n_rows, n_samples, False))
    rows = _safe_indexing(X, index)
    valid = validate_features(estimator, rows, reset=False)
    kernel = estimator._map.estimated_kernel(valid.astype(np.float64))
    gram = feature_gram(estimator.transform, rows, estimator._map)
    norm = weigh_gram(kernel**2, n_rows)
    if not norm > 0:
        raise ValueError(
            "kernel_approximation_error: the kernel is 0 on every pair of the rows of "
            "X, so the relative error is not defined."
        )
    return float(np.sqrt(weigh_gram((gram - kernel) ** 2, n_rows) / norm))


def _num_rows(X):
    """The number of rows of an array-like, sparse matrix or DataFrame."""
    return X.shape[0] if hasattr(X, "shape") else len(X)

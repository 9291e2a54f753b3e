"""The variance of the orthogonal random features, for ``n_components="auto"``.

With ``f`` frequencies (``n_components = 2 f`` features: a cosine and a
sine each), the estimate of ``k = exp(-gamma ||x - y||^2)`` is the mean of
``cos(w . (x - y))`` over the frequencies. Independent Gaussian frequencies
give it the variance ``(1 - k^2)^2 / (2 f)`` (Sutherland & Schneider 2015).
The frequencies of one orthogonal block (ORF, SORF, Fastfood; ``width``
frequencies a block) are exchangeable and negatively correlated, with no
closed form at the widths used (Yu et al. 2016 give its limit): with
``C`` the covariance of two frequencies of a block, summed over the pairs
like the variances,

    ``Var(f) = V / f + C sum_b f_b (f_b - 1) / f^2``

for blocks of ``f_b`` frequencies. :class:`FourierModel` starts from
``C = 0`` (independent frequencies: an upper bound) and measures ``C`` once,
with pilot features drawn on the sampled rows at the size that bound
predicts (ORF: at most ``MAX_ORF_PILOT`` frequencies, one partial block,
as ``C`` is that of any two rows of a Haar-random orthogonal block). A
Count Sketch that hashes wide input down is shared by all the frequencies:
its error, which does not shrink with ``f``, is a covariance of every pair
of them, as if they were one block.
"""

import numpy as np

from .._sizing import MAX_AUTO_COMPONENTS, Pilot, SizingModel, dense_product, same_block_pairs
from ..utils._gamma import scale_gamma


#: The most frequencies of an ORF pilot, whose draw (a QR factorization of
#: ``width x f``) would otherwise cost as much as the fit.
MAX_ORF_PILOT = 256


def rbf_kernel_matrix(X, gamma):
    """``exp(-gamma ||x - y||^2)`` between the rows of ``X`` (float64)."""
    gram = dense_product(X, X)
    norms = np.diag(gram)
    distances = np.maximum(norms[:, None] + norms[None, :] - 2 * gram, 0.0)
    return np.exp(-gamma * distances)


def even(n):
    """The smallest even size at least ``n`` (a cosine and a sine per frequency)."""
    n = max(int(n), 2)
    return n + n % 2


class FourierModel(SizingModel):
    """``Var(f) = V / f + C w(f)``, relative to ``||K||^2`` (see the module).

    Parameters
    ----------
    variance : tuple of float
        ``V``, the weighed variance of one independent frequency over the
        weighed squared kernel, on the sampled rows and on the pilot's.
    covariance : float
        ``C``, likewise, of two frequencies of one block.
    width : int
        Frequencies per block.
    pilot : :class:`~sklearn_sketch._sizing.Pilot`
    n0 : int or None
        The size ``C`` was measured at (None: not measured, ``C = 0``).
    largest_pilot : int or None
        The most frequencies of a pilot (None: any).
    """

    def __init__(self, variance, covariance, width, pilot, n0=None, largest_pilot=None):
        super().__init__(even)
        (self.variance, self.pilot_variance), self.covariance = variance, covariance
        self.width = width
        self.pilot, self.n0, self.largest_pilot = pilot, n0, largest_pilot

    def block_weight(self, n_frequencies):
        """``w(f)``: the share of the pairs of frequencies drawn in one block."""
        return same_block_pairs(n_frequencies, self.width) / n_frequencies**2

    def squared_error(self, n_components):
        f = max(n_components // 2, 1)
        value = self.variance / f + self.covariance * self.block_weight(f)
        # A covariance measured with noise must not predict an error below
        # that of a full block of exact orthogonality.
        return max(value, 1e-3 * self.variance / f)

    def refine(self, n_components):
        # C is a property of two frequencies of a block, the same at every
        # size for ORF, whose pilots are capped; the structured blocks are
        # measured again where the size moved. The pilots transform fewer
        # rows than V is summed over: C is relative to their own V.
        f = min(max(n_components // 2, 1), self.largest_pilot or n_components)
        if 2 * f == self.n0:
            return None
        measured = self.pilot.squared_error(2 * f)
        weight = self.block_weight(f)
        covariance = (measured - self.pilot_variance / f) / weight if weight else 0.0
        return FourierModel((self.variance, self.pilot_variance), covariance, self.width,
                            self.pilot, 2 * f, self.largest_pilot)


def fourier_model(sketch_map, sample, random_state):
    """The model of a :class:`FourierFeatureMap` on ``sample``, ``C = 0`` at first.

    ``gamma="scale"`` is taken on the sampled rows (the fit takes it on all
    of them): the kernel's width within the sample's estimate of the
    variance, at a cost that does not grow with the training rows.
    """
    gamma = sketch_map.gamma
    if gamma == "scale":
        gamma = scale_gamma(sample.rows)
    variance = [_frequency_variance(part, float(gamma)) for part in (sample, sample.pilot())]
    new_map = type(sketch_map)

    def build(n_components):
        return new_map(sketch_map.n_features, n_components, float(gamma), sketch_map.method)

    # Input hashed down shares one Count Sketch among all frequencies: its
    # error is common to every pair of them, as if they were one block.
    width = MAX_AUTO_COMPONENTS if sketch_map.hashed else sketch_map.width
    pilot = Pilot(sample, build, random_state)
    largest = MAX_ORF_PILOT if sketch_map.method == "orf" else None
    return FourierModel(variance, 0.0, width, pilot, largest_pilot=largest)


def _frequency_variance(sample, gamma):
    """``V`` of :class:`FourierModel` on the rows of ``sample``."""
    kernel = rbf_kernel_matrix(sample.rows, gamma)
    return sample.relative(sample.weigh_gram((1 - kernel**2) ** 2 / 2),
                           sample.weigh_gram(kernel**2))

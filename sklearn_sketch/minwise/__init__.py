"""Minwise hashing of nonzero patterns: the CoRE and resemblance kernels.

``_positions`` computes the minwise and one-permutation hash positions
(with the densification of empty bins), ``_projection`` the random
projections of CoRE type 1, ``_core_hasher`` the estimator. The hash families
they draw (multiply-add-shift of ``fmix32`` keys, b-bit codes, polynomial and
SplitMix64 hashes) live in ``utils._hashing``.
"""

from ._core_hasher import CoREHasher

__all__ = ["CoREHasher"]

"""Minwise and weighted minwise hashing: CoRE, resemblance and min-max kernels.

``_positions`` computes the minwise and one-permutation hash positions
(with the densification of empty bins; its loops over rows are compiled in
``_minwise_kernels``, over the hash values that ``utils._hash_kernels``
computes), ``_projection`` the random
projections of CoRE type 1, ``_core_hasher`` the CoRE estimator; ``_cws``
the consistent weighted samples of the min-max kernel (DartMinHash, whose
loops are ``_dart_kernels``), ``_min_max_hasher``
its estimator; ``_one_hot`` the b-bit one-hot output both share. The hash families
they draw (multiply-add-shift of ``fmix32`` keys, b-bit codes, polynomial and
SplitMix64 hashes) live in ``utils._hashing``.
"""

from ._core_hasher import CoREHasher
from ._min_max_hasher import MinMaxHasher

__all__ = ["CoREHasher", "MinMaxHasher"]

"""Minwise and weighted minwise hashing: CoRE, resemblance and min-max kernels.

``_positions`` computes the minwise, one-permutation and fast similarity
sketch positions (with the densification of empty bins; its loops over rows
are compiled in ``_minwise_kernels``, over the hash values that
``utils._hash_kernels`` computes), ``_minwise_codes`` the b-bit codes of
those locations, ``_projection`` the random projections of CoRE type 1, and
``_core_features`` CoREHasher's map, which puts them together;
``_core_hasher`` is the CoRE estimator. ``_cws`` draws the consistent
weighted samples of the min-max kernel (DartMinHash, whose loops are
``_dart_kernels``), ``_dart_codes`` is MinMaxHasher's map of their codes and
``_min_max_hasher`` its estimator; ``_one_hot`` holds the b-bit one-hot
output both maps share. The hash families they draw (multiply-add-shift of
``fmix32`` keys, b-bit codes, polynomial and SplitMix64 hashes) live in
``utils._hashing``.
"""

from ._core_hasher import CoREHasher
from ._min_max_hasher import MinMaxHasher

__all__ = ["CoREHasher", "MinMaxHasher"]

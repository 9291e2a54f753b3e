"""Minwise hashing of nonzero patterns: the CoRE and resemblance kernels.

``_positions`` computes the minwise and one-permutation hash positions and
their b-bit codes, ``_projection`` the random projections of CoRE type 1.
"""

from ._core_hasher import CoREHasher

__all__ = ["CoREHasher"]

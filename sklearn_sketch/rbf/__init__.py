"""Random Fourier features of the RBF kernel: orthogonal, structured, Fastfood."""

from ._orthogonal import OrthogonalRBFSampler

__all__ = ["OrthogonalRBFSampler"]

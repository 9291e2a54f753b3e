"""Gaussian sketches of a subsample Gram matrix (K-JL)."""

from ._kernel_jl import KernelJL

__all__ = ["KernelJL"]

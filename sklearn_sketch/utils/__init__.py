"""Private utilities shared by every estimator family.

One home per concept: ``_validation`` (the input rules and parameter
constraints), ``_chunking`` (chunk budgets and the chunk engine),
``_sparse`` (sparse-matrix helpers), ``_hashing`` and ``_counter_random``
(hash families and counter-based random numbers), ``_count_sketch`` (the
Count Sketch of sparse rows), ``_hadamard`` (the fast Walsh-Hadamard
transform), ``_gamma`` (``gamma="scale"`` from the data's variance), ``_dask`` (blockwise
transforms of dask collections), ``_incremental`` (reservoir
sampling for ``partial_fit``) and ``_compat`` (every private scikit-learn import).
"""

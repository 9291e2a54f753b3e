"""Blockwise transforms of dask collections (optional: ``sklearn-sketch[dask]``).

Every estimator's ``transform`` starts with :func:`maybe_transform_dask`.
For anything but a dask collection it returns None at the cost of a type
check; dask is recognised by the module name of the input's type, so
nothing here imports dask unless the input already is a dask object.

A dask array (numpy or scipy.sparse blocks) becomes a lazy dask array
through ``map_blocks``: one task per block of rows, the rows chunked as in
the input, a single column chunk of width ``n_features_out``, and the meta
of the output (numpy, or ``scipy.sparse.csr_matrix`` for CoREHasher). A dask
DataFrame becomes a dask DataFrame with the columns
``get_feature_names_out()`` for the dense outputs (``map_partitions``), and a
dask array of CSR blocks (rows per partition unknown until computed, as
for ``DataFrame.to_dask_array()``) for CoREHasher. Each block is transformed
by the estimator's own ``transform``, which is row-independent, so the
result equals the in-memory transform of the whole input.
"""

import numpy as np


def is_dask_collection(X):
    """Whether ``X`` is a dask collection (array, DataFrame, ...), without importing dask."""
    module = type(X).__module__ or ""
    return module.split(".", 1)[0] == "dask" and hasattr(X, "__dask_graph__")


def maybe_transform_dask(estimator, X):
    """The lazy blockwise transform of a dask collection, else None.

    Parameters
    ----------
    estimator : fitted estimator of sklearn_sketch
        Must have ``get_feature_names_out``; its map (``_map``) says
        whether the output is sparse.
    X : object
        The input of ``transform``.

    Returns
    -------
    X_new : dask Array, dask DataFrame or None
        None when ``X`` is not a dask collection.
    """
    if not is_dask_collection(X):
        return None
    import dask.array as da

    if isinstance(X, da.Array):
        return _transform_array(estimator, X)
    if hasattr(X, "map_partitions") and hasattr(X, "columns"):
        return _transform_dataframe(estimator, X)
    raise TypeError(
        f"{type(estimator).__name__}.transform accepts dask Arrays and DataFrames; "
        f"got {type(X).__module__}.{type(X).__name__}."
    )


def _output_dtype(input_dtype):
    # The estimators keep float32 and compute everything else in float64.
    return np.dtype(np.float32 if np.dtype(input_dtype) == np.float32 else np.float64)


def _output_meta(estimator, dtype):
    import scipy.sparse as sp

    n_out = estimator._n_features_out
    if _sparse_output(estimator):
        return sp.csr_matrix((0, n_out), dtype=dtype)
    return np.empty((0, n_out), dtype=dtype)


def _sparse_output(estimator):
    # A fitted estimator's map says whether its output is sparse.
    return getattr(vars(estimator).get("_map"), "sparse_output", False)


def _transform_block(block, estimator):
    if block.shape[0] == 0:  # dask may hold empty blocks; transform rejects them
        return _output_meta(estimator, _output_dtype(block.dtype))
    return estimator.transform(block)


def _transform_array(estimator, X):
    name = type(estimator).__name__
    if X.ndim != 2:
        raise ValueError(f"{name}.transform expects a 2D dask array; got ndim={X.ndim}.")
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {name} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    if len(X.chunks[1]) > 1:
        # Every block must hold whole rows.
        X = X.rechunk({1: -1})
    dtype = _output_dtype(X.dtype)
    return X.map_blocks(
        _transform_block,
        estimator=estimator,
        chunks=(X.chunks[0], (estimator._n_features_out,)),
        dtype=dtype,
        meta=_output_meta(estimator, dtype),
        token=f"{name.lower()}-transform",
    )


def _transform_dataframe(estimator, X):
    import pandas as pd

    name = type(estimator).__name__
    if len(X.columns) != estimator.n_features_in_:
        raise ValueError(
            f"X has {len(X.columns)} features, but {name} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    dtype = _output_dtype(_frame_values_dtype(X))
    if _sparse_output(estimator):
        import dask.array as da

        parts = [
            da.from_delayed(
                _delayed_transform(part, estimator),
                shape=(np.nan, estimator._n_features_out),
                dtype=dtype,
                meta=_output_meta(estimator, dtype),
            )
            for part in X.to_delayed()
        ]
        return da.concatenate(parts, axis=0)
    columns = list(estimator.get_feature_names_out())
    meta = pd.DataFrame(np.empty((0, len(columns)), dtype=dtype), columns=columns)
    return X.map_partitions(
        _transform_partition, estimator, columns, meta=meta, align_dataframes=False
    )


def _frame_values_dtype(X):
    """The dtype of the values the in-memory input rules make of the dask DataFrame ``X``.

    Read on an empty pandas frame of ``X``'s column dtypes, by scikit-learn's
    own conversion (as ``validate_features`` converts each partition), so
    that pandas extension dtypes (nullable ``Float64``, ``Int64``, pyarrow,
    ``category``) get the dtype they get in memory. A frame that cannot be
    converted fails at ``compute``, in the partitions' ``transform``, with
    the error the in-memory frame gets.
    """
    import pandas as pd
    from sklearn.utils.validation import check_array

    from ._validation import FLOAT_DTYPES

    empty = pd.DataFrame({i: pd.Series([], dtype=dtype) for i, dtype in enumerate(X.dtypes)})
    try:
        values = check_array(
            empty, dtype=FLOAT_DTYPES, ensure_min_samples=0, ensure_all_finite=False
        )
    except (TypeError, ValueError):
        return np.dtype(np.float64)
    return values.dtype


def _delayed_transform(part, estimator):
    import dask

    return dask.delayed(_transform_block, pure=True)(part, estimator)


def _transform_partition(partition, estimator, columns):
    import pandas as pd

    values = _transform_block(partition, estimator)
    return pd.DataFrame(np.asarray(values), index=partition.index, columns=columns)

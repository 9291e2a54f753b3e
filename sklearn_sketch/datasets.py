"""Loaders for the real data sets used by the examples, tests and benchmarks.

The files are not shipped with the package.  A loader looks for them in
``data_home``, or else in the folder named by the environment variable
``SKLEARN_SKETCH_DATA``; the layout is that of the project's shared data
folder (``mnist/``, ``a9a/``, ``20newsgroups/``, ``sector/``, ``pendigits/``
...), documented in its README.  Nothing is downloaded.
"""

import gzip
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

DATA_ENV_VARIABLE = "SKLEARN_SKETCH_DATA"


class DataNotFoundError(FileNotFoundError):
    """A data set's files are not in the data folder."""


def get_data_home(data_home=None):
    """The folder holding the data sets.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Explicit folder. ``None`` reads the environment variable
        ``SKLEARN_SKETCH_DATA``.

    Returns
    -------
    data_home : pathlib.Path or None
        The folder, or None when neither is set.
    """
    if data_home is None:
        data_home = os.environ.get(DATA_ENV_VARIABLE)
    return None if data_home in (None, "") else Path(data_home)


def _data_file(data_home, *parts):
    home = get_data_home(data_home)
    if home is None:
        raise DataNotFoundError(
            f"No data folder: pass data_home or set {DATA_ENV_VARIABLE} to the "
            "folder holding the data sets."
        )
    path = home.joinpath(*parts)
    if not path.is_file():
        raise DataNotFoundError(f"Data file not found: {path}")
    return path


def _read_idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def load_mnist(data_home=None, *, subset="test"):
    """MNIST digits as rows of 784 pixel intensities in [0, 1].

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data folder (see :func:`get_data_home`).
    subset : {"train", "test"}, default="test"
        "train" is the 60000 training images, "test" the 10000 t10k images.

    Returns
    -------
    X : ndarray of shape (n_samples, 784), dtype float32
    y : ndarray of shape (n_samples,), dtype uint8
    """
    prefix = {"train": "train", "test": "t10k"}[subset]
    images = _read_idx(_data_file(data_home, "mnist", f"{prefix}-images-idx3-ubyte.gz"), 16)
    labels = _read_idx(_data_file(data_home, "mnist", f"{prefix}-labels-idx1-ubyte.gz"), 8)
    X = images.reshape(-1, 784).astype(np.float32) / np.float32(255)
    return X, labels.copy()


def _load_csr_bundle(path, subset):
    bundle = np.load(path)
    X = sp.csr_matrix(
        (
            bundle[f"{subset}_data"],
            bundle[f"{subset}_indices"],
            bundle[f"{subset}_indptr"],
        ),
        shape=tuple(bundle[f"{subset}_shape"]),
    )
    return X, bundle[f"y_{subset}"]


def load_a9a(data_home=None, *, subset="train"):
    """Adult (LIBSVM a9a): 123 binary features, labels -1/+1.

    Returns
    -------
    X : csr_matrix of shape (n_samples, 123), dtype float32
    y : ndarray of shape (n_samples,), dtype int8
    """
    return _load_csr_bundle(_data_file(data_home, "a9a", "a9a.npz"), subset)


def load_sector(data_home=None, *, subset="train", values="counts"):
    """Industry Sector web pages (LIBSVM sector), 105 classes, 55197 terms.

    Parameters
    ----------
    values : {"counts", "tfidf"}, default="counts"
        Raw term counts (int32) or LIBSVM's unit-normalized tf-idf (float32).

    Returns
    -------
    X : csr_matrix of shape (n_samples, 55197)
    y : ndarray of shape (n_samples,), dtype uint8
    """
    filename = {"counts": "sector_counts.npz", "tfidf": "sector_tfidf.npz"}[values]
    return _load_csr_bundle(_data_file(data_home, "sector", filename), subset)


def load_20newsgroups_counts(data_home=None, *, subset="train"):
    """20 Newsgroups term counts (130107 terms), labels 0..19.

    Returns
    -------
    X : csr_matrix of shape (n_samples, 130107), dtype int32
    y : ndarray of shape (n_samples,), dtype uint8
    """
    X = sp.load_npz(_data_file(data_home, "20newsgroups", f"counts_{subset}.npz"))
    labels = np.load(_data_file(data_home, "20newsgroups", "labels.npz"))
    return X.tocsr(), labels[f"y_{subset}"]


def load_20newsgroups_vocabulary(data_home=None):
    """The 130107 terms of :func:`load_20newsgroups_counts`, in column order."""
    path = _data_file(data_home, "20newsgroups", "vocabulary.txt.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return np.array(f.read().splitlines())


def load_pendigits(data_home=None, *, subset="train"):
    """UCI pen-based digits: 16 coordinates in 0..100, labels 0..9.

    Returns
    -------
    X : ndarray of shape (n_samples, 16), dtype float64
    y : ndarray of shape (n_samples,), dtype uint8
    """
    bundle = np.load(_data_file(data_home, "pendigits", "pendigits.npz"))
    return bundle[f"X_{subset}"].astype(np.float64), bundle[f"y_{subset}"]

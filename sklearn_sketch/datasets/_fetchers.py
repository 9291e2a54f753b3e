"""Fetchers of the real data sets used by the examples and benchmarks."""

import gzip

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from . import _base, _readers
from ._base import fetch_files, reading

_SUBSETS = ("train", "test")


def _check_option(name, value, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {options}; got {value!r}.")


def _bunch(X, y, return_X_y, descr, **extra):
    if return_X_y:
        return X, y
    return Bunch(data=X, target=y, DESCR=descr, **extra)


def _move_as_is(*keys):
    """A build step that keeps downloaded files as they are."""

    def build(download, workdir):
        return {key: download(key) for key in keys}

    return build


def fetch_mnist(
    data_home=None, *, subset="train", download_if_missing=True, return_X_y=False
):
    """MNIST handwritten digits: 28 x 28 gray images as rows of 784 values.

    LeCun, Cortes and Burges' 70000 digits, split into 60000 training and
    10000 test images; labels 0..9. Pixels are divided by 255.

    The data is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing it is downloaded from the mirror of the original
    MNIST files that torchvision uses
    (``https://ossci-datasets.s3.amazonaws.com/mnist/``): the two IDX files of
    the subset, 9.9 MB + 29 kB for "train" and 1.6 MB + 4.5 kB for "test",
    each checked against its published SHA-256. They are cached as they are
    (gzip IDX) in ``data_home/mnist/``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    subset : {"train", "test"}, default="train"
        The 60000 training or the 10000 test images.
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``: ndarray of shape (n_samples, 784), float32 in [0, 1];
        ``target``: ndarray of shape (n_samples,), uint8; ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_pendigits : Pen-based digits, 16 coordinates.

    References
    ----------
    .. [1] Y. LeCun, L. Bottou, Y. Bengio and P. Haffner. "Gradient-based
       learning applied to document recognition." Proceedings of the IEEE,
       86(11):2278-2324, 1998.

    Examples
    --------
    >>> from sklearn_sketch.datasets import fetch_mnist
    >>> mnist = fetch_mnist(subset="test")  # doctest: +SKIP
    >>> mnist.data.shape, mnist.data.dtype  # doctest: +SKIP
    ((10000, 784), dtype('float32'))
    """
    _check_option("subset", subset, _SUBSETS)
    prefix = {"train": "train", "test": "t10k"}[subset]
    files = [
        f"mnist/{prefix}-images-idx3-ubyte.gz",
        f"mnist/{prefix}-labels-idx1-ubyte.gz",
    ]
    home = fetch_files(
        "MNIST",
        files,
        files,
        _move_as_is(*files),
        data_home=data_home,
        download_if_missing=download_if_missing,
    )
    with reading("MNIST", home / files[0]):
        images = _readers.read_idx(home / files[0])
    with reading("MNIST", home / files[1]):
        labels = _readers.read_idx(home / files[1])
    if images.ndim != 3:
        problem = f"it holds images of shape {images.shape}"
        raise _base.corrupt("MNIST", home / files[0], problem)
    if labels.shape != images.shape[:1]:
        problem = f"it holds labels of shape {labels.shape} for {len(images)} images"
        raise _base.corrupt("MNIST", home / files[1], problem)
    X = images.reshape(len(images), -1).astype(np.float32)
    X /= np.float32(255)  # in place: the same values, one array fewer
    descr = f"MNIST {subset} images, 784 pixels in [0, 1], labels 0..9."
    return _bunch(X, labels.copy(), return_X_y, descr)


def _libsvm_bundle(keys, filename, n_features, dtype, shift_labels=0, label_dtype=None):
    """A build step: two LIBSVM files (train, test) into one CSR bundle."""

    def build(download, workdir):
        pairs = _readers.parse_libsvm([download(k) for k in keys], n_features, dtype)
        splits = {
            split: (X, (y + shift_labels).astype(label_dtype))
            for split, (X, y) in zip(_SUBSETS, pairs)
        }
        _readers.save_csr_bundle(workdir / "bundle.npz", splits)
        return {filename: workdir / "bundle.npz"}

    return build


def fetch_a9a(
    data_home=None, *, subset="train", download_if_missing=True, return_X_y=False
):
    """Adult (LIBSVM "a9a"): 123 binary features, income above 50K or not.

    J. Platt's binarization of the UCI Adult census data: 32561 training and
    16281 test rows, each with 14 ones among 123 features (a CSR matrix whose
    stored values are all 1.0); labels -1/+1.

    The data is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing, the two text files ``a9a`` (2.3 MB) and
    ``a9a.t`` (1.2 MB) are downloaded from the LIBSVM data page
    (``https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/``),
    checked against their SHA-256, and cached as one compressed CSR bundle,
    ``data_home/a9a/a9a.npz`` (both subsets).

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    subset : {"train", "test"}, default="train"
        The training (``a9a``) or test (``a9a.t``) rows.
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``: csr_matrix of shape (n_samples, 123), float32;
        ``target``: ndarray of shape (n_samples,), int8 in {-1, +1};
        ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_sector : Sparse term counts, 105 classes.

    References
    ----------
    .. [1] J. C. Platt. "Fast training of support vector machines using
       sequential minimal optimization." In Advances in Kernel Methods,
       MIT Press, 1998.

    Examples
    --------
    >>> from sklearn_sketch.datasets import fetch_a9a
    >>> X, y = fetch_a9a(subset="test", return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (16281, 123)
    """
    _check_option("subset", subset, _SUBSETS)
    build = _libsvm_bundle(
        ("a9a/a9a", "a9a/a9a.t"), "a9a/a9a.npz", 123, np.float32, label_dtype=np.int8
    )
    home = fetch_files(
        "a9a",
        ["a9a/a9a.npz"],
        ["a9a/a9a", "a9a/a9a.t"],
        build,
        data_home=data_home,
        download_if_missing=download_if_missing,
    )
    with reading("a9a", home / "a9a/a9a.npz"):
        X, y = _readers.load_csr_bundle(home / "a9a/a9a.npz", subset)
    return _bunch(X, y, return_X_y, f"LIBSVM a9a {subset} rows, 123 binary features.")


def _sector_counts(download, workdir):
    splits = {
        split: _readers.parse_sector_counts(download(key), 55197)
        for split, key in zip(_SUBSETS, ("sector/sector.bz2", "sector/sector.t.bz2"))
    }
    splits = {split: (X, y.astype(np.uint8)) for split, (X, y) in splits.items()}
    _readers.save_csr_bundle(workdir / "counts.npz", splits)
    return {"sector/sector_counts.npz": workdir / "counts.npz"}


def fetch_sector(
    data_home=None,
    *,
    subset="train",
    values="counts",
    download_if_missing=True,
    return_X_y=False,
):
    """Industry Sector web pages (LIBSVM "sector"): 55197 terms, 105 classes.

    J. Rennie's split of McCallum's Industry Sector corpus: 6412 training
    and 3207 test pages, labels 0..104.

    The data is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing it is downloaded from the LIBSVM data page
    (``https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/sector/``),
    checked against SHA-256 and cached as a compressed CSR bundle holding
    both subsets. ``values="counts"`` downloads ``sector.bz2`` and
    ``sector.t.bz2`` (1.8 MB + 0.9 MB, Rennie's format of raw term counts)
    and caches ``data_home/sector/sector_counts.npz``; ``values="tfidf"``
    downloads ``sector.scale.bz2`` and ``sector.t.scale.bz2`` (3.8 MB +
    1.9 MB) and caches ``data_home/sector/sector_tfidf.npz``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    subset : {"train", "test"}, default="train"
        The training or test pages.
    values : {"counts", "tfidf"}, default="counts"
        Raw term counts (int32, rows in the original order) or LIBSVM's
        tf-idf, ln(1 + tf) log2(n_docs / collection frequency) with rows
        of unit L2 norm (float32, rows in LIBSVM's order).
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``: csr_matrix of shape (n_samples, 55197); ``target``:
        ndarray of shape (n_samples,), uint8 in 0..104; ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_20newsgroups_counts : Term counts of newsgroup messages.

    References
    ----------
    .. [1] J. D. M. Rennie and R. Rifkin. "Improving multiclass text
       classification with the support vector machine." MIT AI Memo
       AIM-2001-026, 2001.

    Examples
    --------
    >>> from sklearn_sketch.datasets import fetch_sector
    >>> X, y = fetch_sector(subset="test", return_X_y=True)  # doctest: +SKIP
    >>> X.shape, int(y.max())  # doctest: +SKIP
    ((3207, 55197), 104)
    """
    _check_option("subset", subset, _SUBSETS)
    _check_option("values", values, ("counts", "tfidf"))
    if values == "counts":
        filename, build = "sector/sector_counts.npz", _sector_counts
        sources = ["sector/sector.bz2", "sector/sector.t.bz2"]
    else:
        filename = "sector/sector_tfidf.npz"
        sources = ["sector/sector.scale.bz2", "sector/sector.t.scale.bz2"]
        build = _libsvm_bundle(
            tuple(sources),
            filename,
            55197,
            np.float32,
            shift_labels=-1,
            label_dtype=np.uint8,
        )
    home = fetch_files(
        f"sector ({values})",
        [filename],
        sources,
        build,
        data_home=data_home,
        download_if_missing=download_if_missing,
    )
    with reading(f"sector ({values})", home / filename):
        X, y = _readers.load_csr_bundle(home / filename, subset)
    return _bunch(X, y, return_X_y, f"LIBSVM sector {subset} pages, {values}.")


_NEWS_ARCHIVE = "20newsgroups/20news-bydate.tar.gz"
_NEWS_FILES = [
    "20newsgroups/counts_train.npz",
    "20newsgroups/counts_test.npz",
    "20newsgroups/labels.npz",
    "20newsgroups/vocabulary.txt.gz",
]


def _news_counts(download, workdir):
    archive = download(_NEWS_ARCHIVE)
    counts, labels, vocabulary = _readers.build_20newsgroups_counts(archive)
    finished = {_NEWS_ARCHIVE: archive}
    for split, X in counts.items():
        sp.save_npz(workdir / f"counts_{split}.npz", X.tocsr())
        finished[f"20newsgroups/counts_{split}.npz"] = workdir / f"counts_{split}.npz"
    np.savez_compressed(workdir / "labels.npz", **labels)
    with gzip.open(workdir / "vocabulary.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(vocabulary) + "\n")
    finished["20newsgroups/labels.npz"] = workdir / "labels.npz"
    finished["20newsgroups/vocabulary.txt.gz"] = workdir / "vocabulary.txt.gz"
    return finished


_NEWS_NAME = "20 Newsgroups (counts)"


def _news_home(data_home, download_if_missing):
    return fetch_files(
        _NEWS_NAME,
        _NEWS_FILES,
        [_NEWS_ARCHIVE],
        _news_counts,
        data_home=data_home,
        download_if_missing=download_if_missing,
    )


def _check_agree(path, what, n_found, n_expected):
    """A 20 Newsgroups file that reads but disagrees with the counts."""
    if n_found != n_expected:
        problem = f"it holds {n_found} {what}, the counts {n_expected}"
        raise _base.corrupt(_NEWS_NAME, path, problem)


def read_vocabulary(path):
    with reading(_NEWS_NAME, path), gzip.open(path, "rt", encoding="utf-8") as f:
        return np.array(f.read().splitlines())


def fetch_20newsgroups_counts(
    data_home=None, *, subset="train", download_if_missing=True, return_X_y=False
):
    """20 Newsgroups ("bydate" split) as raw term counts over 130107 terms.

    Ken Lang's 18846 Usenet messages from 20 newsgroups, split by date into
    11314 training and 7532 test messages; labels 0..19 in the sorted order
    of the group names. The counts are those of scikit-learn's
    :class:`~sklearn.feature_extraction.text.CountVectorizer` at its defaults
    (lowercase, token pattern ``\\b\\w\\w+\\b``, headers kept), fit on the
    training messages, so the columns are the 130107 terms of
    :func:`sklearn.datasets.fetch_20newsgroups_vectorized`. Rows follow the
    sorted group, then file name.

    The data is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing, the archive ``20news-bydate.tar.gz``
    (14 MB) is downloaded from the URL scikit-learn's
    :func:`~sklearn.datasets.fetch_20newsgroups` uses (figshare), checked
    against the same SHA-256, read (messages decoded as latin-1, as
    scikit-learn does) and counted. ``data_home/20newsgroups/`` then holds the
    archive, ``counts_train.npz``, ``counts_test.npz`` (scipy CSR, int32),
    ``labels.npz`` and ``vocabulary.txt.gz`` (about 21 MB in all); the
    counting is done once.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    subset : {"train", "test"}, default="train"
        The training or test messages.
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``: csr_matrix of shape (n_samples, 130107), int32;
        ``target``: ndarray of shape (n_samples,), uint8 in 0..19;
        ``feature_names``: the vocabulary, in column order;
        ``target_names``: the 20 group names; ``filenames``:
        ``"<group>/<id>"`` of each row; ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_20newsgroups_archive : The raw messages.
    sklearn.datasets.fetch_20newsgroups_vectorized : tf-idf of the same messages.

    References
    ----------
    .. [1] K. Lang. "NewsWeeder: learning to filter netnews." In Proceedings
       of the 12th International Conference on Machine Learning, 1995.

    Examples
    --------
    >>> from sklearn_sketch.datasets import fetch_20newsgroups_counts
    >>> news = fetch_20newsgroups_counts(subset="test")  # doctest: +SKIP
    >>> news.data.shape, len(news.feature_names)  # doctest: +SKIP
    ((7532, 130107), 130107)
    """
    _check_option("subset", subset, _SUBSETS)
    home = _news_home(data_home, download_if_missing)
    counts = home / f"20newsgroups/counts_{subset}.npz"
    with reading(_NEWS_NAME, counts):
        X = sp.load_npz(counts).tocsr()  # scipy never allows pickles
    with reading(_NEWS_NAME, home / "20newsgroups/labels.npz"):
        with np.load(home / "20newsgroups/labels.npz", allow_pickle=False) as labels:
            y = labels[f"y_{subset}"]
            extra = {
                "target_names": labels["target_names"],
                "filenames": labels[f"files_{subset}"],
            }
    _check_agree(home / "20newsgroups/labels.npz", "labels", len(y), X.shape[0])
    if return_X_y:
        return X, y
    vocabulary = read_vocabulary(home / "20newsgroups/vocabulary.txt.gz")
    path = home / "20newsgroups/vocabulary.txt.gz"
    _check_agree(path, "terms", len(vocabulary), X.shape[1])
    descr = f"20 Newsgroups (bydate) {subset} messages, raw term counts."
    return _bunch(X, y, False, descr, feature_names=vocabulary, **extra)


def fetch_20newsgroups_archive(data_home=None, *, download_if_missing=True):
    """The path of the raw 20 Newsgroups archive ``20news-bydate.tar.gz``.

    The archive holds the messages as files
    ``20news-bydate-{train,test}/<group>/<id>`` (decode them as latin-1).
    It is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing it is downloaded (14 MB) from the URL scikit-learn's
    :func:`~sklearn.datasets.fetch_20newsgroups` uses, checked against the
    same SHA-256, and cached as ``data_home/20newsgroups/20news-bydate.tar.gz``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.

    Returns
    -------
    path : pathlib.Path
        The archive, to open with :mod:`tarfile`.

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_20newsgroups_counts : Term counts of the same messages.

    Examples
    --------
    >>> import tarfile
    >>> from sklearn_sketch.datasets import fetch_20newsgroups_archive
    >>> with tarfile.open(fetch_20newsgroups_archive()) as archive:  # doctest: +SKIP
    ...     names = archive.getnames()
    """
    home = fetch_files(
        "20 Newsgroups (archive)",
        [_NEWS_ARCHIVE],
        [_NEWS_ARCHIVE],
        _move_as_is(_NEWS_ARCHIVE),
        data_home=data_home,
        download_if_missing=download_if_missing,
    )
    return home / _NEWS_ARCHIVE


def _pendigits(download, workdir):
    pairs = _readers.parse_libsvm(
        [download("pendigits/pendigits"), download("pendigits/pendigits.t")],
        16,
        np.float64,
    )
    arrays = {}
    for split, (X, y) in zip(_SUBSETS, pairs):
        arrays[f"X_{split}"] = X.toarray().astype(np.uint8)
        arrays[f"y_{split}"] = y.astype(np.uint8)
    np.savez_compressed(workdir / "pendigits.npz", **arrays)
    return {"pendigits/pendigits.npz": workdir / "pendigits.npz"}


def fetch_pendigits(
    data_home=None, *, subset="train", download_if_missing=True, return_X_y=False
):
    """UCI pen-based handwritten digits: 16 coordinates in 0..100, labels 0..9.

    Alimoglu and Alpaydin's digits written on a tablet by 44 writers, each
    resampled to 8 (x, y) points scaled to 0..100: 7494 training and 3498
    test samples (different writers).

    The data is read from the data folder, :func:`get_data_home`
    (``data_home``); if missing, LIBSVM's copy of the UCI files, ``pendigits``
    (0.6 MB) and ``pendigits.t`` (0.3 MB), is downloaded from the LIBSVM
    data page
    (``https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/``),
    checked against SHA-256 and cached as ``data_home/pendigits/pendigits.npz``
    (uint8, both subsets).

    Parameters
    ----------
    data_home : str or path-like, default=None
        The data folder, read and downloaded into. ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``
        (:func:`get_data_home`).
    subset : {"train", "test"}, default="train"
        The training or test samples.
    download_if_missing : bool, default=True
        If False, raise :class:`DataNotFoundError` instead of downloading.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``: ndarray of shape (n_samples, 16), float64; ``target``:
        ndarray of shape (n_samples,), uint8; ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Raises
    ------
    CorruptDataError
        If a file it reads has another SHA-256 than the expected ones, or
        cannot be read.
    DataNotFoundError
        If the data set is in no data folder and ``download_if_missing=False``.

    See Also
    --------
    fetch_mnist : Images of handwritten digits.

    References
    ----------
    .. [1] F. Alimoglu and E. Alpaydin. "Combining multiple representations
       and classifiers for pen-based handwritten digit recognition." In
       Proceedings of the 4th International Conference on Document Analysis
       and Recognition, 1997.

    Examples
    --------
    >>> from sklearn_sketch.datasets import fetch_pendigits
    >>> X, y = fetch_pendigits(return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (7494, 16)
    """
    _check_option("subset", subset, _SUBSETS)
    home = fetch_files(
        "pendigits",
        ["pendigits/pendigits.npz"],
        ["pendigits/pendigits", "pendigits/pendigits.t"],
        _pendigits,
        data_home=data_home,
        download_if_missing=download_if_missing,
    )
    path = home / "pendigits/pendigits.npz"
    with reading("pendigits", path), np.load(path, allow_pickle=False) as bundle:
        X, y = bundle[f"X_{subset}"].astype(np.float64), bundle[f"y_{subset}"]
    return _bunch(X, y, return_X_y, f"UCI pendigits {subset} samples, 16 coordinates.")

"""Fetchers of the real data sets used by the examples and benchmarks.

Each ``fetch_*`` function follows scikit-learn's convention
(:func:`sklearn.datasets.fetch_20newsgroups` and the like). It looks for the
data set, in this order:

1. in the folder named by the environment variable ``SKLEARN_SKETCH_DATA``
   (a prepared folder in the layout ``mnist/``, ``a9a/``, ``20newsgroups/``,
   ``sector/``, ``pendigits/``);
2. in ``data_home`` (default: the ``sklearn_sketch`` subfolder of
   :func:`sklearn.datasets.get_data_home`), where earlier downloads are
   cached in that same layout;
3. else, unless ``download_if_missing=False``, it downloads the data set
   from its public source (named in each docstring), checks every file's
   SHA-256, converts it and caches the result in ``data_home``, so that the
   next call reads it in a second or less.

Every file a fetcher reads is checked first, wherever it was found: its
SHA-256 must be the published one, that of the project's prepared data
folder, or the one recorded when the fetcher converted a download. A
truncated, corrupt or foreign file raises :class:`CorruptDataError` (an
``OSError``) naming the file, its digest, the expected one and the fix, and
is never read; a damaged file in ``data_home`` is downloaded again when
``download_if_missing=True``, while the folder of ``SKLEARN_SKETCH_DATA`` is
never written. Each file is hashed once per version (size, times, inode): the
digests are kept in this process and in small records in the ``.sha256``
subfolder of ``data_home`` (else of the default one, where ``data_home`` is
read-only), so later calls, in any process, do not read the file again.

Downloading needs the optional dependency pooch
(``pip install 'sklearn-sketch[datasets]'``). The ``load_*`` functions are
the same fetchers returning ``(X, y)``.
"""

from ._base import (
    DATA_ENV_VARIABLE,
    CorruptDataError,
    DataNotFoundError,
    get_cache_home,
    get_data_home,
)
from ._fetchers import (
    fetch_20newsgroups_archive,
    fetch_20newsgroups_counts,
    fetch_a9a,
    fetch_mnist,
    fetch_pendigits,
    fetch_sector,
    load_20newsgroups_counts,
    load_20newsgroups_vocabulary,
    load_a9a,
    load_mnist,
    load_pendigits,
    load_sector,
)

__all__ = [
    "DATA_ENV_VARIABLE",
    "CorruptDataError",
    "DataNotFoundError",
    "fetch_20newsgroups_archive",
    "fetch_20newsgroups_counts",
    "fetch_a9a",
    "fetch_mnist",
    "fetch_pendigits",
    "fetch_sector",
    "get_cache_home",
    "get_data_home",
    "load_20newsgroups_counts",
    "load_20newsgroups_vocabulary",
    "load_a9a",
    "load_mnist",
    "load_pendigits",
    "load_sector",
]

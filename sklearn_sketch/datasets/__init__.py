"""Fetchers of the real data sets used by the examples and benchmarks.

Each ``fetch_*`` function follows scikit-learn's convention
(:func:`sklearn.datasets.fetch_20newsgroups` and the like): it returns a
:class:`~sklearn.utils.Bunch`, or ``(X, y)`` with ``return_X_y=True``. It
reads the data set from one data folder, :func:`get_data_home`:
``data_home`` if given, else the folder named by the environment variable
``SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``, in the layout
``mnist/``, ``a9a/``, ``20newsgroups/``, ``sector/``, ``pendigits/`` (that of
the project's prepared data folder). If the data set is missing there,
unless ``download_if_missing=False``, it downloads it from its public source
(named in each docstring), checks every file's SHA-256, converts it and
keeps the result in that folder, so that the next call reads it in a second
or less. Where downloading fails or is off, the error names each file's URL
and the path to save it at by hand. :func:`clear_data_home` deletes the
folder.

Every file a fetcher reads is checked first: its SHA-256 must be the
published one, that of the project's prepared data folder, or the one
recorded when the fetcher converted a download. A truncated, corrupt or
foreign file raises :class:`CorruptDataError` (an ``OSError``) naming the
file, its digest, the expected one and the fix, and is never read; a damaged
file is downloaded again when ``download_if_missing=True``, except in a
folder whose permissions say read-only, which is never written. Each file
is hashed once per version (size, times, inode): the digests are kept in
this process and in small records in the ``.sha256`` subfolder of the data
folder (else of ``~/sklearn_sketch_data``, where the data folder is
read-only), so later calls, in any process, do not read the file again.

Downloading needs the optional dependency pooch
(``pip install 'sklearn-sketch[datasets]'``).
"""

from ._base import (
    DATA_ENV_VARIABLE,
    CorruptDataError,
    DataNotFoundError,
    clear_data_home,
    get_data_home,
)
from ._fetchers import (
    fetch_20newsgroups_archive,
    fetch_20newsgroups_counts,
    fetch_a9a,
    fetch_mnist,
    fetch_pendigits,
    fetch_sector,
)

__all__ = [
    "DATA_ENV_VARIABLE",
    "CorruptDataError",
    "DataNotFoundError",
    "clear_data_home",
    "fetch_20newsgroups_archive",
    "fetch_20newsgroups_counts",
    "fetch_a9a",
    "fetch_mnist",
    "fetch_pendigits",
    "fetch_sector",
    "get_data_home",
]

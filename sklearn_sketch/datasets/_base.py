"""Where data sets are looked for, and how a missing one is downloaded.

A fetcher needs a few files in a data folder, in the layout of the project's
prepared data folder (``mnist/``, ``a9a/``, ``20newsgroups/``, ``sector/``,
``pendigits/``). It looks for them, in this order, in the folder named by the
environment variable ``SKLEARN_SKETCH_DATA``, then in ``data_home``; if they
are in neither, it downloads the raw files named in :data:`REMOTE_FILES`
into a temporary folder inside ``data_home``, checks each one's SHA-256,
converts them and moves the converted files into ``data_home``. Whatever
fails on the way (network, checksum, conversion), the temporary folder is
removed, so a failed download leaves nothing behind.
"""

import hashlib
import logging
import os
import tempfile
from collections import namedtuple
from pathlib import Path

from sklearn.datasets import get_data_home as _sklearn_data_home

logger = logging.getLogger(__name__)

DATA_ENV_VARIABLE = "SKLEARN_SKETCH_DATA"

#: A file to download: its URL, the SHA-256 digests accepted for it (more
#: than one where the host has served several versions of the same data),
#: and its size in bytes (for messages only).
RemoteFile = namedtuple("RemoteFile", ["url", "sha256", "n_bytes"])

_MNIST_URL = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
# The archive scikit-learn's fetch_20newsgroups downloads (same URL and digest).
_NEWS_URL = "https://ndownloader.figshare.com/files/5975967"

#: Every file a fetcher may download, keyed by ``"<data set>/<file name>"``.
REMOTE_FILES = {
    "mnist/train-images-idx3-ubyte.gz": RemoteFile(
        _MNIST_URL + "train-images-idx3-ubyte.gz",
        ("440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",),
        9912422,
    ),
    "mnist/train-labels-idx1-ubyte.gz": RemoteFile(
        _MNIST_URL + "train-labels-idx1-ubyte.gz",
        ("3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",),
        28881,
    ),
    "mnist/t10k-images-idx3-ubyte.gz": RemoteFile(
        _MNIST_URL + "t10k-images-idx3-ubyte.gz",
        ("8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",),
        1648877,
    ),
    "mnist/t10k-labels-idx1-ubyte.gz": RemoteFile(
        _MNIST_URL + "t10k-labels-idx1-ubyte.gz",
        ("f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",),
        4542,
    ),
    "a9a/a9a": RemoteFile(
        _LIBSVM_URL + "binary/a9a",
        ("f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906",),
        2329875,
    ),
    # Two versions have been served: with and without an explicit "123:0"
    # on the first row. Both give the same matrix.
    "a9a/a9a.t": RemoteFile(
        _LIBSVM_URL + "binary/a9a.t",
        (
            "4af3129b1b09137562c49d1e2c58f48af185f4b3ca130cd8ee2fbe10e7eb69b8",
            "1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9",
        ),
        1164633,
    ),
    "sector/sector.bz2": RemoteFile(
        _LIBSVM_URL + "multiclass/sector/sector.bz2",
        ("49255f113ec6ec51d1e93a3d031673f01a2a2236b85f7e6f224be94f384cc594",),
        1762353,
    ),
    "sector/sector.t.bz2": RemoteFile(
        _LIBSVM_URL + "multiclass/sector/sector.t.bz2",
        ("2457ca87ebfca32c911a42957626e5b471c52558b5d2dece9579f36cf56d45bd",),
        896836,
    ),
    "sector/sector.scale.bz2": RemoteFile(
        _LIBSVM_URL + "multiclass/sector/sector.scale.bz2",
        ("cba3d66eed97803665eeb76379fe9d9955712ea0e5c61d7003f644713ed842b5",),
        3829564,
    ),
    "sector/sector.t.scale.bz2": RemoteFile(
        _LIBSVM_URL + "multiclass/sector/sector.t.scale.bz2",
        ("c8c26e073abd92dda9e2a7903546fbe3c783a8d6141ec3fad360de4c0a572cbc",),
        1926378,
    ),
    "pendigits/pendigits": RemoteFile(
        _LIBSVM_URL + "multiclass/pendigits",
        ("6e8a2f318a24d97d26a9c381642621dc955fed73ec44c4d417bd7afbb47ed67c",),
        589457,
    ),
    "pendigits/pendigits.t": RemoteFile(
        _LIBSVM_URL + "multiclass/pendigits.t",
        ("5ddb2f034e1c5ca8a47b8a7e78510f8a9d68015cf40a5031534c693fba9773d3",),
        274929,
    ),
    "20newsgroups/20news-bydate.tar.gz": RemoteFile(
        _NEWS_URL,
        ("8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",),
        14_000_000,  # "14 MB", as scikit-learn states it
    ),
}


class DataNotFoundError(FileNotFoundError):
    """A data set's files are in no data folder, and downloading is off."""


def get_data_home(data_home=None):
    """The prepared data folder: ``data_home``, else ``$SKLEARN_SKETCH_DATA``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Explicit folder. ``None`` reads the environment variable
        ``SKLEARN_SKETCH_DATA``.

    Returns
    -------
    data_home : pathlib.Path or None
        The folder, or None when neither is set.

    See Also
    --------
    get_cache_home : The folder the fetchers download into.
    """
    if data_home is None:
        data_home = os.environ.get(DATA_ENV_VARIABLE)
    return None if data_home in (None, "") else Path(data_home)


def get_cache_home(data_home=None):
    """The folder the fetchers download into and cache data sets in.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Explicit folder. ``None`` means the subfolder ``sklearn_sketch`` of
        scikit-learn's data folder (:func:`sklearn.datasets.get_data_home`:
        ``$SCIKIT_LEARN_DATA``, else ``~/scikit_learn_data``).

    Returns
    -------
    data_home : pathlib.Path
        The folder (not created here).

    See Also
    --------
    get_data_home : The prepared data folder of ``$SKLEARN_SKETCH_DATA``.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    return Path(_sklearn_data_home()) / "sklearn_sketch"


def _import_pooch(dataset):
    try:
        import pooch
    except ImportError as exc:
        raise ImportError(
            f"Downloading the {dataset} data set needs the optional dependency "
            "pooch: pip install 'sklearn-sketch[datasets]' (or pip install "
            f"pooch), or point {DATA_ENV_VARIABLE} to a folder that holds it."
        ) from exc
    return pooch


def _download(dataset, key, folder):
    """Download ``REMOTE_FILES[key]`` into ``folder``; check its SHA-256."""
    pooch = _import_pooch(dataset)
    remote = REMOTE_FILES[key]
    target = Path(folder) / Path(key).name
    logger.info(
        "Downloading %s (%.1f MB) for %s", remote.url, remote.n_bytes / 1e6, dataset
    )
    partial = target.with_name(target.name + ".part")
    try:
        pooch.HTTPDownloader(progressbar=False, timeout=60)(
            remote.url, str(partial), None
        )
    except OSError as exc:  # requests' errors are OSErrors too
        raise OSError(f"Downloading {remote.url} for {dataset} failed: {exc}") from exc
    # Checked before the file gets its name, so that no caller can read it
    # unchecked; the enclosing temporary folder removes it either way.
    digest = _sha256(partial)
    if digest not in remote.sha256:
        raise OSError(
            f"The file downloaded from {remote.url} for {dataset} has SHA-256 "
            f"{digest}, not the expected {' or '.join(remote.sha256)}: it is "
            "corrupted or the host changed it. Nothing was cached."
        )
    os.replace(partial, target)
    return target


def _cached(home, key):
    """``home/key`` if an earlier call kept that raw file there, intact."""
    path = home / key
    if path.is_file() and _sha256(path) in REMOTE_FILES[key].sha256:
        return path
    return None


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_files(dataset, files, build, *, data_home, download_if_missing):
    """The folder holding every one of ``files`` for ``dataset``.

    Parameters
    ----------
    dataset : str
        Name used in messages.
    files : list of str
        Paths, relative to a data folder, that the caller reads.
    build : callable ``build(download, workdir) -> {relative path: file}``
        Downloads (through ``download(key)``, which returns the checked file,
        or the copy an earlier call kept in ``data_home``) and converts,
        writing into ``workdir``; returns the finished files.
    data_home, download_if_missing
        As in the fetchers.
    """
    env_home = get_data_home(None)
    home = get_cache_home(data_home)
    for folder in (env_home, home):
        if folder is not None and all((folder / f).is_file() for f in files):
            return folder
    if not download_if_missing:
        looked = (
            f"${DATA_ENV_VARIABLE} ({env_home or 'not set'}) and data_home ({home})"
        )
        raise DataNotFoundError(
            f"The {dataset} data set ({', '.join(files)}) is in neither "
            f"{looked}, and download_if_missing=False."
        )
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=home) as workdir:
        finished = build(
            lambda key: _cached(home, key) or _download(dataset, key, workdir),
            Path(workdir),
        )
        for relative, path in finished.items():
            (home / relative).parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, home / relative)
    return home

"""Where data sets are kept, and how a missing one is downloaded.

A fetcher needs a few files in one data folder, :func:`get_data_home`
(``data_home``, else ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``),
in the layout of the project's prepared data folder (``mnist/``, ``a9a/``,
``20newsgroups/``, ``sector/``, ``pendigits/``). If they are missing, it
downloads the raw files named in :data:`REMOTE_FILES` into a temporary
folder inside that folder, checks each one's SHA-256, converts them and
moves the converted files into place. Whatever fails on the way (network,
checksum, conversion), the temporary folder is removed, so a failed
download leaves nothing behind; the error names each file's URL and the
path to save it at by hand. A folder whose permissions say read-only is
never written.

Every file a fetcher reads is checked before it is read: its SHA-256 must
be one of :func:`expected_sha256` (the published digest of a file kept as
downloaded, or that of the project's prepared data folder) or the digest
recorded when the fetchers converted it. A file that fails is named in a
:class:`CorruptDataError`, with the fix, and is never read. The digests are
computed once per version of a file (``_integrity``).
"""

import contextlib
import logging
import os
import shutil
import tarfile
import tempfile
import warnings
import zipfile
import zlib
from collections import namedtuple
from pathlib import Path

from . import _integrity

logger = logging.getLogger(__name__)

DATA_ENV_VARIABLE = "SKLEARN_SKETCH_DATA"
# The data folder when neither an argument nor the environment names one.
DEFAULT_DATA_HOME = "~/sklearn_sketch_data"

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


#: The SHA-256 of each file of the project's prepared data folder (the
#: layout ``$SKLEARN_SKETCH_DATA`` points to) that a fetcher reads, keyed like
#: :data:`REMOTE_FILES`. The MNIST files there are the original IDX files
#: compressed again (``gzip -9 -n``), and the 20 Newsgroups archive was
#: repacked, so their digests differ from the published ones; both are
#: accepted. The other files are conversions (``.npz``, gzip text).
PREPARED_FILES = {
    "mnist/train-images-idx3-ubyte.gz": (
        "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
    ),
    "mnist/train-labels-idx1-ubyte.gz": (
        "1787548bbe0bff1ec2ecdc0ef292b02df999e2d1a6002d27500982c652b17203",
    ),
    "mnist/t10k-images-idx3-ubyte.gz": (
        "1a1a05eab793c14bb050b398624a11b0ffd1a2953baed553b1b9bd079e2a20be",
    ),
    "mnist/t10k-labels-idx1-ubyte.gz": (
        "b91679a0acfe4ba0e50a2437a903084cba1f5f92592b016a25a7dfd00455798b",
    ),
    "a9a/a9a.npz": (
        "9ec0642c2ef7fae111a1ab5957c53a7c25cc7051c3c3ed1c0946e701df5e7a24",
    ),
    "sector/sector_counts.npz": (
        "f585a9050956109f8f96a9e4081d6ec53f826d3d931d6940e8981a9b931dc461",
    ),
    "sector/sector_tfidf.npz": (
        "cd943201e9159fe71dcb55cf6237afe2c481559946670d476472eacb0efd64f8",
    ),
    "pendigits/pendigits.npz": (
        "8d82b1be944fc7c20572db62c56e26a5778dc77fa9ffe673767501ca49ab3876",
    ),
    "20newsgroups/20news-bydate.tar.gz": (
        "08c85c6c3a3e0e774a73b5f98098205f52854eabd88a68e6778095331fbb204f",
    ),
    "20newsgroups/counts_train.npz": (
        "4274dca42b52e8974c70d09b8d315fe8f2a00dd64f279ae135c8c8a9deee0307",
    ),
    "20newsgroups/counts_test.npz": (
        "f34aa536ef7eba2cb8a21a7b155fd1164750e1c45ef7c29906bf671b12fab3e7",
    ),
    "20newsgroups/labels.npz": (
        "35c51f176b28fb5ddad20d487180d3aea5a5262f9536a7e822346876212d2e15",
    ),
    "20newsgroups/vocabulary.txt.gz": (
        "e8e6738b8d37461f33348a3c27eafe07c7e1b589f404fd7954f520ab08d1ba9b",
    ),
}


class DataNotFoundError(FileNotFoundError):
    """A data set's files are not in the data folder, and none is downloaded.

    Raised with ``download_if_missing=False``, or where the data folder is
    read-only. The message names the folder, the missing files, and each
    file to download by hand: its URL and the path to save it at.
    """


class CorruptDataError(OSError):
    """A data file is truncated, corrupt or not the file a fetcher expects.

    The message names the file, what is wrong with it (its SHA-256 and the
    expected ones, or the error reading it) and the fix. A downloaded file
    whose SHA-256 is not the published one raises it too.
    """


def expected_sha256(key):
    """The SHA-256 digests accepted for the file ``key`` of a data folder.

    Parameters
    ----------
    key : str
        ``"<data set>/<file name>"``, as in :data:`REMOTE_FILES`.

    Returns
    -------
    digests : tuple of str
        Those of :data:`PREPARED_FILES`, then the published ones of a file
        kept as downloaded. A file the fetchers converted themselves is
        also accepted with the digest recorded when they wrote it.
    """
    remote = REMOTE_FILES.get(key)
    return tuple(PREPARED_FILES.get(key, ())) + (remote.sha256 if remote else ())


def get_data_home(data_home=None):
    """The folder the fetchers read data sets from and download them into.

    As :func:`sklearn.datasets.get_data_home`: ``data_home`` if given, else
    the folder named by the environment variable ``SKLEARN_SKETCH_DATA``,
    else ``~/sklearn_sketch_data``. A leading ``~`` is expanded, and the
    folder is created if it does not exist.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder. ``None`` means ``$SKLEARN_SKETCH_DATA``, else
        ``~/sklearn_sketch_data``.

    Returns
    -------
    data_home : pathlib.Path
        The folder, which exists.

    See Also
    --------
    clear_data_home : Delete the data folder and everything in it.
    sklearn.datasets.get_data_home : scikit-learn's data folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sklearn_sketch.datasets import get_data_home
    >>> folder = Path(tempfile.mkdtemp()) / "data"
    >>> get_data_home(folder) == folder, folder.is_dir()
    (True, True)
    """
    if data_home is None:
        data_home = os.environ.get(DATA_ENV_VARIABLE) or DEFAULT_DATA_HOME
    data_home = Path(data_home).expanduser()
    data_home.mkdir(parents=True, exist_ok=True)
    return data_home


def clear_data_home(data_home=None):
    """Delete the data folder, :func:`get_data_home`, and everything in it.

    As :func:`sklearn.datasets.clear_data_home`. A folder whose permissions
    say read-only (a shared, prepared data folder) is never deleted, even by
    a user who could.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder, as in :func:`get_data_home`: ``None`` means
        ``$SKLEARN_SKETCH_DATA``, else ``~/sklearn_sketch_data``.

    Raises
    ------
    PermissionError
        If the folder's permissions say read-only.

    See Also
    --------
    get_data_home : The data folder.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from sklearn_sketch.datasets import clear_data_home, get_data_home
    >>> folder = get_data_home(Path(tempfile.mkdtemp()) / "data")
    >>> _ = (folder / "a9a").mkdir()
    >>> clear_data_home(folder)
    >>> folder.exists()
    False
    """
    data_home = get_data_home(data_home)
    if not _integrity.writable(data_home):
        raise PermissionError(
            f"{data_home} is read-only by its permissions: clear_data_home never "
            "deletes such a folder (it may be a shared, prepared data folder)."
        )
    shutil.rmtree(data_home)


def by_hand(sources, home):
    """How to download ``sources`` (keys of :data:`REMOTE_FILES`) by hand."""
    steps = "; ".join(
        f"download {REMOTE_FILES[key].url} and save it as {home / key}"
        for key in sources
    )
    return (
        f"To get it by hand: {steps}. The next call then checks "
        f"{'their' if len(sources) > 1 else 'its'} SHA-256 and uses "
        f"{'them' if len(sources) > 1 else 'it'} instead of downloading."
    )


def _import_pooch(dataset, hint):
    try:
        import pooch
    except ImportError as exc:
        raise ImportError(
            f"Downloading the {dataset} data set needs the optional dependency "
            "pooch: pip install 'sklearn-sketch[datasets]' (or pip install "
            f"pooch). {hint}"
        ) from exc
    return pooch


def _download(dataset, key, folder, hint):
    """Download ``REMOTE_FILES[key]`` into ``folder``; check its SHA-256.

    ``hint`` says how to get the data set by hand; every error carries it.
    """
    pooch = _import_pooch(dataset, hint)
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
        raise OSError(
            f"Downloading {remote.url} for {dataset} failed: {exc}. {hint}"
        ) from exc
    # Checked before the file gets its name, so that no caller can read it
    # unchecked; the enclosing temporary folder removes it either way.
    digest = _integrity.sha256(partial)
    if digest not in remote.sha256:
        raise CorruptDataError(
            f"The file downloaded from {remote.url} for {dataset} has SHA-256 "
            f"{digest}, not the expected {' or '.join(remote.sha256)}: it is "
            f"corrupted or the host changed it. Nothing was cached. {hint}"
        )
    os.replace(partial, target)
    return target


def _record_folders(home):
    """Where digests are recorded: the data folder, else the default one."""
    folders = [Path(home), Path(DEFAULT_DATA_HOME).expanduser()]
    return folders[:1] if folders[0] == folders[1] else folders


def _digest_problem(path, key, records):
    """What is wrong with the SHA-256 of ``path``, or None if it is accepted."""
    found, built = _integrity.file_digest(path, records)
    expected = tuple(dict.fromkeys(((built,) if built else ()) + expected_sha256(key)))
    if found in expected:
        return None
    expected = " or ".join(expected) or "none"
    return f"its SHA-256 is {found}, expected {expected}, so it was not read"


def _fix(path):
    """How to repair ``path``: a read-only folder is never written."""
    folder = Path(path).parent
    if not _integrity.writable(folder):
        return (
            f"Its folder, {folder}, is read-only by its permissions and the "
            "fetchers never write it: replace the file with an intact copy, "
            "or delete it, or pass another data_home."
        )
    return (
        "Delete it, or call again with download_if_missing=True: the data set "
        "is then downloaded again in its place."
    )


def corrupt(dataset, path, problem):
    """The :class:`CorruptDataError` naming ``path``, its ``problem`` and the fix."""
    return CorruptDataError(
        f"{path}, a file of the {dataset} data set, is truncated, corrupt or "
        f"another file: {problem}. {_fix(path)}"
    )


# What reading a damaged file raises: numpy (ValueError, EOFError, KeyError),
# zipfile, gzip and bz2 (OSError, EOFError), zlib and tarfile. A missing or
# forbidden file is not a damaged one: those errors pass unchanged.
_READ_ERRORS = (
    ValueError,
    KeyError,
    IndexError,
    EOFError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
    tarfile.TarError,
)


@contextlib.contextmanager
def reading(dataset, path):
    """Turn any error reading the checked file ``path`` into a CorruptDataError.

    A file whose SHA-256 was accepted reads without error; this names the
    file where it does not (a wrong digest in the tables, a reader's bug).
    """
    try:
        yield
    except (CorruptDataError, FileNotFoundError, PermissionError):
        raise
    except _READ_ERRORS as exc:
        problem = f"reading it failed ({type(exc).__name__}: {exc})"
        raise corrupt(dataset, path, problem) from exc


def _first_corrupt(folder, files, records):
    """``(path, problem)`` of the first of ``files`` refused, else None."""
    for key in files:
        problem = _digest_problem(folder / key, key, records)
        if problem is not None:
            return folder / key, problem
    return None


def _cached(dataset, home, key, records):
    """``home/key`` if an earlier call kept that raw file there, intact."""
    path = home / key
    if not path.is_file():
        return None
    problem = _digest_problem(path, key, records)
    if problem is None:
        return path
    warnings.warn(
        f"{path}, kept by an earlier download of the {dataset} data set, is "
        f"truncated, corrupt or another file: {problem}. Downloading it again.",
        stacklevel=4,
    )
    return None


def _download_and_build(dataset, build, home, records, hint):
    """Download, convert, and move the finished files into ``home``."""
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=home) as workdir:
        finished = build(
            lambda key: _cached(dataset, home, key, records)
            or _download(dataset, key, workdir, hint),
            Path(workdir),
        )
        for relative, path in finished.items():
            target = home / relative
            digest = _integrity.sha256(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            # A conversion's bytes vary with library versions: its own digest
            # is the one its next reads expect.
            _integrity.record_built(target, digest, records)


def fetch_files(dataset, files, sources, build, *, data_home, download_if_missing):
    """The data folder, holding every one of ``files`` for ``dataset``, each checked.

    Parameters
    ----------
    dataset : str
        Name used in messages.
    files : list of str
        Paths, relative to a data folder, that the caller reads.
    sources : list of str
        The keys of :data:`REMOTE_FILES` that ``build`` converts into
        ``files``. Where all are in the data folder (saved there by hand),
        they are converted without downloading, whatever
        ``download_if_missing``.
    build : callable ``build(download, workdir) -> {relative path: file}``
        Downloads (through ``download(key)``, which returns the checked file,
        or the copy kept in the data folder) and converts, writing into
        ``workdir``; returns the finished files.
    data_home, download_if_missing
        As in the fetchers.

    Raises
    ------
    CorruptDataError
        If a file has a wrong SHA-256, and downloading is off, fails, or
        would write a read-only folder.
    DataNotFoundError
        If the files are missing, and downloading is off or the folder is
        read-only.
    """
    home = get_data_home(data_home)
    records = _record_folders(home)
    refused = None
    if all((home / f).is_file() for f in files):
        refused = _first_corrupt(home, files, records)
        if refused is None:
            return home
    hint = by_hand(sources, home)
    writable = _integrity.writable(home)
    if refused is not None and not (download_if_missing and writable):
        raise corrupt(dataset, *refused)
    saved = refused is None and all((home / k).is_file() for k in sources)
    if not writable or not (download_if_missing or saved):
        missing = ", ".join(f for f in files if not (home / f).is_file())
        reason = "download_if_missing=False"
        if not writable:
            reason = "the folder is read-only by its permissions: nothing is written"
        raise DataNotFoundError(
            f"The {dataset} data set is not in {home} (missing: {missing}), "
            f"and {reason}. {hint}"
        )
    if not download_if_missing:
        # Raw files saved by hand are converted, but never downloaded again.
        refused = _first_corrupt(home, sources, records)
        if refused is not None:
            raise corrupt(dataset, *refused)
    _rebuild(dataset, build, home, records, refused, hint)
    return home


def _rebuild(dataset, build, home, records, refused, hint):
    """Download and convert; ``refused`` is the damaged file it replaces."""
    if refused is None:
        _download_and_build(dataset, build, home, records, hint)
        return
    path, problem = refused
    warnings.warn(
        f"{path}, a file of the {dataset} data set, is truncated, corrupt or "
        f"another file: {problem}. Downloading the data set again to replace it.",
        stacklevel=4,
    )
    try:
        _download_and_build(dataset, build, home, records, hint)
    except Exception as exc:
        problem += f"; downloading it again failed ({exc})"
        raise corrupt(dataset, path, problem) from exc

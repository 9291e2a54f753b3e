"""The SHA-256 of a data file, read once per version of the file.

The fetchers check the digest of every file they read, at every call. So
that a second call does not read the whole file again, the digest of each
file is kept with the signature of the version it was computed on: the
file's size, modification and change times (in nanoseconds) and inode. A
file that is modified, replaced or touched gets another signature and is
hashed again. The digests are kept in this process and in small JSON
records, one a file, in the folder ``.sha256`` of the first writable folder
of a list (the cache folder, then the default one): another process reads
the record instead of the file. Where no folder can be written, the digests
are kept in this process only; a folder whose permissions say read-only is
never written, even by a user who could (root), since it may be a shared,
prepared data folder.

The digest of a file modified less than two seconds before it was hashed
is not kept: file systems stamp times with a coarse clock (two seconds on
FAT), so a second change within the same tick could keep the signature.

A record also keeps, as ``built``, the digest of a file that the fetchers
wrote themselves (a converted download): converting again gives other
bytes (time stamps, compression), so that digest is the one to expect.
"""

import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path

RECORDS = ".sha256"
_RECENT_NS = 2 * 10**9

# Resolved path -> (signature, digest, built digest or None).
_DIGESTS = {}
# Resolved path -> built digest, for a file whose record could not be written.
_BUILT = {}


def sha256(path):
    """The SHA-256 of a file's bytes, as 64 hexadecimal digits."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _signature(path):
    info = os.stat(path)
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _record_path(folder, path):
    name = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()
    return Path(folder) / RECORDS / f"{name[:32]}.json"


def _is_digest(value):
    return (
        isinstance(value, str)
        and len(value) == 64
        and all(c in "0123456789abcdef" for c in value)
    )


def _read_record(folders, path):
    """The first record of ``path`` in ``folders`` (an unreadable one is none)."""
    for folder in folders:
        try:
            with open(_record_path(folder, path), encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("path") == str(path):
            return record
    return {}


def _writable(folder):
    return bool(os.stat(folder).st_mode & stat.S_IWUSR) and os.access(folder, os.W_OK)


def writable(folder):
    """Whether ``folder`` may be written: False where permissions say read-only.

    A missing folder is judged by its nearest existing parent, in which it
    would be created.
    """
    existing = Path(folder)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    return _writable(existing)


def _may_write(folder):
    """Create ``folder`` if missing; False where permissions say read-only."""
    if not writable(folder):
        return False
    folder.mkdir(parents=True, exist_ok=True)
    return _writable(folder)


def _write_record(folders, path, record):
    """Write the record into the first folder that takes it; else nowhere."""
    for folder in folders:
        try:
            if not _may_write(Path(folder)):
                continue
            target = _record_path(folder, path)
            target.parent.mkdir(exist_ok=True)
            # Replaced whole, so that a reader never sees half a record.
            fd, partial = tempfile.mkstemp(dir=target.parent, suffix=".part")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(record, f)
                os.replace(partial, target)
            except BaseException:
                Path(partial).unlink(missing_ok=True)
                raise
            return
        except OSError:
            continue


def file_digest(path, folders):
    """The SHA-256 of ``path``, and the digest it had when the fetchers built it.

    Parameters
    ----------
    path : path-like
        The file.
    folders : list of path-like
        Where records are looked for and written, first writable first.

    Returns
    -------
    digest : str
        The file's SHA-256, read from a record of this version of the file,
        else computed (and recorded).
    built : str or None
        The digest recorded when the fetchers wrote the file, if they did.
    """
    path = Path(os.path.realpath(path))
    signature = _signature(path)
    cached = _DIGESTS.get(path)
    if cached is not None and cached[0] == signature:
        return cached[1], cached[2]
    record = _read_record(folders, path)
    built = record.get("built") if _is_digest(record.get("built")) else None
    built = built or _BUILT.get(path)
    digest = record.get("sha256")
    if record.get("signature") == signature and _is_digest(digest):
        _DIGESTS[path] = (signature, digest, built)
        return digest, built
    start = time.time_ns()
    digest = sha256(path)
    # Kept only if the file did not change while it was read, nor just before.
    if _signature(path) == signature and signature[1] < start - _RECENT_NS:
        record = dict(record, path=str(path), signature=signature, sha256=digest)
        _write_record(folders, path, record)
        _DIGESTS[path] = (signature, digest, built)
    return digest, built


def record_built(path, digest, folders):
    """Record that the fetchers wrote ``path``, whose SHA-256 is ``digest``."""
    path = Path(os.path.realpath(path))
    # Just written: its signature may not last (see above); the next read
    # hashes it again, against this digest.
    record = {"path": str(path), "signature": None, "sha256": None, "built": digest}
    _write_record(folders, path, record)
    _BUILT[path] = digest
    _DIGESTS.pop(path, None)


def forget():
    """Empty this process's digests (the records on disk stay)."""
    _DIGESTS.clear()
    _BUILT.clear()

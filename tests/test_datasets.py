"""The data set fetchers: lookup order, download, checksum, cache, conversion.

No test reaches the internet: a local HTTP server on 127.0.0.1 serves small
files made here in each raw format, and the fetchers' table of remote files
(``REMOTE_FILES``) is pointed at it with the SHA-256 of those files.
"""

import gzip
import hashlib
import io
import os
import sys
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketch import datasets
from sklearn_sketch.datasets import _base, _integrity, _readers


class _Server:
    """Serves ``files`` (path -> bytes); paths in ``cut`` stop mid-body."""

    def __init__(self):
        self.files, self.cut, self.requests = {}, set(), []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.path in server.cut:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, args=(0.05,), daemon=True
        )
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture(autouse=True)
def user_home(tmp_path, monkeypatch):
    """A home folder of its own: the default data folder is never the real one."""
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(datasets.DATA_ENV_VARIABLE, raising=False)


@pytest.fixture
def server(monkeypatch, no_env):
    """The local server; ``serve(key, body)`` points ``REMOTE_FILES[key]`` at it."""
    pytest.importorskip("pooch")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    srv = _Server()

    def serve(key, body, *, sha256=None, cut=False):
        path = "/" + key
        srv.files[path] = body
        if cut:
            srv.cut.add(path)
        digest = sha256 or hashlib.sha256(body).hexdigest()
        remote = _base.RemoteFile(srv.url(path), (digest,), len(body))
        monkeypatch.setitem(_base.REMOTE_FILES, key, remote)

    srv.serve = serve
    yield srv
    srv.close()


def _files_under(folder):
    """The data files under ``folder``, leaving out the records of digests."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).parts[0] != _integrity.RECORDS
    )


def _libsvm_text(X, y):
    """LIBSVM text of a dense matrix (1-based features, zeros left out)."""
    lines = []
    for row, label in zip(X, y):
        pairs = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v != 0)
        lines.append(f"{label:g} {pairs}")
    return ("\n".join(lines) + "\n").encode()


# Small a9a-like files: 123 binary features, labels -1/+1.
_A9A_X = {
    "train": np.zeros((5, 123), dtype=np.float32),
    "test": np.zeros((3, 123), dtype=np.float32),
}
_A9A_X["train"][[0, 0, 1, 2, 3, 4, 4], [0, 122, 5, 7, 60, 2, 99]] = 1
_A9A_X["test"][[0, 1, 2], [10, 121, 3]] = 1
_A9A_Y = {"train": np.array([1, -1, -1, 1, -1]), "test": np.array([-1, 1, 1])}


def _serve_a9a(server, **test_file_options):
    server.serve("a9a/a9a", _libsvm_text(_A9A_X["train"], _A9A_Y["train"]))
    server.serve(
        "a9a/a9a.t", _libsvm_text(_A9A_X["test"], _A9A_Y["test"]), **test_file_options
    )


def test_download_converts_then_the_second_call_reads_the_cache(server, tmp_path):
    _serve_a9a(server)
    X, y = datasets.fetch_a9a(tmp_path, subset="test", return_X_y=True)
    assert sp.issparse(X) and X.dtype == np.float32 and y.dtype == np.int8
    np.testing.assert_array_equal(X.toarray(), _A9A_X["test"])
    np.testing.assert_array_equal(y, _A9A_Y["test"])
    assert sorted(server.requests) == ["/a9a/a9a", "/a9a/a9a.t"]
    # Only the converted bundle is kept: no raw file, no temporary folder.
    assert _files_under(tmp_path) == ["a9a/a9a.npz"]

    bunch = datasets.fetch_a9a(tmp_path, subset="train")
    assert len(server.requests) == 2
    np.testing.assert_array_equal(bunch.data.toarray(), _A9A_X["train"])
    np.testing.assert_array_equal(bunch.target, _A9A_Y["train"])


def test_checksum_mismatch_raises_and_caches_nothing(server, tmp_path):
    _serve_a9a(server, sha256="0" * 64)
    with pytest.raises(
        datasets.CorruptDataError,
        match=r"a9a.*SHA-256 [0-9a-f]{64}, not the expected 0{64}",
    ):
        datasets.fetch_a9a(tmp_path)
    assert _files_under(tmp_path) == []
    with pytest.raises(datasets.DataNotFoundError):
        datasets.fetch_a9a(tmp_path, download_if_missing=False)


def _age(path):
    """Date a file a day back, as if written by an earlier session."""
    past = path.stat().st_mtime_ns - 86_400 * 10**9
    os.utime(path, ns=(past, past))


def test_a_conversion_is_checked_against_the_digest_it_was_written_with(
    server, tmp_path, monkeypatch
):
    _serve_a9a(server)
    datasets.fetch_a9a(tmp_path)
    bundle = tmp_path / "a9a" / "a9a.npz"
    written = _integrity.sha256(bundle)
    assert written not in _base.expected_sha256("a9a/a9a.npz")
    _age(bundle)
    hashed, sha256 = [], _integrity.sha256
    # Another process: the record written with the bundle is what it expects.
    _integrity.forget()
    with monkeypatch.context() as patch:
        patch.setattr(_integrity, "sha256", lambda p: hashed.append(p) or sha256(p))
        for _ in range(2):
            X, _ = datasets.fetch_a9a(
                tmp_path, subset="test", download_if_missing=False, return_X_y=True
            )
            np.testing.assert_array_equal(X.toarray(), _A9A_X["test"])
    assert hashed == [bundle]
    bundle.write_bytes(bundle.read_bytes()[:-10])
    with pytest.raises(datasets.CorruptDataError) as error:
        datasets.fetch_a9a(tmp_path, download_if_missing=False)
    message = str(error.value)
    assert str(bundle) in message and f"expected {written}" in message
    assert "call again with download_if_missing=True" in message


def test_a_damaged_cache_is_downloaded_again_when_downloading_is_on(server, tmp_path):
    _serve_a9a(server)
    datasets.fetch_a9a(tmp_path)
    bundle = tmp_path / "a9a" / "a9a.npz"
    bundle.write_bytes(b"")
    with pytest.warns(UserWarning, match=f"{bundle}.*SHA-256.*Downloading the data"):
        X, y = datasets.fetch_a9a(tmp_path, subset="test", return_X_y=True)
    np.testing.assert_array_equal(X.toarray(), _A9A_X["test"])
    np.testing.assert_array_equal(y, _A9A_Y["test"])
    assert len(server.requests) == 4
    assert _files_under(tmp_path) == ["a9a/a9a.npz"]


def test_a_damaged_cache_that_cannot_be_downloaded_again_is_named(
    server, tmp_path, monkeypatch
):
    _serve_a9a(server)
    datasets.fetch_a9a(tmp_path)
    bundle = tmp_path / "a9a" / "a9a.npz"
    bundle.write_bytes(np.random.default_rng(0).bytes(100))
    monkeypatch.setitem(sys.modules, "pooch", None)
    with pytest.warns(UserWarning), pytest.raises(datasets.CorruptDataError) as error:
        datasets.fetch_a9a(tmp_path)
    message = str(error.value)
    assert str(bundle) in message and "downloading it again failed" in message
    assert "pooch" in message and "Delete it" in message
    assert isinstance(error.value.__cause__, ImportError)


def test_a_damaged_archive_kept_by_a_download_is_fetched_again(server, tmp_path):
    archive = _news_archive()
    server.serve("20newsgroups/20news-bydate.tar.gz", archive)
    path = datasets.fetch_20newsgroups_archive(tmp_path)
    path.write_bytes(archive[: len(archive) // 2])
    with pytest.warns(UserWarning, match=f"{path}.*SHA-256.*Downloading it again"):
        news = datasets.fetch_20newsgroups_counts(tmp_path)
    assert news.data.shape[0] == 3 and path.read_bytes() == archive
    assert len(server.requests) == 2


def test_interrupted_download_leaves_no_partial_file(server, tmp_path):
    _serve_a9a(server, cut=True)
    with pytest.raises(
        OSError, match=r"Downloading http://127\.0\.0\.1:\d+/a9a/a9a\.t"
    ) as error:
        datasets.fetch_a9a(tmp_path)
    _names_the_manual_route(str(error.value), tmp_path, ["a9a/a9a", "a9a/a9a.t"])
    assert "/a9a/a9a.t" in server.requests
    assert _files_under(tmp_path) == []


def _names_the_manual_route(message, home, keys):
    """``message`` says, for each raw file, its URL and where to save it."""
    for key in keys:
        url, path = _base.REMOTE_FILES[key].url, home / key
        assert f"download {url} and save it as {path}" in message, (key, message)


def test_no_download_names_the_folder_the_files_and_the_manual_route(
    no_env, tmp_path
):
    home = tmp_path / "data"
    with pytest.raises(datasets.DataNotFoundError) as error:
        datasets.fetch_sector(home, values="tfidf", download_if_missing=False)
    message = str(error.value)
    assert "sector (tfidf)" in message and "sector/sector_tfidf.npz" in message
    assert f"is not in {home} (missing: " in message
    assert "download_if_missing=False" in message and "neither" not in message
    sources = ["sector/sector.scale.bz2", "sector/sector.t.scale.bz2"]
    _names_the_manual_route(message, home, sources)
    # As scikit-learn's fetchers: the data folder is created on demand.
    assert home.is_dir() and _files_under(home) == []
    with pytest.raises(datasets.DataNotFoundError) as error:
        datasets.fetch_mnist(home, subset="test", download_if_missing=False)
    _names_the_manual_route(
        str(error.value),
        home,
        ["mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"],
    )


def _failing_downloader(monkeypatch):
    """pooch's downloader, replaced by one that fails as a network error does."""
    pooch = pytest.importorskip("pooch")
    requested = []

    class Failing:
        def __init__(self, **options):
            pass

        def __call__(self, url, output_file, pooch_instance):
            requested.append(url)
            raise ConnectionError(f"simulated failure of {url}")

    monkeypatch.setattr(pooch, "HTTPDownloader", Failing)
    return requested


@pytest.mark.parametrize(
    "fetch, options, sources",
    [
        (datasets.fetch_a9a, {}, ["a9a/a9a", "a9a/a9a.t"]),
        (
            datasets.fetch_mnist,
            {"subset": "train"},
            ["mnist/train-images-idx3-ubyte.gz", "mnist/train-labels-idx1-ubyte.gz"],
        ),
        (
            datasets.fetch_sector,
            {"values": "counts"},
            ["sector/sector.bz2", "sector/sector.t.bz2"],
        ),
        (datasets.fetch_20newsgroups_counts, {}, ["20newsgroups/20news-bydate.tar.gz"]),
        (
            datasets.fetch_pendigits,
            {"subset": "test"},
            ["pendigits/pendigits", "pendigits/pendigits.t"],
        ),
    ],
)
def test_a_failed_download_names_the_url_and_where_to_save_it(
    no_env, tmp_path, monkeypatch, fetch, options, sources
):
    requested = _failing_downloader(monkeypatch)
    home = tmp_path / "data"
    with pytest.raises(OSError) as error:
        fetch(home, **options)
    message = str(error.value)
    assert requested == [_base.REMOTE_FILES[sources[0]].url]
    assert f"Downloading {requested[0]}" in message and "simulated failure" in message
    _names_the_manual_route(message, home, sources)
    assert _files_under(home) == []


def test_files_saved_by_hand_where_the_message_says_are_used_offline(
    server, tmp_path, monkeypatch
):
    # The rule behind the message: saving each file at the path it names is
    # enough, with downloading off, and nothing is requested.
    home = tmp_path / "data"
    _serve_a9a(server)
    with pytest.raises(datasets.DataNotFoundError) as error:
        datasets.fetch_a9a(home, download_if_missing=False)
    message = str(error.value)
    for key in ("a9a/a9a", "a9a/a9a.t"):
        url = _base.REMOTE_FILES[key].url
        assert f"download {url} and save it as {home / key}" in message
        (home / key).parent.mkdir(parents=True, exist_ok=True)
        (home / key).write_bytes(server.files["/" + key])
    X, y = datasets.fetch_a9a(
        home, subset="test", download_if_missing=False, return_X_y=True
    )
    np.testing.assert_array_equal(X.toarray(), _A9A_X["test"])
    np.testing.assert_array_equal(y, _A9A_Y["test"])
    assert server.requests == []
    # A file saved by hand that is not the published one is named, not used.
    (home / "a9a/a9a.npz").unlink()
    (home / "a9a/a9a").write_bytes(b"1 3:1\n")
    with pytest.raises(datasets.CorruptDataError, match=f"{home / 'a9a/a9a'}"):
        datasets.fetch_a9a(home, download_if_missing=False)
    assert server.requests == []


def _bundle(folder, value, monkeypatch):
    """An a9a bundle placed by hand, its SHA-256 among the accepted ones."""
    path = folder / "a9a" / "a9a.npz"
    path.parent.mkdir(parents=True)
    X = sp.csr_matrix(np.full((2, 123), value, dtype=np.float32))
    _readers.save_csr_bundle(
        path, {s: (X, np.array([1, -1], np.int8)) for s in ("train", "test")}
    )
    known = _base.PREPARED_FILES["a9a/a9a.npz"] + (_integrity.sha256(path),)
    monkeypatch.setitem(_base.PREPARED_FILES, "a9a/a9a.npz", known)


def test_get_data_home_argument_then_environment_then_default(
    tmp_path, monkeypatch, user_home
):
    monkeypatch.delenv(datasets.DATA_ENV_VARIABLE, raising=False)
    default = user_home / "sklearn_sketch_data"
    assert not default.exists()
    assert datasets.get_data_home() == default and default.is_dir()
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, "")  # set but empty: unset
    assert datasets.get_data_home() == default
    env_folder = tmp_path / "env" / "nested"
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(env_folder))
    assert datasets.get_data_home() == env_folder and env_folder.is_dir()
    explicit = tmp_path / "explicit"
    for argument in (explicit, str(explicit)):
        assert datasets.get_data_home(argument) == explicit and explicit.is_dir()
    # "~" is the user's home, in the argument and in the environment.
    assert datasets.get_data_home("~/mine") == user_home / "mine"
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, "~/from_env")
    assert datasets.get_data_home() == user_home / "from_env"
    assert (user_home / "from_env").is_dir()


def test_fetchers_read_the_folder_get_data_home_gives(
    no_env, tmp_path, monkeypatch, user_home
):
    env_folder, explicit = tmp_path / "env", tmp_path / "explicit"
    default = user_home / "sklearn_sketch_data"
    for folder, value in ((env_folder, 2.0), (explicit, 3.0), (default, 4.0)):
        _bundle(folder, value, monkeypatch)
    options = {"download_if_missing": False, "return_X_y": True}
    X, _ = datasets.fetch_a9a(**options)
    assert np.all(X.toarray() == 4.0)
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(env_folder))
    X, _ = datasets.fetch_a9a(**options)
    assert np.all(X.toarray() == 2.0)
    # The argument wins over the environment, as in scikit-learn.
    X, _ = datasets.fetch_a9a(explicit, **options)
    assert np.all(X.toarray() == 3.0)


def _clear_and_check(folder, argument, monkeypatch):
    """clear_data_home(argument) deletes ``folder`` and all in it, nothing else."""
    _bundle(folder, 1.0, monkeypatch)
    (folder / _integrity.RECORDS).mkdir()
    beside = folder.parent / f"{folder.name}-beside"
    beside.mkdir()
    datasets.clear_data_home(argument)
    assert not folder.exists() and beside.is_dir()
    # The next get_data_home creates it again, empty.
    assert datasets.get_data_home(argument) == folder and not any(folder.iterdir())


def test_clear_data_home_deletes_the_folder_get_data_home_names(
    tmp_path, monkeypatch, user_home
):
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(tmp_path / "env"))
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "kept").write_bytes(b"")
    _clear_and_check(tmp_path / "explicit", tmp_path / "explicit", monkeypatch)
    assert (tmp_path / "env" / "kept").is_file()
    _clear_and_check(tmp_path / "env", None, monkeypatch)
    monkeypatch.delenv(datasets.DATA_ENV_VARIABLE)
    _clear_and_check(user_home / "sklearn_sketch_data", None, monkeypatch)


def test_clear_data_home_never_deletes_a_read_only_folder(tmp_path, monkeypatch):
    folder = tmp_path / "prepared"
    _bundle(folder, 1.0, monkeypatch)
    folder.chmod(0o555)
    try:
        with pytest.raises(PermissionError, match=f"{folder} is read-only"):
            datasets.clear_data_home(folder)
        assert (folder / "a9a" / "a9a.npz").is_file()
    finally:
        folder.chmod(0o755)


def test_missing_pooch_names_the_extra_only_when_downloading(
    no_env, tmp_path, monkeypatch
):
    _bundle(tmp_path, 1.0, monkeypatch)
    monkeypatch.setitem(sys.modules, "pooch", None)
    datasets.fetch_a9a(tmp_path)  # cached: pooch is not needed
    with pytest.raises(ImportError, match=r"pendigits.*sklearn-sketch\[datasets\]"):
        datasets.fetch_pendigits(tmp_path)
    assert _files_under(tmp_path) == ["a9a/a9a.npz"]


def _idx(array):
    header = bytes([0, 0, 0x08, array.ndim]) + np.asarray(array.shape, ">u4").tobytes()
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def test_mnist_downloads_only_the_subset_and_scales_pixels(server, tmp_path):
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, size=(4, 28, 28), dtype=np.uint8)
    labels = np.array([7, 0, 9, 3], dtype=np.uint8)
    server.serve("mnist/t10k-images-idx3-ubyte.gz", _idx(images))
    server.serve("mnist/t10k-labels-idx1-ubyte.gz", _idx(labels))
    mnist = datasets.fetch_mnist(tmp_path, subset="test")
    assert mnist.data.dtype == np.float32 and mnist.data.shape == (4, 784)
    np.testing.assert_array_equal(mnist.data * np.float32(255), images.reshape(4, -1))
    np.testing.assert_array_equal(mnist.target, labels)
    assert len(server.requests) == 2
    X, _ = datasets.fetch_mnist(tmp_path, subset="test", return_X_y=True)
    np.testing.assert_array_equal(X, mnist.data)
    assert len(server.requests) == 2


def test_idx_header_must_match_the_body(tmp_path):
    path = tmp_path / "bad.gz"
    path.write_bytes(
        gzip.compress(bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + b"\0" * 5)
    )
    with pytest.raises(ValueError, match="header says shape"):
        _readers.read_idx(path)
    path.write_bytes(gzip.compress(b"PK\x03\x04 not idx"))
    with pytest.raises(ValueError, match="not an IDX file"):
        _readers.read_idx(path)


def _sector_text(X, y):
    """Rennie's format: ``<doc> <label> (<feature> <count>)*``, 0-based."""
    lines = []
    for i, (row, label) in enumerate(zip(X, y)):
        pairs = "  ".join(f"{j} {c}" for j, c in enumerate(row) if c)
        lines.append(f"{i} {label} {pairs}".rstrip() + " ")
    return "\n".join(lines).encode()


def test_sector_counts_and_tfidf_conversions(server, tmp_path):
    import bz2

    rng = np.random.default_rng(5)
    counts = {
        s: rng.poisson(0.002, size=(n, 55197)) for s, n in (("train", 4), ("test", 3))
    }
    counts["train"][2] = 0  # a document without terms
    counts["test"][0, 55196] = 40  # the last feature id
    labels = {"train": np.array([0, 104, 7, 7]), "test": np.array([3, 0, 104])}
    server.serve(
        "sector/sector.bz2",
        bz2.compress(_sector_text(counts["train"], labels["train"])),
    )
    server.serve(
        "sector/sector.t.bz2",
        bz2.compress(_sector_text(counts["test"], labels["test"])),
    )
    tfidf = {s: (c / 7.0).astype(np.float32) for s, c in counts.items()}
    for key, split in (("sector.scale.bz2", "train"), ("sector.t.scale.bz2", "test")):
        text = _libsvm_text(tfidf[split], labels[split] + 1)  # LIBSVM labels are 1..105
        server.serve(f"sector/{key}", bz2.compress(text))
    for split in ("train", "test"):
        X, y = datasets.fetch_sector(tmp_path, subset=split, return_X_y=True)
        assert X.dtype == np.int32 and X.shape == (len(labels[split]), 55197)
        np.testing.assert_array_equal(X.toarray(), counts[split])
        np.testing.assert_array_equal(y, labels[split])
        X, y = datasets.fetch_sector(
            tmp_path, subset=split, values="tfidf", return_X_y=True
        )
        assert X.dtype == np.float32
        np.testing.assert_allclose(X.toarray(), tfidf[split], rtol=1e-5)
        np.testing.assert_array_equal(y, labels[split])
    assert len(server.requests) == 4


def test_sector_lines_must_pair_features_with_counts(tmp_path):
    path = tmp_path / "sector"
    path.write_bytes(b"0 3 10 2 11\n")
    with pytest.raises(ValueError, match="not '<doc> <label>"):
        _readers.parse_sector_counts(path, 55197)


def test_pendigits_conversion(server, tmp_path):
    rng = np.random.default_rng(11)
    X = {s: rng.integers(0, 101, size=(n, 16)) for s, n in (("train", 6), ("test", 2))}
    X["train"][1] = 0
    y = {"train": np.arange(6) % 10, "test": np.array([9, 0])}
    server.serve("pendigits/pendigits", _libsvm_text(X["train"], y["train"]))
    server.serve("pendigits/pendigits.t", _libsvm_text(X["test"], y["test"]))
    bunch = datasets.fetch_pendigits(tmp_path, subset="test")
    assert bunch.data.dtype == np.float64 and bunch.target.dtype == np.uint8
    np.testing.assert_array_equal(bunch.data, X["test"])
    np.testing.assert_array_equal(bunch.target, y["test"])
    Xtr, ytr = datasets.fetch_pendigits(tmp_path, return_X_y=True)
    np.testing.assert_array_equal(Xtr, X["train"])
    np.testing.assert_array_equal(ytr, y["train"])
    assert _files_under(tmp_path) == ["pendigits/pendigits.npz"]


_NEWS = {
    "20news-bydate-train/sci.space/61": "Orbit the Moon, orbit the MOON.",
    "20news-bydate-train/sci.space/7": "Launch window: Ariane.",
    "20news-bydate-train/alt.atheism/5": "Caf\xe9 talk, no orbit.",
    "20news-bydate-test/alt.atheism/9": "orbit launch zebra",
    "20news-bydate-test/sci.space/3": "",
}


def _news_archive():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in _NEWS.items():
            body = text.encode("latin-1")
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def test_20newsgroups_counts_follow_countvectorizer_fit_on_train(server, tmp_path):
    archive = _news_archive()
    server.serve("20newsgroups/20news-bydate.tar.gz", archive)
    assert datasets.fetch_20newsgroups_archive(tmp_path).read_bytes() == archive
    # The counts are made from the archive cached above: no second request.
    news = datasets.fetch_20newsgroups_counts(tmp_path)
    # Rows in sorted group then file name order ("61" < "7" as strings).
    np.testing.assert_array_equal(
        news.filenames, ["alt.atheism/5", "sci.space/61", "sci.space/7"]
    )
    np.testing.assert_array_equal(news.target_names, ["alt.atheism", "sci.space"])
    np.testing.assert_array_equal(news.target, [0, 1, 1])
    vocabulary = list(news.feature_names)
    assert vocabulary == sorted(
        {"orbit", "the", "moon", "launch", "window", "ariane", "caf\xe9", "talk", "no"}
    )
    assert news.data.dtype == np.int32
    row = dict(zip(vocabulary, news.data[1].toarray().ravel()))
    assert (
        row["orbit"] == 2
        and row["moon"] == 2
        and row["the"] == 2
        and row["launch"] == 0
    )
    X_test, y_test = datasets.fetch_20newsgroups_counts(
        tmp_path, subset="test", return_X_y=True
    )
    np.testing.assert_array_equal(y_test, [0, 1])
    # "zebra" is not in the training vocabulary; the empty message has no terms.
    assert X_test[0].sum() == 2 and X_test[1].nnz == 0
    terms = datasets.fetch_20newsgroups_counts(tmp_path).feature_names
    assert list(terms) == vocabulary
    assert len(server.requests) == 1


def test_options_are_checked(no_env, tmp_path):
    with pytest.raises(ValueError, match="subset must be one of"):
        datasets.fetch_mnist(tmp_path, subset="validation")
    with pytest.raises(ValueError, match="values must be one of"):
        datasets.fetch_sector(tmp_path, values="binary")


def test_every_remote_file_has_a_sha256_and_a_size():
    for key, remote in _base.REMOTE_FILES.items():
        assert remote.url.startswith("https://"), key
        assert remote.sha256 and all(
            len(d) == 64 and int(d, 16) >= 0 for d in remote.sha256
        )
        assert remote.n_bytes > 0

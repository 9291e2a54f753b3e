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
    ):
        datasets.fetch_a9a(tmp_path)
    assert "/a9a/a9a.t" in server.requests
    assert _files_under(tmp_path) == []


def test_no_download_names_the_data_set_and_where_it_looked(
    no_env, tmp_path, monkeypatch
):
    home = tmp_path / "cache"
    with pytest.raises(datasets.DataNotFoundError) as error:
        datasets.fetch_sector(home, values="tfidf", download_if_missing=False)
    message = str(error.value)
    assert "sector (tfidf)" in message and "sector/sector_tfidf.npz" in message
    assert (
        f"${datasets.DATA_ENV_VARIABLE} (not set)" in message and str(home) in message
    )
    assert not home.exists()

    prepared = tmp_path / "prepared"
    prepared.mkdir()
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(prepared))
    with pytest.raises(datasets.DataNotFoundError, match=f"MNIST.*{prepared}.*{home}"):
        datasets.fetch_mnist(home, download_if_missing=False)


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


def test_environment_folder_wins_over_data_home(tmp_path, monkeypatch):
    env_folder, home = tmp_path / "env", tmp_path / "home"
    _bundle(env_folder, 2.0, monkeypatch)
    _bundle(home, 3.0, monkeypatch)
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(env_folder))
    X, _ = datasets.load_a9a(home)
    assert np.all(X.toarray() == 2.0)
    # An environment folder without the data set falls through to data_home.
    monkeypatch.setenv(datasets.DATA_ENV_VARIABLE, str(tmp_path / "empty"))
    X, _ = datasets.load_a9a(home)
    assert np.all(X.toarray() == 3.0)


def test_default_data_home_is_a_subfolder_of_scikit_learns(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    assert datasets.get_cache_home() == tmp_path / "sklearn_sketch"
    assert datasets.get_cache_home(tmp_path / "x") == tmp_path / "x"


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
    X, _ = datasets.load_mnist(tmp_path)  # the loader's default subset is "test"
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
        X, y = datasets.load_sector(tmp_path, subset=split)
        assert X.dtype == np.int32 and X.shape == (len(labels[split]), 55197)
        np.testing.assert_array_equal(X.toarray(), counts[split])
        np.testing.assert_array_equal(y, labels[split])
        X, y = datasets.load_sector(tmp_path, subset=split, values="tfidf")
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
    Xtr, ytr = datasets.load_pendigits(tmp_path)
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
    X_test, y_test = datasets.load_20newsgroups_counts(tmp_path, subset="test")
    np.testing.assert_array_equal(y_test, [0, 1])
    # "zebra" is not in the training vocabulary; the empty message has no terms.
    assert X_test[0].sum() == 2 and X_test[1].nnz == 0
    assert list(datasets.load_20newsgroups_vocabulary(tmp_path)) == vocabulary
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

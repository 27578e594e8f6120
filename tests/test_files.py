"""The one atomic writer: bytes or a writing function, an ordinary file's mode, and after a failure
the old file unchanged with no temporary file left; and ``create_once``, whose file appears whole to
every thread racing to create it."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from rote_hf.files import create_once, current_umask, write_atomic


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_bytes_land_in_a_new_folder_with_an_ordinary_mode(tmp_path):
    path = write_atomic(tmp_path / "a" / "b.json", b'{"x": 1}\n')
    assert path == tmp_path / "a" / "b.json"
    assert path.read_bytes() == b'{"x": 1}\n'
    assert _mode(path) == 0o666 & ~current_umask()  # not mkstemp's 0o600
    assert sorted(os.listdir(path.parent)) == ["b.json"]


def test_a_writing_function_gets_a_temporary_path_beside_the_target(tmp_path):
    seen = []

    def write(tmp: str) -> None:
        seen.append(tmp)
        with open(tmp, "w") as fh:
            fh.write("hello")

    path = write_atomic(tmp_path / "out.txt", write, mode=0o640, fsync=True)
    assert path.read_text() == "hello" and _mode(path) == 0o640
    assert os.path.dirname(seen[0]) == str(tmp_path) and os.path.basename(seen[0]).startswith(".tmp-")
    assert seen[0].endswith(".txt") and not os.path.exists(seen[0])


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "keep.txt"
    path.write_text("old")

    def fail(tmp: str) -> None:
        with open(tmp, "w") as fh:
            fh.write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomic(path, fail)
    assert path.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["keep.txt"]


def test_other_content_is_refused_by_name(tmp_path):
    with pytest.raises(TypeError, match="content must be bytes or a function"):
        write_atomic(tmp_path / "x.txt", "text, not bytes")
    assert os.listdir(tmp_path) == []


def test_create_once_keeps_the_first_bytes_and_its_mode(tmp_path):
    path = tmp_path / "d" / "secret.key"
    assert create_once(path, b"first-secret-bytes") == b"first-secret-bytes"
    assert create_once(path, b"second") == b"first-secret-bytes"
    assert path.read_bytes() == b"first-secret-bytes" and _mode(path) == 0o600
    assert os.listdir(tmp_path / "d") == ["secret.key"]
    with pytest.raises(TypeError, match="content must be bytes, got str"):
        create_once(tmp_path / "e", "text")


def test_threads_racing_to_create_a_file_all_read_the_winners_whole_bytes(tmp_path):
    """The LLM cache's secret: visitors' threads make it at once; none may read it empty (the
    O_CREAT-then-write it replaced let a loser read 0 bytes and fail)."""
    n, rounds = 16, 20
    for r in range(rounds):
        path, got = tmp_path / f"k{r}", [None] * n
        barrier = threading.Barrier(n)

        def make(i):
            barrier.wait()
            got[i] = create_once(path, os.urandom(32))

        threads = [threading.Thread(target=make, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert len(set(got)) == 1 and got[0] == path.read_bytes() and len(got[0]) == 32
    assert sorted(os.listdir(tmp_path)) == sorted(f"k{r}" for r in range(rounds))

"""The restricted unpickler: the FAR pickles load, anything executable is refused before it runs."""

from __future__ import annotations

import os
import pickle
import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from annotation.corpus.importers.safe_pickle import ForbiddenGlobalError, safe_load, safe_loads
from annotation.imports.bundle import ImportValidationError

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
_skip_without_far = pytest.mark.skipif(
    not (SHARED / "far-release").is_dir(), reason="../shared/data/far-release is absent"
)


def needs_far(test):
    """Mark a test as needing the FAR release in ../shared (skipped with a message if absent)."""
    return pytest.mark.shared(_skip_without_far(test))


def _write(tmp_path: Path, data: bytes, name: str = "evil.pkl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _assert_refused(path: Path, global_name: str) -> None:
    with pytest.raises(ForbiddenGlobalError) as caught:
        safe_load(path)
    error = caught.value
    assert isinstance(error, ImportValidationError)
    assert error.global_name == global_name
    [issue] = error.issues
    assert issue.location.file == str(path)
    assert issue.message == f"{global_name} is not allowed"
    assert f"{global_name} is not allowed" in str(error)


class _SystemCall:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _Popen:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (subprocess.Popen, (["touch", str(self.marker)],))


class _Eval:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"open({str(self.marker)!r}, 'w')",))


def test_os_system_via_reduce_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "pwned"
    path = _write(tmp_path, pickle.dumps(_SystemCall(marker)))
    _assert_refused(path, f"{os.system.__module__}.system")  # "posix.system" on Linux
    assert not marker.exists()


def test_os_system_spelled_as_os_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    data = f"cos\nsystem\n(S'touch {marker}'\ntR.".encode()
    path = _write(tmp_path, data)
    _assert_refused(path, "os.system")
    assert not marker.exists()


def test_subprocess_popen_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    path = _write(tmp_path, pickle.dumps(_Popen(marker)))
    _assert_refused(path, "subprocess.Popen")
    assert not marker.exists()


def test_builtins_eval_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    path = _write(tmp_path, pickle.dumps(_Eval(marker)))
    _assert_refused(path, "builtins.eval")
    assert not marker.exists()


def test_forbidden_global_nested_in_an_allowed_shape_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    payload = {"low_abs": {0: defaultdict(list, {0: [{1}]})}, "noise": [_SystemCall(marker)]}
    path = _write(tmp_path, pickle.dumps(payload, protocol=3))
    _assert_refused(path, f"{os.system.__module__}.system")
    assert not marker.exists()


@pytest.mark.parametrize(
    "data, name",
    [
        (b"cbuiltins\ngetattr\n.", "builtins.getattr"),
        (b"cbuiltins\n__import__\n.", "builtins.__import__"),
        (b"cnumpy\nload\n.", "numpy.load"),
        (b"ccollections\nOrderedDict\n.", "collections.OrderedDict"),
    ],
)
def test_other_globals_are_refused(tmp_path, data, name):
    _assert_refused(_write(tmp_path, data), name)


def test_numpy_object_dtype_is_refused():
    with pytest.raises(ImportValidationError) as caught:
        safe_loads(pickle.dumps(np.dtype(object), protocol=3), source="x.pkl")
    assert "integers only" in str(caught.value)
    assert caught.value.issues[0].location.file == "x.pkl"


def test_allowed_shapes_load_and_numpy_ints_become_int(tmp_path):
    payload = {
        "low_abs": {np.int64(7): defaultdict(list, {0: [{np.int64(3), 4}], 1: [{5}]})},
        "noise": {np.int64(1)},
        "all_idx": [np.int64(1), 7],
    }
    for protocol in (3, 4, 5):  # the release uses 3; 2 would need _codecs.encode
        loaded = safe_load(_write(tmp_path, pickle.dumps(payload, protocol=protocol)))
        assert loaded == {"low_abs": {7: {0: [{3, 4}], 1: [{5}]}}, "noise": {1}, "all_idx": [1, 7]}
        assert type(next(iter(loaded["low_abs"]))) is int
        assert type(loaded["all_idx"][0]) is int
        assert isinstance(loaded["low_abs"][7], defaultdict)


def test_missing_file_names_the_file(tmp_path):
    path = tmp_path / "absent.pkl"
    with pytest.raises(ImportValidationError) as caught:
        safe_load(path)
    assert caught.value.issues[0].location.file == str(path)
    assert "cannot read file" in caught.value.issues[0].message


def test_garbage_is_a_clear_error(tmp_path):
    path = _write(tmp_path, b"not a pickle at all")
    with pytest.raises(ImportValidationError) as caught:
        safe_load(path)
    assert not isinstance(caught.value, ForbiddenGlobalError)
    assert "not a readable pickle" in str(caught.value)


@needs_far
@pytest.mark.parametrize(
    "name",
    [
        "FAMs.pkl",
        "idx2labels_bs.pkl",
        "idx2labels_fastrl.pkl",
        "idx2labels_neusum.pkl",
        "idx2labels_refresh.pkl",
        "idx2labels_unified.pkl",
    ],
)
def test_release_pickles_load_with_plain_ints(name):
    data = safe_load(SHARED / "far-release" / "data" / name)

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                yield key
                yield from walk(item)
        elif isinstance(value, (list, set, tuple)):
            for item in value:
                yield from walk(item)
        else:
            yield value

    scalars = list(walk(data))
    assert scalars
    assert all(type(v) in (int, str) for v in scalars)

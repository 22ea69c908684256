"""A restricted unpickler that admits only the few globals the FAR release's pickles reference."""

from __future__ import annotations

import collections
import io
import pickle
from pathlib import Path

import numpy as np

from annotation.imports.bundle import ImportValidationError, Issue, Location

# numpy moved its C core from ``numpy.core`` to ``numpy._core`` in 2.0; pickles written by either
# version reference their own module path, so both spellings map to the same object here.
_NUMPY_CORE_MODULES = ("numpy.core.multiarray", "numpy._core.multiarray")


class ForbiddenGlobalError(ImportValidationError):
    """A pickle referenced a global outside the allow-list; nothing from it was executed."""

    def __init__(self, file: str, global_name: str):
        self.file = file
        self.global_name = global_name
        super().__init__([Issue(Location(file), f"{global_name} is not allowed")])


def _integer_dtype(*args: object) -> np.dtype:
    """Rebuild a numpy dtype as pickled, admitting only integer dtypes.

    Args:
        *args: The arguments numpy's ``dtype.__reduce__`` stored, e.g. ``("i8", 0, 1)``.

    Returns:
        The dtype.

    Raises:
        pickle.UnpicklingError: If the arguments are not a plain string type code or the dtype
            is not an integer dtype (an object dtype could smuggle arbitrary objects in).
    """
    if not args or not isinstance(args[0], str):
        raise pickle.UnpicklingError("numpy.dtype: only a type-code string is allowed")
    flags = args[1:]
    if len(flags) > 2 or not all(type(flag) in (bool, int) and flag in (0, 1) for flag in flags):
        raise pickle.UnpicklingError("numpy.dtype: unexpected arguments")
    align = bool(flags[0]) if flags else False
    # Always copy: numpy caches builtin dtypes, and the BUILD opcode that follows in the pickle
    # calls ``__setstate__`` on whatever we return, which must never be a shared instance.
    dtype = np.dtype(args[0], align, True)
    if dtype.kind not in "iu":
        raise pickle.UnpicklingError(f"numpy.dtype {dtype.str!r} is not allowed (integers only)")
    return dtype


def _integer_scalar(dtype: object, data: object = None) -> int:
    """Rebuild a pickled numpy integer scalar and return it as a plain ``int``.

    Args:
        dtype: The scalar's dtype (already restricted to integer kinds).
        data: The scalar's raw bytes.

    Returns:
        The value as a Python ``int`` (so no numpy types leak into the result).

    Raises:
        pickle.UnpicklingError: If the dtype or data have an unexpected type or size.
    """
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu":
        raise pickle.UnpicklingError("numpy scalar: only integer dtypes are allowed")
    if not isinstance(data, bytes) or len(data) != dtype.itemsize:
        raise pickle.UnpicklingError("numpy scalar: malformed data")
    return int(np.frombuffer(data, dtype=dtype)[0])


# Exactly the globals that ``pickletools`` finds in the FAR release's six pickles (protocol 3):
# ``defaultdict`` with its default factory ``list``; ``set`` (protocol 3 has no set opcode, so
# sets are rebuilt by calling it); and numpy's scalar reconstruction (``numpy.dtype`` and
# ``numpy.core.multiarray.scalar``) for ``numpy.int64`` values. Dicts, lists, ints and strings
# need no global: they are plain pickle opcodes.
_ALLOWED: dict[tuple[str, str], object] = {
    ("builtins", "list"): list,
    ("builtins", "set"): set,
    ("collections", "defaultdict"): collections.defaultdict,
    ("numpy", "dtype"): _integer_dtype,
    **{(module, "scalar"): _integer_scalar for module in _NUMPY_CORE_MODULES},
}


class SafeUnpickler(pickle.Unpickler):
    """An unpickler whose ``find_class`` resolves only the allow-listed globals."""

    def __init__(self, file: io.BufferedIOBase, *, source: str = "<pickle>"):
        super().__init__(file)
        self.source = source

    def find_class(self, module: str, name: str) -> object:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise ForbiddenGlobalError(self.source, f"{module}.{name}") from None

    def persistent_load(self, pid: object) -> object:
        raise ForbiddenGlobalError(self.source, "persistent id")


def safe_loads(data: bytes, *, source: str = "<pickle>") -> object:
    """Unpickle bytes with :class:`SafeUnpickler`.

    Args:
        data: The pickle bytes.
        source: A name for the data used in error messages (usually the file path).

    Returns:
        The unpickled object; numpy integers come back as plain ``int``.

    Raises:
        ForbiddenGlobalError: If the pickle references a global outside the allow-list.
        ImportValidationError: If the pickle is malformed or truncated.
    """
    try:
        return SafeUnpickler(io.BytesIO(data), source=source).load()
    except ImportValidationError:
        raise
    except Exception as exc:  # any failure of a malformed pickle is reported as an issue
        message = f"not a readable pickle: {type(exc).__name__}: {exc}"
        raise ImportValidationError([Issue(Location(source), message)]) from exc


def safe_load(path: str | Path) -> object:
    """Read and unpickle a file with :class:`SafeUnpickler`.

    Args:
        path: The pickle file.

    Returns:
        The unpickled object; numpy integers come back as plain ``int``.

    Raises:
        ForbiddenGlobalError: If the pickle references a global outside the allow-list.
        ImportValidationError: If the file is missing, unreadable or not a valid pickle.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        issue = Issue(Location(str(path)), f"cannot read file: {exc.strerror or exc}")
        raise ImportValidationError([issue]) from exc
    return safe_loads(data, source=str(path))

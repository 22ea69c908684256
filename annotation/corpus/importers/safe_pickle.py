"""A restricted unpickler that admits only the few globals a release's pickles reference."""

from __future__ import annotations

import collections
import io
import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

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


def _numpy_dtype(kinds: str, what: str) -> Callable[..., np.dtype]:
    """A stand-in for ``numpy.dtype`` that rebuilds only plain dtypes of the given kinds.

    Args:
        kinds: the admitted ``dtype.kind`` letters (``"iu"`` integers, ``"f"`` floats).
        what: the kinds in words, for the refusal (``"integers only"``).

    Returns:
        A callable taking the arguments numpy's ``dtype.__reduce__`` stored, e.g.
        ``("i8", 0, 1)``, and returning a fresh dtype; it raises ``pickle.UnpicklingError``
        when they are not a plain type-code string with 0/1 flags or name another kind (an
        object dtype could smuggle arbitrary objects in).
    """

    def rebuild(*args: object) -> np.dtype:
        if not args or not isinstance(args[0], str):
            raise pickle.UnpicklingError("numpy.dtype: only a type-code string is allowed")
        flags = args[1:]
        if len(flags) > 2 or not all(type(f) in (bool, int) and f in (0, 1) for f in flags):
            raise pickle.UnpicklingError("numpy.dtype: unexpected arguments")
        align = bool(flags[0]) if flags else False
        # Always copy: numpy caches builtin dtypes, and the BUILD opcode that follows in the
        # pickle calls ``__setstate__`` on whatever we return, which must never be shared.
        dtype = np.dtype(args[0], align, True)
        if dtype.kind not in kinds:
            raise pickle.UnpicklingError(f"numpy.dtype {dtype.str!r} is not allowed ({what})")
        return dtype

    return rebuild


def _numpy_scalar(kinds: str, convert: Callable[[object], object]) -> Callable[..., object]:
    """A stand-in for numpy's scalar reconstruction that gives plain Python numbers.

    Args:
        kinds: the admitted ``dtype.kind`` letters.
        convert: ``int`` or ``float``: the type returned, so no numpy type leaks out.

    Returns:
        A callable taking ``(dtype, raw bytes)`` and returning the value; it raises
        ``pickle.UnpicklingError`` for another kind of dtype (checked again after the BUILD
        opcode could have changed its state: a plain one, no fields nor sub-array) or bytes of
        the wrong size.
    """

    def rebuild(dtype: object, data: object = None) -> object:
        if (
            not isinstance(dtype, np.dtype)
            or dtype.kind not in kinds
            or dtype.fields is not None
            or dtype.subdtype is not None
            or dtype.hasobject
        ):
            raise pickle.UnpicklingError(f"numpy scalar: only {kinds!r} dtypes are allowed")
        if not isinstance(data, bytes) or len(data) != dtype.itemsize:
            raise pickle.UnpicklingError("numpy scalar: malformed data")
        return convert(np.frombuffer(data, dtype=dtype)[0])

    return rebuild


def _numpy_globals(kinds: str, what: str, convert) -> dict[tuple[str, str], object]:
    """``numpy.dtype`` and the scalar reconstruction (both module spellings) for ``kinds``."""
    return {
        ("numpy", "dtype"): _numpy_dtype(kinds, what),
        **{(module, "scalar"): _numpy_scalar(kinds, convert) for module in _NUMPY_CORE_MODULES},
    }


# Exactly the globals that ``pickletools`` finds in the FAR release's six pickles (protocol 3):
# ``defaultdict`` with its default factory ``list``; ``set`` (protocol 3 has no set opcode, so
# sets are rebuilt by calling it); and numpy's scalar reconstruction (``numpy.dtype`` and
# ``numpy.core.multiarray.scalar``) for ``numpy.int64`` values. Dicts, lists, ints and strings
# need no global: they are plain pickle opcodes.
FAR_GLOBALS: Mapping[tuple[str, str], object] = MappingProxyType(
    {
        ("builtins", "list"): list,
        ("builtins", "set"): set,
        ("collections", "defaultdict"): collections.defaultdict,
        **_numpy_globals("iu", "integers only", int),
    }
)

# REALSumm's two score pickles (protocol 3) reference exactly ``numpy.dtype`` and
# ``numpy.core.multiarray.scalar``: the scores are numpy float32 and float64 scalars. Nothing
# else, not even ``list``, is admitted.
REALSUMM_GLOBALS: Mapping[tuple[str, str], object] = MappingProxyType(
    _numpy_globals("f", "floats only", float)
)


class SafeUnpickler(pickle.Unpickler):
    """An unpickler whose ``find_class`` resolves only the allow-listed globals."""

    def __init__(
        self,
        file: io.BufferedIOBase,
        *,
        source: str = "<pickle>",
        allowed: Mapping[tuple[str, str], object] = FAR_GLOBALS,
    ):
        super().__init__(file)
        self.source = source
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> object:
        try:
            return self.allowed[(module, name)]
        except KeyError:
            raise ForbiddenGlobalError(self.source, f"{module}.{name}") from None

    def persistent_load(self, pid: object) -> object:
        raise ForbiddenGlobalError(self.source, "persistent id")


def safe_loads(
    data: bytes,
    *,
    source: str = "<pickle>",
    allowed: Mapping[tuple[str, str], object] = FAR_GLOBALS,
) -> object:
    """Unpickle bytes with :class:`SafeUnpickler`.

    Args:
        data: The pickle bytes.
        source: A name for the data used in error messages (usually the file path).
        allowed: The allow-list (:data:`FAR_GLOBALS`, the default, or
            :data:`REALSUMM_GLOBALS`).

    Returns:
        The unpickled object; numpy integers come back as plain ``int``.

    Raises:
        ForbiddenGlobalError: If the pickle references a global outside the allow-list.
        ImportValidationError: If the pickle is malformed or truncated.
    """
    try:
        return SafeUnpickler(io.BytesIO(data), source=source, allowed=allowed).load()
    except ImportValidationError:
        raise
    except Exception as exc:  # any failure of a malformed pickle is reported as an issue
        message = f"not a readable pickle: {type(exc).__name__}: {exc}"
        raise ImportValidationError([Issue(Location(source), message)]) from exc


def safe_load(
    path: str | Path, *, allowed: Mapping[tuple[str, str], object] = FAR_GLOBALS
) -> object:
    """Read and unpickle a file with :class:`SafeUnpickler`.

    Args:
        path: The pickle file.
        allowed: The allow-list (see :func:`safe_loads`).

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
    return safe_loads(data, source=str(path), allowed=allowed)

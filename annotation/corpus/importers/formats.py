"""The registry of dataset import formats: name -> parser producing an ImportBundle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path
from typing import BinaryIO

from annotation.imports.bundle import ImportBundle, ImportValidationError, Issue, Location
from annotation.imports.readers import read_lines

from .parsers.jsonl import parse_dataset_jsonl


@dataclass(frozen=True)
class ImportFormat:
    """One dataset format: its name, a short description and its parser."""

    name: str
    description: str
    parse: Callable[[Path | BinaryIO, str, str | None], ImportBundle]
    takes_directory: bool = False


def _jsonl(source: Path | BinaryIO, slug: str, name: str | None) -> ImportBundle:
    label = source.name if isinstance(source, Path) else getattr(source, "name", None) or "upload"
    return parse_dataset_jsonl(read_lines(source, name=label), file=label, slug=slug, name=name)


def _release(parser_path: str, attribute: str):
    def parse(source: Path | BinaryIO, slug: str, name: str | None) -> ImportBundle:
        if not isinstance(source, Path) or not source.is_dir():
            raise ImportValidationError([Issue(Location(str(source)), "expected a directory")])
        bundle = getattr(import_module(parser_path), attribute)(source)
        bundle.dataset = replace(bundle.dataset, slug=slug, name=name or bundle.dataset.name)
        return bundle

    return parse


FORMATS: dict[str, ImportFormat] = {
    "jsonl": ImportFormat("jsonl", "One JSON document per line (see docs/formats.md).", _jsonl),
    "polytope-release": ImportFormat(
        "polytope-release",
        "The PolyTope release's outputs/ folder (Huang et al. 2020).",
        _release("annotation.corpus.importers.parsers.polytope", "parse_polytope_release"),
        takes_directory=True,
    ),
    "far-release": ImportFormat(
        "far-release",
        "The FAR release's root folder (Mao et al. 2020).",
        _release("annotation.corpus.importers.parsers.far", "parse_far_release"),
        takes_directory=True,
    ),
    "xsum-hallucinations": ImportFormat(
        "xsum-hallucinations",
        "The XSum hallucination release's folder (Maynez et al. 2020): spans by three workers.",
        _release("annotation.corpus.importers.parsers.xsum", "parse_xsum_release"),
        takes_directory=True,
    ),
    "realsumm": ImportFormat(
        "realsumm",
        "The REALSumm release's folder (Bhandari et al. 2020): 25 systems, LitePyramid recall.",
        _release("annotation.corpus.importers.parsers.realsumm", "parse_realsumm_release"),
        takes_directory=True,
    ),
    "loupe-release": ImportFormat(
        "loupe-release",
        "A release exported by Loupe (manage.py export_release): its folder or archive.",
        _release("annotation.corpus.importers.parsers.loupe_release", "parse_loupe_release"),
        takes_directory=True,
    ),
}


def get_format(name: str) -> ImportFormat:
    """Return the format called ``name``.

    Args:
        name: ``jsonl``, ``polytope-release``, ``far-release``, ``xsum-hallucinations``,
            ``realsumm`` or ``loupe-release``.

    Returns:
        The :class:`ImportFormat`.

    Raises:
        ImportValidationError: no such format.
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise ImportValidationError(
            [
                Issue(
                    Location("--format"),
                    f"unknown format {name!r}; choose one of {sorted(FORMATS)}",
                )
            ]
        ) from None

"""``far``: FAR, SAR, SAP and SAF1 of extracted sentences against facet-aware mappings."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..fam import FamError, validate_fam
from ..far import (
    DEFAULT_K,
    ExtractedIndexError,
    FarError,
    FarSystemScore,
    NoSupportError,
    score_system,
)
from .base import CliError, Output, fmt, read_json

DESCRIPTION = """\
Score one extractive system against facet-aware mappings (FAMs), as in Mao et al. (ACL 2020):
per document and as means over documents, FAR (facet-aware recall), SAR (support recall), SAP
(support precision), SAF1 (per-document F1 of SAP and SAR), FAR per considered sentence, and the
redundancy rate (share of documents whose summary covers more than one support group of one
facet). Also the coverage: documents scored / documents in FAMS.json.
"""

EPILOG = """\
input formats:
  FAMS.json       {doc_id: {facet_index: [[sentence_index, ...], ...]}}
                  Each document maps facet indices (reference-sentence numbers, as strings:
                  JSON keys) to their support groups; a group is a list of 0-based document
                  sentence indices. A facet listed with [] or left out has no support group.
                  Example:
                    {"doc-1": {"0": [[0], [2, 3]], "1": [[5]], "2": []},
                     "doc-2": {"0": [[1]]}}
  EXTRACTED.json  {doc_id: [sentence_index, ...]}
                  The system's extracted sentence indices per document, in extraction order.
                  Example:
                    {"doc-1": [0, 5, 7, 2], "doc-2": [1, 0, 4]}
  DOCS.json       (optional, --sentences) {doc_id: sentence_count} or
                  {doc_id: ["first sentence", ...]}; gives each document's sentence count.
  FACETS.json     (optional, --facets; required by --include-unsupported)
                  {doc_id: facet_count} or {doc_id: ["first reference sentence", ...]};
                  gives each document's facet (reference-sentence) count. Example:
                    {"doc-1": 3, "doc-2": ["the only reference sentence ."]}

validation:
  Without --sentences the FAM format carries no sentence count, so an index is only checked to
  be a non-negative integer, and a document is taken to have (largest index in its FAM or its
  extraction) + 1 sentences. With --sentences every index must also be below the document's
  sentence count. Without --facets the facet count is the largest facet index + 1 (facets in
  between have no support group; facets after the last one listed are unknown). With --facets
  every facet index must be below the document's facet count. Empty groups, repeated groups,
  non-integer indices and malformed JSON are errors naming the file, the document, the facet
  and the group (exit status 2).

rules:
  The first --k extracted entries are considered as a set (a repeated index counts once).
  FAR's denominator holds the facets with a support group, unless --include-unsupported: then
  it holds every facet of the reference, which needs the facet counts of --facets (without
  them, trailing facets with no support group would silently drop out of the denominator, so
  --include-unsupported without --facets is an error).
  A document of FAMS.json without an output is an error naming it, unless --allow-partial
  (then the means are over the covered documents and the coverage says how many). A document
  whose FAM has no support group at all is an error: its SAR and FAR are undefined.
  Outputs for documents not in FAMS.json are ignored and listed.

example:
  python -m scoring.metrics far --fams fams.json --extracted lead3.json --k 3 --table
"""


def _k(value: str) -> int | None:
    if value == "all":
        return None
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or 'all', got {value!r}"
        ) from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'all', got {value!r}")
    return k


def register(subparsers, parent: argparse.ArgumentParser) -> None:
    """Add the ``far`` sub-command."""
    parser = subparsers.add_parser(
        "far",
        parents=[parent],
        help="FAR, SAR, SAP and SAF1 of extracted sentences against FAMs",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--fams",
        type=Path,
        required=True,
        metavar="FAMS.json",
        help="the FAMs: {doc_id: {facet_index: [[sentence_index, ...], ...]}}",
    )
    parser.add_argument(
        "--extracted",
        type=Path,
        required=True,
        metavar="EXTRACTED.json",
        help="the system's extracted indices: {doc_id: [sentence_index, ...]}",
    )
    parser.add_argument(
        "--k",
        type=_k,
        default=DEFAULT_K,
        metavar="K",
        help="extracted sentences considered per document, in order "
        "(default %(default)s, as in the paper; 'all' for every one)",
    )
    parser.add_argument(
        "--sentences",
        type=Path,
        metavar="DOCS.json",
        help="optional sentence counts, to check indices against the documents",
    )
    parser.add_argument(
        "--facets",
        type=Path,
        metavar="FACETS.json",
        help="optional facet counts, {doc_id: facet_count or [reference sentence, ...]}, to "
        "check facet indices; required by --include-unsupported",
    )
    parser.add_argument(
        "--include-unsupported",
        action="store_true",
        help="count every facet of the reference in FAR's denominator, also those without a "
        "support group (needs --facets)",
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="score the documents that have an output instead of failing",
    )
    parser.add_argument("--system", help="the system's name in messages (default: file stem)")
    parser.set_defaults(run=run)


def _is_index(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _read_fams(path: Path) -> dict[str, dict[int, list]]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise CliError(f"{path}: expected an object {{doc_id: {{facet_index: [[index, ...]]}}}}")
    fams = {}
    for document, facets in data.items():
        where = f"{path}: document {document!r}"
        if not isinstance(facets, dict):
            raise CliError(f"{where}: expected an object {{facet_index: [[index, ...], ...]}}")
        mapping: dict[int, list] = {}
        for key, groups in facets.items():
            if not (key.isascii() and key.isdigit()):
                raise CliError(f"{where}, facet {key!r}: a facet index is a non-negative integer")
            facet = int(key)
            if facet in mapping:
                raise CliError(f"{where}, facet {facet}: given twice")
            if not isinstance(groups, list):
                raise CliError(f"{where}, facet {facet}: expected a list of support groups")
            for number, group in enumerate(groups):
                if not isinstance(group, list):
                    raise CliError(
                        f"{where}, facet {facet}, group {number}: a support group is a list of "
                        "sentence indices"
                    )
                for value in group:
                    if not _is_index(value):
                        raise CliError(
                            f"{where}, facet {facet}, group {number}: sentence index {value!r} "
                            "is not a non-negative integer"
                        )
            mapping[facet] = groups
        fams[document] = mapping
    return fams


def _read_extracted(path: Path) -> dict[str, list[int]]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise CliError(f"{path}: expected an object {{doc_id: [sentence_index, ...]}}")
    for document, indices in data.items():
        if not isinstance(indices, list):
            raise CliError(f"{path}: document {document!r}: expected a list of sentence indices")
        for position, value in enumerate(indices):
            if not _is_index(value):
                raise CliError(
                    f"{path}: document {document!r}, position {position}: sentence index "
                    f"{value!r} is not a non-negative integer"
                )
    return data


def _read_counts(path: Path, what: str = "sentence") -> dict[str, int]:
    """``{doc_id: count}`` from DOCS.json (``what="sentence"``) or FACETS.json (``"facet"``)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise CliError(f"{path}: expected an object {{doc_id: {what}_count or [{what}]}}")
    counts = {}
    for document, value in data.items():
        if isinstance(value, list):
            value = len(value)
        if not _is_index(value):
            raise CliError(f"{path}: document {document!r}: expected a {what} count or a list")
        counts[document] = value
    return counts


def _n_sentences(mapping: dict[int, list], extracted: list[int] | None) -> int:
    """Without DOCS.json: one past the largest index the document's FAM or output uses."""
    indices = [i for groups in mapping.values() for group in groups for i in group]
    indices += extracted or []
    return max(indices, default=-1) + 1


def _validated(path, raw, extracted, counts, sentences_path, facet_counts=None, facets_path=None):
    fams = {}
    for document, mapping in raw.items():
        if counts is None:
            n_sentences = _n_sentences(mapping, extracted.get(document))
        elif document in counts:
            n_sentences = counts[document]
        else:
            raise CliError(f"{sentences_path}: no sentence count for document {document!r}")
        if facet_counts is None:
            n_facets = max(mapping, default=-1) + 1
        elif document in facet_counts:
            n_facets = facet_counts[document]
        else:
            raise CliError(f"{facets_path}: no facet count for document {document!r}")
        try:
            fams[document] = validate_fam(mapping, n_sentences=n_sentences, n_facets=n_facets)
        except FamError as error:
            raise CliError(f"{path}: document {document!r}: {error}") from None
    return fams


def _output(result: FarSystemScore, ignored: list[str]) -> Output:
    documents = result.documents()
    record = result.as_dict()
    record["coverage"]["ignored_outputs"] = ignored  # the CLI's own field, after "missing"
    header = ["document", "SAP", "SAR", "SAF1", "FAR", "FAR/sent", "redundant"]
    table = [header]
    for score in documents:
        measures = [score.sap, score.sar, score.saf1, score.far, score.far_per_sentence]
        table.append([str(score.document), *map(fmt, measures), "yes" if score.redundant else ""])
    means = [result.sap, result.sar, result.saf1, result.far, result.far_per_sentence]
    table.append(["mean", *map(fmt, means), f"{result.redundancy_rate:.1%}"])
    coverage = f"{result.n_scored}/{result.n_expected}"
    table.append(["coverage", coverage, *[""] * (len(header) - 2)])
    return Output(records=[record], table=table)


def run(args: argparse.Namespace) -> Output:
    """Read the inputs, score the system and build the output."""
    if args.include_unsupported and not args.facets:
        raise CliError(
            "--include-unsupported needs each document's facet count (--facets FACETS.json): "
            "FAMS.json does not list the facets after the last one it names, so facets without "
            "a support group would silently drop out of FAR's denominator"
        )
    raw = _read_fams(args.fams)
    extracted = _read_extracted(args.extracted)
    counts = _read_counts(args.sentences) if args.sentences else None
    facet_counts = _read_counts(args.facets, "facet") if args.facets else None
    fams = _validated(args.fams, raw, extracted, counts, args.sentences, facet_counts, args.facets)
    system = args.system or args.extracted.stem
    try:
        result = score_system(
            system,
            fams,
            extracted,
            args.k,
            include_unsupported=args.include_unsupported,
            allow_partial=args.allow_partial,
        )
    except ExtractedIndexError as error:
        raise CliError(f"{args.extracted}: {error}") from None
    except NoSupportError as error:
        raise CliError(f"{args.fams}: {error}") from None
    except FarError as error:
        raise CliError(str(error)) from None
    ignored = [document for document in extracted if document not in fams]
    return _output(result, ignored)

"""Time far_split.split_sentences against the naive rule on the FAR release, and check both."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from _common import FAR_RELEASE, best_of, release_missing  # puts the repo on sys.path

from annotation.corpus.importers.far_split import (
    naive_split,
    released_mismatches,
    split_sentences,
)
from annotation.corpus.importers.parsers.far import DUMP_FILES, parse_far_release
from annotation.imports.bundle import ImportValidationError

RELEASE = FAR_RELEASE
REPEATS = 5
PASSES = 10  # passes over the 150 documents per timed run, so that a run lasts long enough

_IDX = re.compile(r"^idx: (\d+)$")
_SUPPORT = re.compile(r"^\[Support Group-\d+\]\[Sent-\d+\]\[Sent_idx:(\d+)\]: ?(.*)$")


@dataclass
class Sample:
    """One sample of the dump: its one-line document and its released support-sentence texts."""

    idx: int
    document: str = ""
    released: dict[int, list[str]] = field(default_factory=dict)


def load_samples() -> list[Sample]:
    """Read output/*.txt in place, as the FAR parser does (idx, Document line, support lines)."""
    samples: list[Sample] = []
    for name in DUMP_FILES.values():
        take_document = False
        for line in (RELEASE / name).read_text(encoding="utf-8").splitlines():
            if take_document:
                samples[-1].document = line
                take_document = False
            elif match := _IDX.match(line):
                samples.append(Sample(int(match[1])))
            elif line == "Document":
                take_document = True
            elif match := _SUPPORT.match(line):
                samples[-1].released.setdefault(int(match[1]), []).append(match[2])
    return samples


Splitter = Callable[[str], list[str]]


def timed(splitter: Splitter, documents: list[str]) -> float:
    """Best of REPEATS runs (time.perf_counter) of PASSES passes; seconds per pass."""

    def passes() -> None:
        for _ in range(PASSES):
            for document in documents:
                splitter(document)

    best, _ = best_of(passes, repeats=REPEATS)
    return best / PASSES


def agreement(splitter: Splitter, checked: list[Sample]) -> tuple[int, int, int]:
    """Documents whose split matches every released support sentence; released indices right."""
    documents = indices = right = 0
    for sample in checked:
        bad = released_mismatches(splitter(sample.document), sample.released)
        documents += not bad
        indices += len(sample.released)
        right += len(sample.released) - len(bad)
    return documents, right, indices


def cross_check(samples: list[Sample]) -> tuple[bool, str]:
    """Compare this script's reading of the dump with the project's parser (run once, untimed)."""
    try:
        bundle = parse_far_release(RELEASE)
    except ImportValidationError as error:
        return False, f"parse_far_release refused the release: {error.issues[0]}"
    by_idx = {sample.idx: sample for sample in samples}
    same_text = all(
        " ".join(record.sentences).split() == by_idx[record.meta["sample_idx"]].document.split()
        for record in bundle.documents
        if record.meta["sample_idx"] in by_idx
    )
    if len(bundle.documents) != len(samples) or not same_text:
        return False, "MISMATCH: this script reads other documents than parse_far_release"
    return True, f"ok, the same {len(samples)} documents as parse_far_release"


def main() -> int:
    if release_missing("bench_far_split", "FAR", RELEASE):
        return 0
    samples = load_samples()
    documents = [sample.document for sample in samples]
    checked = [sample for sample in samples if sample.released]
    tokens = sum(len(document.split()) for document in documents)
    time_ours = timed(split_sentences, documents)
    time_naive = timed(naive_split, documents)
    print("far_split.split_sentences vs the naive rule (FAR release documents)")
    print(f"  documents          {len(documents)} ({tokens} tokens)")
    print(f"  time ours          {time_ours * 1000:.2f} ms per pass (best of {REPEATS})")
    print(f"  time naive         {time_naive * 1000:.2f} ms per pass (best of {REPEATS})")
    print(f"  time ratio         {time_ours / time_naive:.2f} (ours / naive)")
    print(
        f"  sentences          ours {sum(len(split_sentences(d)) for d in documents)}, "
        f"naive {sum(len(naive_split(d)) for d in documents)}"
    )
    for name, splitter in (("ours", split_sentences), ("naive", naive_split)):
        agree, right, indices = agreement(splitter, checked)
        print(
            f"  agreement {name:<8} {agree}/{len(checked)} documents with released support "
            f"sentences; {right}/{indices} released indices hold the released text"
        )
    same, message = cross_check(samples)
    print(f"  parser cross-check {message}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

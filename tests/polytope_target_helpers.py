"""BART's official workbook and its outputs with their stored texts changed, for the tests of
workbooks whose Targets are not the stored outputs (issue 25): IDs, Targets and changes."""

from __future__ import annotations

import pytest

from annotation.spans.workbook import parse_error_log, read_error_log
from annotation.systems.models import SystemOutput
from scoring.metrics.spans import join_sentences
from tests.conftest import POLYTOPE_OUTPUTS, SHARED_DATA

BART_WORKBOOK = (
    SHARED_DATA
    / "polytope-release"
    / "outputs_with_human_annotation"
    / "Human_Annotation_Summarization_BART.xlsm"
)
needs_bart_workbook = pytest.mark.skipif(
    not (POLYTOPE_OUTPUTS.is_dir() and BART_WORKBOOK.is_file()),
    reason=f"{POLYTOPE_OUTPUTS} or {BART_WORKBOOK} is absent (the PolyTope release)",
)


def workbook_targets() -> dict[str, str]:
    """Each segment's Target (white space normalised), by ID, read off the workbook itself."""
    parsed = parse_error_log(read_error_log(BART_WORKBOOK, name="bart.xlsm"), system="bart")
    return {group.id: group.target for group in parsed.groups}


def set_text(output: SystemOutput, sentences: list[str]) -> None:
    """Change an output's stored text, as another release of the same summary would hold it."""
    SystemOutput.objects.filter(pk=output.pk).update(sentences=sentences)


def change_outputs(outputs: dict[str, SystemOutput]) -> dict[str, tuple[str, SystemOutput]]:
    """Extend four stored outputs, truncate three, alter three; returns ID -> (how, output)."""
    changed: dict[str, tuple[str, SystemOutput]] = {}
    ids = list(outputs)
    for segment in ids[:4]:  # the release's text runs on past the Target, as TextRank's does
        output = outputs[segment]
        set_text(output, [*output.sentences, "and the release 's text runs on past the"])
        changed[segment] = ("prefix", output)
    several = [s for s in ids[4:] if len(outputs[s].sentences) >= 2]
    for segment in several[:3]:  # the stored summary stops a sentence before the Target
        output = outputs[segment]
        set_text(output, output.sentences[:-1])
        changed[segment] = ("longer", output)
    # IDs b0-10 ... b383-10 name no document (they are not trials): these are placed by their
    # words alone.
    rest = [s for s in ids[4:] if s not in changed and s.startswith("b")]
    for step, segment in zip((2, 3, 12), rest[:3], strict=True):
        output = outputs[segment]  # every step-th word rewritten: word overlap 0.5 to 0.92
        words = join_sentences(output.sentences).split()
        set_text(output, [" ".join("x" if i % step == 0 else w for i, w in enumerate(words))])
        changed[segment] = ("different", output)
    return changed


def bart_outputs(dataset: str) -> dict[str, SystemOutput]:
    """Each workbook ID's BART output on ``dataset`` as imported (every Target of BART's
    workbook is one stored summary of the release)."""
    by_text = {
        join_sentences(output.sentences): output
        for output in SystemOutput.objects.filter(
            system__slug="bart", document__dataset__slug=dataset
        ).select_related("document")
    }
    return {segment: by_text[target] for segment, target in sorted(workbook_targets().items())}

"""The import commands' shared reporting: refusals on stderr, the report's heading and lines."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.core.management.base import BaseCommand

from annotation.fams.models import AnnotationSet
from annotation.imports.bundle import ImportValidationError, Issue, Location
from annotation.imports.commands import import_refused, import_report_write, import_verb


def _command() -> tuple[BaseCommand, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return BaseCommand(stdout=out, stderr=err), out, err


@pytest.mark.django_db
def test_import_spans_writes_every_problem_to_stderr_and_nothing_else(demo, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"document": "demo-001", "system": "demo-abs", "errors": []}\n'
        "{not json\n"
        '{"document": "demo-001", "system": "demo-abs", "colour": 1}\n',
        encoding="utf-8",
    )
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command("import_spans", str(path), "--dataset=demo", "--set=x", stdout=out, stderr=err)
    assert str(refused.value) == (
        "Import refused: 2 problem(s) (listed above); nothing was written."
    )
    assert err.getvalue().splitlines() == [
        "  s.jsonl:2: not valid JSON: Expecting property name enclosed in double quotes (column 2)",
        "  s.jsonl:3: unknown field(s) colour (known: document, system, version, annotator, "
        "no_errors, errors, annotated_text)",
    ]
    assert out.getvalue() == ""
    assert not AnnotationSet.objects.filter(slug="x").exists()


def test_a_refusal_names_its_action_and_counts_the_problems():
    command, out, err = _command()
    issues = [
        Issue(Location("a.jsonl", 3, "doc_id"), "unknown document"),
        Issue(Location("b"), "x"),
    ]
    error = import_refused(command, ImportValidationError(issues), what="Upload")
    assert isinstance(error, CommandError)
    assert str(error) == "Upload refused: 2 problem(s) (listed above); nothing was written."
    assert err.getvalue() == "  a.jsonl:3 [doc_id]: unknown document\n  b: x\n"
    assert out.getvalue() == ""


def test_the_report_heading_counts_its_lines_or_says_there_is_none():
    command, out, _ = _command()
    import_report_write(command, [])
    import_report_write(command, ("first", "second"))
    import_report_write(command, [], unit="mapping(s)", none="no mappings")
    import_report_write(command, ["one"], unit="mapping(s)", none="no mappings")
    assert out.getvalue().splitlines() == [
        "Report: nothing.",
        "Report (2 line(s)):",
        "  first",
        "  second",
        "Report: no mappings.",
        "Report (1 mapping(s)):",
        "  one",
    ]


def test_the_verb_says_whether_anything_was_written():
    assert (import_verb(True), import_verb(False)) == ("Would import", "Imported")

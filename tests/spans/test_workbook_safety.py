"""Workbooks are data: formulas, links, macros and formula-like text are read, never run."""

import io
import zipfile

import pytest

from annotation.imports.bundle import ImportValidationError
from annotation.spans.models import SpanAnnotation
from annotation.spans.services_workbook import polytope_workbook_import
from annotation.spans.workbook import escape_text, read_error_log, unescape_text
from annotation.spans.workbook.cells import cell_text, writable_text
from annotation.spans.workbook.reader import MAX_UNPACKED_BYTES
from tests.spans.workbook_helpers import Formula, build_workbook, demo_output, row, target_of

INJECTIONS = [
    "=cmd|' /C calc'!A0",
    "+SUM(1,2)",
    "-2+3",
    "@SUM(A1)",
    "\t=1+1",
    "\r=1+1",
    "'=already quoted",
]


@pytest.mark.parametrize("text", [*INJECTIONS, "plain", "'s mother", "", "''", "-", "a=b"])
def test_escaping_is_undone_exactly_and_leaves_safe_text_alone(text):
    escaped = escape_text(text)
    assert unescape_text(escaped) == text
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") or text.startswith("'="):
        assert escaped == "'" + text
    else:
        assert escaped == text


def test_cell_text_reads_values_as_plain_text():
    import datetime as dt

    assert cell_text(None) is None
    assert cell_text(2015) == "2015" and cell_text(40000.0) == "40000" and cell_text(3.5) == "3.5"
    assert cell_text(True) == "TRUE"
    assert cell_text(dt.date(2015, 4, 1)) == "2015-04-01"
    assert cell_text("'=1+1") == "=1+1" and cell_text("'s") == "'s"


def test_text_xml_cannot_carry_is_encoded_as_excel_does_and_decoded_back():
    for text in ("a\rb", "nul\x00 bell\x07", "literal _x000D_ stays", "\r=cr", "tab\tok\n"):
        stored, cut = writable_text(text)
        assert not cut and "\r" not in stored and "\x00" not in stored
        assert cell_text(stored) == text
    assert writable_text("a\rb") == ("a_x000D_b", False)
    assert writable_text("_x0041_") == ("_x005F_x0041_", False)
    assert writable_text("=x") == ("'=x", False)
    long, cut = writable_text("x" * 40_000)
    assert cut and len(long) == 32_767 and long.endswith("\u2026")


@pytest.mark.django_db
def test_formulas_links_and_formula_like_text_are_stored_as_text(dataset):
    output = demo_output("demo-abs", "demo-001")
    target = target_of(output)
    data = build_workbook(
        [
            # A formula in Issue Words: no cached value, read as its text, never computed.
            row("x", target, "Addition", "Attribute", Formula("=1+1"), "Major"),
            # A formula that would reach another file and one that would reach the network.
            row(
                "x",
                target,
                "Addition",
                "Subject",
                Formula("='C:\\evil\\[x.xlsx]S'!A1"),
                "Critical",
                n=2,
            ),
            row(
                "x",
                target,
                "Addition",
                "Object",
                Formula('=WEBSERVICE("http://127.0.0.1:9/")'),
                "Critical",
                n=3,
            ),
            # Text cells that a spreadsheet would run if it took them for formulas.
            *[
                row("x", target, "Addition", "Whole Sentence", text, "Major", n=4 + i, reason=text)
                for i, text in enumerate(INJECTIONS[:4])
            ],
        ]
    )
    result = polytope_workbook_import(
        dataset=dataset, system_slug="demo-abs", source=data, filename="book.xlsx"
    )
    errors = SpanAnnotation.objects.get(output=output).errors
    assert [error["words"] for error in errors] == [
        "=1+1",
        "='C:\\evil\\[x.xlsx]S'!A1",
        '=WEBSERVICE("http://127.0.0.1:9/")',
        *INJECTIONS[:4],
    ]
    assert [error["reason"] for error in errors[3:]] == INJECTIONS[:4]
    assert all(error["side"] == "none" for error in errors)
    assert result.errors == 7


def _with_member(data: bytes, name: str, content: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in source.infolist():
            archive.writestr(item, source.read(item.filename))
        archive.writestr(name, content)
    return buffer.getvalue()


def test_a_macro_part_is_dropped_unread():
    data = build_workbook([row("x", "A summary.", severity="No errors")])
    # An .xlsm's VBA project (here bytes that would be a macro module) rides along unopened.
    macro = _with_member(data, "xl/vbaProject.bin", b'Attribute VB_Name = "Module1"\nShell "calc"')
    sheet = read_error_log(macro, name="Human_Annotation_X.xlsm")
    assert [row.values["id"] for row in sheet.rows] == ["x"]


def test_a_zip_bomb_is_refused_before_it_is_unpacked():
    buffer = io.BytesIO()
    chunk = bytes(1024 * 1024)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/workbook.xml", b"<workbook/>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            for _ in range(MAX_UNPACKED_BYTES // len(chunk) + 1):
                member.write(chunk)
    data = buffer.getvalue()
    assert len(data) < 2 * 1024 * 1024  # a small file ...
    with pytest.raises(ImportValidationError) as refused:
        read_error_log(data, name="bomb.xlsx")
    (issue,) = refused.value.issues
    assert str(issue) == (
        f"bomb.xlsx: unpacks to {MAX_UNPACKED_BYTES + len(chunk) + 11:,} bytes, more than the "
        f"{MAX_UNPACKED_BYTES:,} a workbook may (a zip bomb?)"
    )

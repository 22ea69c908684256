"""Helpers for the leaderboard browser tests: partial uploads, the page's table against the API."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal

from playwright.sync_api import expect

DEFAULT_COLUMNS = ("far", "sar", "sap", "saf1", "rouge1_f", "rouge2_f", "rougeL_f", "rougeLsum_f")


def partial_upload(dataset, tmp_path, lines: list[dict], *, accept_low_confidence=False):
    """Upload a new version of Lead-3's outputs covering only some documents."""
    from annotation.imports.bundle import SystemRecord
    from annotation.systems.models import OutputVersion
    from scoring.uploads.services import system_output_import

    path = tmp_path / "lead-3.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    system = SystemRecord(slug="lead-3", name="Lead-3", kind="extractive")
    system_output_import(
        dataset=dataset,
        system=system,
        source=path,
        accept_low_confidence=accept_low_confidence,
    )
    return OutputVersion.objects.filter(dataset=dataset, system__slug="lead-3").latest("number")


def fixed(value: float, places: int) -> str:
    """JS's ``value.toFixed(places)``: the exact double, halves rounded away from zero."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def x100(value) -> str:
    """What the pages show for a fraction: x100 with one decimal, or a dash."""
    return "—" if value is None else fixed(value * 100, 1)


def api(page, base: str, path: str) -> dict:
    response = page.request.get(f"{base}{path}")
    assert response.ok, response.text()
    return response.json()


def table_rows(page) -> list[dict]:
    """The leaderboard table as the page draws it: system, documents and every score cell."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#lb-table tbody tr[data-system]')].map((tr) => ({
            system: tr.dataset.system,
            cells: Object.fromEntries([...tr.querySelectorAll('td[data-metric]')].map((td) => [
                td.dataset.metric,
                [td.querySelector('.mean')?.textContent ?? td.textContent,
                 td.querySelector('.ci')?.textContent ?? null],
            ])),
            sig: tr.querySelector('td.sig').textContent,
        }))"""
    )


def assert_table_matches(page, envelope: dict, columns=DEFAULT_COLUMNS) -> None:
    rows = table_rows(page)
    assert [r["system"] for r in rows] == [s["system"] for s in envelope["systems"]]
    for row, expected in zip(rows, envelope["systems"], strict=True):
        assert row["cells"]["n_documents"][0] == str(expected["n_documents"])
        for metric in columns:
            if metric not in envelope["metrics"]:
                assert metric not in row["cells"]
                continue
            cell = expected[metric]
            if cell is None:
                assert row["cells"][metric] == ["—", None], (row["system"], metric)
            else:
                ci = f"{x100(cell['ci_low'])}–{x100(cell['ci_high'])}"
                assert row["cells"][metric] == [x100(cell["mean"]), ci], (row["system"], metric)
        test = expected["vs_next"]
        if test and test["p_value"] is not None:
            assert ("✱ significant" if test["significant"] else "n.s.") in row["sig"]
            assert f"n = {test['n']}" in row["sig"]
        elif test:
            assert test["reason"] in row["sig"]


def wait_query(page, query: str) -> None:
    """Wait until the table shows the leaderboard for exactly this API query."""
    expect(page.locator("#lb-table")).to_have_attribute("data-query", query)
    expect(page.locator("#leaderboard")).to_have_attribute("aria-busy", "false")


def overall_study(board, tmp_path) -> None:
    """A per-document study of the demo's three systems, named ``overall``."""
    from scoring.judgments.services import human_judgments_import

    ratings = {"lead-3": 2.0, "demo-extsum": 3.5, "demo-abs": 4.0}
    path = tmp_path / "overall.jsonl"
    lines = [
        {"system": system, "doc_id": f"demo-00{d}", "score": value + d / 10}
        for system, value in ratings.items()
        for d in range(1, 7)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    human_judgments_import(dataset=board.dataset, name="overall", source=path, filename=path.name)

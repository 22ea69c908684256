"""The bias API, its plots and pages; the PolyTope release's references and ten systems."""

from __future__ import annotations

import re

import pytest

from annotation.systems.models import System, SystemKind
from scoring.bias.models import BiasRun, RunStatus
from scoring.bias.services import bias_run_inline
from tests.conftest import POLYTOPE_OUTPUTS, needs_polytope


def _values(svg: str, mark: str, attribute: str) -> dict[str, float]:
    """``data-system`` -> float(``attribute``) of every ``<mark class=...>`` element."""
    found = {}
    for tag in re.findall(rf"<{mark} [^>]*>", svg):
        system = re.search(r'data-system="([^"]*)"', tag)
        value = re.search(rf'{attribute}="([^"]*)"', tag)
        if system and value:
            found.setdefault(system.group(1), float(value.group(1)))
    return found


@pytest.mark.django_db
def test_read_compute_and_reuse_through_the_api(storm, client_for):
    researcher = client_for("researcher")
    url = "/api/datasets/storm/bias/"
    empty = researcher.get(url).json()
    assert (empty["status"], empty["rows"], empty["run"]) == ("none", [], None)
    assert empty["stale"] is False
    assert client_for("annotator").get(url).status_code == 403
    assert client_for(None).get(url).status_code in (401, 403)
    started = researcher.post(url)
    assert started.status_code == 202 and started.json()["status"] == "queued"
    # A second click while it waits is refused naming the waiting run (409), not a second run.
    again = researcher.post(url)
    assert again.status_code == 409 and again.json()["extra"]["run"] == started.json()["run"]["id"]
    assert BiasRun.objects.count() == 1
    bias_run_inline(run=BiasRun.objects.get(pk=started.json()["run"]["id"]))
    data = researcher.get(url).json()
    assert data["status"] == "succeeded" and data["stale"] is False
    assert [r["source"] for r in data["rows"]] == ["reference", "abs", "lead-1"]
    abs_row = data["rows"][1]
    assert abs_row["version"] == 2 and abs_row["coverage"] == pytest.approx(8 / 9)
    assert abs_row["density"] == pytest.approx(34 / 9)
    assert abs_row["novel"] == pytest.approx([1 / 8, 2 / 8, 3 / 7, 4 / 6])
    assert data["meta"]["pairs"] == {"reference": 2, "abs": 1, "lead-1": 2}
    # Nothing changed: 200 with the same figures, no new run.
    again = researcher.post(url)
    assert again.status_code == 200 and again.json()["computed_by"]["id"] == data["run"]["id"]
    assert BiasRun.objects.count() == 1
    # A public dataset's figures are anyone's.
    storm.public = True
    storm.save()
    assert client_for(None).get(url).json()["rows"] == data["rows"]
    assert client_for(None).post(url).status_code in (401, 403)


@pytest.mark.django_db
def test_plots_carry_the_rows_values(storm, client_for):
    researcher = client_for("researcher")
    assert "No data" in researcher.get("/api/datasets/storm/bias/plots/novel.svg").content.decode()
    run = bias_run_inline(run=BiasRun.objects.create(dataset=storm, trigger="manual"))
    assert run.status == RunStatus.SUCCEEDED
    rows = {r["source"]: r for r in researcher.get("/api/datasets/storm/bias/").json()["rows"]}
    novel = researcher.get("/api/datasets/storm/bias/plots/novel.svg")
    assert novel.status_code == 200 and novel["Content-Type"] == "image/svg+xml"
    svg = novel.content.decode()
    # one bar per source and order; the 1-gram group comes first
    assert _values(svg, "rect", "data-value") == {s: r["novel"][0] for s, r in rows.items()}
    assert svg.count('data-category="4-grams"') == 3
    scatter = researcher.get("/api/datasets/storm/bias/plots/abstractiveness.svg").content.decode()
    assert _values(scatter, "circle", "data-x") == {s: r["coverage"] for s, r in rows.items()}
    assert _values(scatter, "circle", "data-y") == {s: r["novel"][1] for s, r in rows.items()}
    positions = researcher.get("/api/datasets/storm/bias/plots/positions.svg").content.decode()
    # abs: 5 of its 8 copied tokens in the first tenth (by hand, README's worked example)
    first = _values(positions, "rect", "data-value")
    assert first["abs"] == pytest.approx(5 / 8)
    assert 'data-category="0.5-0.6"' in positions
    assert researcher.get("/api/datasets/storm/bias/plots/nope.svg").status_code == 404
    annotator = client_for("annotator")
    assert annotator.get("/api/datasets/storm/bias/plots/novel.svg").status_code == 403


@pytest.mark.django_db
def test_pages_carry_the_panel_and_the_links(storm, client_for, users, client):
    client.force_login(users["researcher"])
    page = client.get("/leaderboards/storm/bias/").content.decode()
    assert 'id="bias-panel" data-slug="storm" data-can-compute="1"' in page
    assert re.search(r"loupe/bias\.(\w+\.)?js", page) and 'id="bias-compute"' in page
    assert 'href="/leaderboards/storm/bias/"' in client.get("/leaderboards/storm/").content.decode()
    client.force_login(users["admin"])
    manage = client.get("/manage/datasets/storm/").content.decode()
    assert 'id="bias-panel" data-slug="storm"' in manage
    assert re.search(r"loupe/bias\.(\w+\.)?js", manage)
    client.force_login(users["annotator"])
    assert client.get("/leaderboards/storm/bias/").status_code == 403


@pytest.mark.shared
@needs_polytope
@pytest.mark.django_db
def test_polytope_references_and_ten_systems(client_for):
    from annotation.corpus.services import dataset_import

    dataset_import(format_name="polytope-release", source=POLYTOPE_OUTPUTS, slug="polytope")
    run = BiasRun.objects.get(dataset__slug="polytope", status=RunStatus.QUEUED)  # the import's
    assert run.trigger == "import"
    run = bias_run_inline(run=run, chunk_size=40)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.chunks_total == 4 and run.documents_total == 150
    data = client_for("researcher").get("/api/datasets/polytope/bias/").json()
    kinds = dict(System.objects.values_list("slug", "kind"))
    rows = {row["source"]: row for row in data["rows"]}
    assert list(rows) == ["reference", *sorted(kinds)] and len(kinds) == 10
    assert rows["reference"]["n_items"] == 150
    extractive = [slug for slug, kind in kinds.items() if kind == SystemKind.EXTRACTIVE]
    assert "lead-3" in extractive and len(extractive) >= 3
    for slug in extractive:  # whole document sentences: (almost) nothing novel
        assert rows[slug]["novel"][0] < 0.01 and rows[slug]["novel"][1] < 0.02, slug
    densities = {source: row["density"] for source, row in rows.items()}
    assert max(densities, key=densities.get) == "lead-3", densities
    for slug in extractive:
        assert rows["reference"]["novel"][1] > rows[slug]["novel"][1]
    # The stored run gives the command's figures (the same pairs, summed in chunks).
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("bias", "--dataset", "polytope", "--format", "json", stdout=out)
    import json

    direct = {row["source"]: row for row in json.loads(out.getvalue())["rows"]}
    for source, row in rows.items():
        for key in ("coverage", "density", "compression", "copy_length", "fusion"):
            assert row[key] == pytest.approx(direct[source][key], rel=1e-9), (source, key)
        assert row["novel"] == pytest.approx(direct[source]["novel"], rel=1e-9)
    svg = client_for("researcher").get("/api/datasets/polytope/bias/plots/novel.svg")
    assert set(_values(svg.content.decode(), "rect", "data-value")) == set(rows)

"""The bias plots of eleven sources (the references and ten systems, as in the PolyTope
release): one colour per source, a system's the leaderboard's, and scatter labels that never
pile up (a legend names the points whose label would not fit)."""

from __future__ import annotations

import itertools

import pytest

from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import System, SystemKind
from scoring.bias.models import BiasRun, RunStatus
from scoring.bias.plots import PLOTS
from scoring.bias.services import bias_run_inline
from scoring.leaderboards.selectors.board import leaderboard_colours
from tests.bias.conftest import add_output
from tests.plot_helpers import NS, by_class, mark_box, parse

DOCUMENTS = [
    [
        "The council voted on Tuesday to turn the old depot into a library.",
        "The plan ends a four-year dispute over the site.",
        "Building will cost about four million euros.",
        "Work starts next spring and takes eighteen months.",
    ],
    [
        "Heavy rain closed three roads in the valley overnight.",
        "Two villages were cut off until the water fell.",
        "No one was hurt, the police said.",
        "The roads reopened on Friday morning.",
    ],
]
# Five extractive systems (whole document sentences: coverage 1, nothing novel, so their
# points coincide) and five abstractive ones.
EXTRACTIVE = {
    "lead-3": [[0, 1, 2], [0, 1, 2]],
    "banditsum": [[0, 2], [0, 1]],
    "neusum": [[0, 1], [0, 2]],
    "refresh": [[0, 3], [1, 2]],
    "unifiedsum-e": [[1, 2], [0, 3]],
}
ABSTRACTIVE = {
    "bart": ["The council will turn a depot into a library.", "Rain closed three roads."],
    "pegasus": ["A depot becomes a library after a long dispute.", "Floods cut off villages."],
    "bottom-up": ["The council voted to build a new library.", "Roads closed after heavy rain."],
    "fast-abs-rl": ["Council votes on library plan.", "Two villages cut off by rain."],
    "pointer-generator": ["The old depot will be a library.", "The roads reopened on Friday."],
}


@pytest.fixture
def eleven(db):
    """A dataset with references and the ten systems' outputs, its bias run computed."""
    dataset = Dataset.objects.create(slug="eleven", name="Eleven")
    documents = []
    for position, sentences in enumerate(DOCUMENTS):
        document = Document.objects.create(
            dataset=dataset, external_id=f"e{position}", position=position, sentences=sentences
        )
        Reference.objects.create(document=document, position=0, sentences=[sentences[0][:40]])
        documents.append(document)
    for slug, picks in EXTRACTIVE.items():
        system = System.objects.create(slug=slug, name=slug, kind=SystemKind.EXTRACTIVE)
        for document, chosen in zip(documents, picks, strict=True):
            add_output(system, dataset, document, 1, [document.sentences[i] for i in chosen])
    for slug, texts in ABSTRACTIVE.items():
        system = System.objects.create(slug=slug, name=slug, kind=SystemKind.ABSTRACTIVE)
        for document, summary in zip(documents, texts, strict=True):
            add_output(system, dataset, document, 1, [summary])
    run = bias_run_inline(run=BiasRun.objects.create(dataset=dataset, trigger="manual"))
    assert run.status == RunStatus.SUCCEEDED, run.error
    return dataset


def _plot(client, name: str):
    response = client.get(f"/api/datasets/eleven/bias/plots/{name}.svg")
    assert response.status_code == 200
    return parse(response.content.decode())


def _mark_colours(root) -> dict[str, set[str]]:
    """Per source, the fills of its bars, points and legend swatches."""
    found: dict[str, set[str]] = {}
    marks = by_class(root, "rect", "bar") + by_class(root, "circle", "point")
    for item in by_class(root, "g", "legend-item"):
        marks += [(item.get("data-system"), rect) for rect in item if rect.tag.endswith("rect")]
    for mark in marks:
        source, element = mark if isinstance(mark, tuple) else (mark.get("data-system"), mark)
        found.setdefault(source, set()).add(element.get("fill"))
    return found


def test_eleven_sources_get_eleven_colours_and_a_system_the_leaderboards(eleven, client_for):
    researcher = client_for("researcher")
    seen: dict[str, set[str]] = {}
    for name in PLOTS:
        for source, colours in _mark_colours(_plot(researcher, name)).items():
            seen.setdefault(source, set()).update(colours)
    assert len(seen) == 11 and "reference" in seen
    assert all(len(colours) == 1 for colours in seen.values()), seen
    drawn = {source: colours.pop() for source, colours in seen.items()}
    assert len(set(drawn.values())) == 11, drawn
    board = leaderboard_colours(dataset=eleven)
    assert {source: drawn[source] for source in board} == board


def test_scatter_labels_never_overlap_and_every_point_is_named(eleven, client_for):
    root = _plot(client_for("researcher"), "abstractiveness")
    points = {p.get("data-system") for p in by_class(root, "circle", "point")}
    assert len(points) == 11
    labels = by_class(root, "text", "point-label")
    boxes = [(label.get("data-system"), mark_box(label)) for label in labels]
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
        height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
        assert width <= 0 or height <= 0, (a, b, box_a, box_b)
    # A point without its label is named in the legend (in its colour).
    legend = {item.get("data-system") for item in by_class(root, "g", "legend-item")}
    labelled = {source for source, _ in boxes}
    assert points <= labelled | legend, points - labelled - legend
    # The extractive systems' points coincide: their labels cannot all sit beside them.
    assert legend, "five coinciding points were all labelled"


def _overlap(box_a, box_b, gap: float = 0.0) -> bool:
    """Whether two boxes overlap or come closer than ``gap`` in both directions."""
    width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
    height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
    return width > -gap and height > -gap


@pytest.mark.parametrize("name", ["novel", "positions"])
def test_bar_numbers_of_eleven_sources_never_run_together(eleven, client_for, name):
    """No bar number, category label or note touches another (at least 2 units apart), and
    a bar's number, when drawn, stands centred under its own bar; the novel plot (four groups,
    room for them) numbers every bar, a number read in a <title> too."""
    root = _plot(client_for("researcher"), name)
    texts = [
        t for cls in ("bar-number", "category-label", "note") for t in by_class(root, "text", cls)
    ]
    boxes = [("".join(t.itertext()), mark_box(t)) for t in texts]
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        assert not _overlap(box_a, box_b, gap=2.0), (a, b, box_a, box_b)
    bars = by_class(root, "rect", "bar")
    legend = [item.get("data-system") for item in by_class(root, "g", "legend-item")]
    centres = [
        (float(bar.get("x")) + float(bar.get("width")) / 2, legend.index(bar.get("data-system")))
        for bar in bars
    ]
    numbers = by_class(root, "text", "bar-number")
    for number in numbers:
        x = float(number.get("x"))
        centre, index = min(centres, key=lambda pair: abs(pair[0] - x))
        assert abs(centre - x) < 0.02 and index + 1 == int(number.text), (number.text, x)
    if name == "novel":
        assert len(numbers) == len(bars) == 44
        for bar in bars:
            number = legend.index(bar.get("data-system")) + 1
            assert bar.find(f"{NS}title").text.startswith(f"{number}. "), bar.get("data-system")

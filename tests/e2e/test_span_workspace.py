"""The PolyTope span workspace end to end (Playwright, Debian's Chromium): errors marked with
the keyboard alone (one an Omission in the source) with the live score, found again after a
reload; the mouse, overlapping spans, editing and deleting from the list, "no errors", submit
and the next item; two tabs and the 409; offline edits that reach the server; the help; the
word count's port to JS against the Python core; offsets past characters outside the BMP;
screenshots at 1280x800 (in var/artifacts)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.metrics.polytope import Issue, Segment, count_words, score_segment
from scoring.metrics.spans import join_sentences
from tests.e2e.helpers import (
    ARTIFACTS,
    eventually,
    login,
    pending_copies,
    requests_held,
    wait_saved,
)

pytestmark = pytest.mark.django_db(transaction=True)

DOCUMENT = "demo-001"
SYSTEM = "demo-abs"
STATE_MODULE = "/static/loupe/span-state.js"


@pytest.fixture
def span_world(live_server, no_celery):
    """``span_world()``: the demo and a PolyTope campaign over demo-abs and lead-3 on two
    documents, every item assigned to the demo annotator (system-blind, the default).

    Returns {(document, system): Task}. ``summary`` replaces demo-abs's summary of demo-001
    (its sentences) before the campaign pins it; ``text_missing`` marks demo-001 as a document
    whose release has no article text.
    """

    def make(*, summary: list[str] | None = None, text_missing: bool = False) -> dict:
        from django.contrib.auth.models import Group

        from annotation.accounts.roles import ROLES
        from annotation.campaigns.models import Task
        from annotation.campaigns.services import polytope_campaign_create, tasks_assign_manual
        from annotation.corpus.demo import demo_load
        from annotation.corpus.models import Dataset, Document
        from annotation.systems.models import SystemOutput

        for role in ROLES:  # made by a data migration, gone after an earlier test's flush
            Group.objects.get_or_create(name=role)
        demo_load()
        dataset = Dataset.objects.get(slug="demo")
        if summary is not None:
            SystemOutput.objects.filter(system__slug=SYSTEM, document__external_id=DOCUMENT).update(
                sentences=summary
            )
        if text_missing:  # as a release without article text marks its documents
            document = Document.objects.get(dataset=dataset, external_id=DOCUMENT)
            document.meta = {**document.meta, "text_missing": True}
            document.save(update_fields=["meta"])
        documents = [DOCUMENT, "demo-002"]
        campaign = polytope_campaign_create(
            dataset=dataset,
            slug="e2e-pt",
            name="PolyTope e2e",
            systems=[SYSTEM, "lead-3"],
            documents=documents,
        )
        tasks_assign_manual(campaign=campaign, assignments=[(d, "annotator") for d in documents])
        rows = Task.objects.filter(campaign=campaign).select_related(
            "document", "output__system", "campaign"
        )
        return {(t.document.external_id, t.output.system.slug): t for t in rows}

    return make


def open_item(page, url: str, task) -> None:
    """Open a PolyTope item and wait until the page has drawn its summary."""
    page.goto(f"{url}/tasks/{task.pk}/")
    page.wait_for_selector("#workspace[aria-busy=false] #summary .w")


def item_page(context, url: str, task):
    """A new page, logged in as the demo annotator, showing the item."""
    page = context.new_page()
    login(page, url)
    open_item(page, url, task)
    return page


def task_body(page, url: str, task) -> dict:
    """The task's body as the server holds it (GET /api/tasks/<id>/ with the page's session)."""
    response = page.request.get(f"{url}/api/tasks/{task.pk}/")
    assert response.ok, response.text()
    return response.json()


def press(page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def texts(task) -> tuple[str, str]:
    """The item's summary and source as the offsets index them."""
    return join_sentences(task.output.sentences), join_sentences(task.document.sentences)


def spanned(text: str, words: str, side: str = "summary") -> dict:
    """Where ``words`` first occur in ``text``: the side and the offsets (worked out here)."""
    start = text.index(words)
    return {"side": side, "start": start, "end": start + len(words), "words": words}


def marked(errors: list[dict]) -> list[tuple]:
    """The server's errors as (side, start, end, words, type, label, severity) tuples."""
    keys = ("side", "start", "end", "words", "type", "label", "severity")
    return [tuple(error[k] for k in keys) for error in errors]


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def test_three_errors_by_keyboard_alone_with_the_live_score_and_after_a_reload(
    context, span_world, live_server
):
    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    summary, source = texts(task)
    page = item_page(context, live_server.url, task)
    words = count_words(summary)
    expect(page.locator("#score-value")).to_have_text("—")  # not annotated yet
    expect(page.locator("#campaign-line")).to_contain_text(f"{words} words")
    expect(page.locator("#campaign-line")).to_contain_text("system hidden")

    # 1. "six to three" (words 4-6): the caret starts on word 1; l moves, L extends.
    press(page, "l", "l", "l", "L", "L")
    expect(page.locator("#sel-line")).to_contain_text("“six to three” in the summary")
    one = score_segment(
        Segment("s", summary), [Issue("s", "Inaccuracy Intrinsic", "Number & Time")]
    )
    # The score is live: computed in the page while the save is still held back.
    with requests_held(page, f"**/api/tasks/{task.pk}/spans/"):
        press(page, "Enter", "3")  # Inaccuracy Intrinsic
        # The label menu shows each label's severity from the matrix before anything is chosen.
        expect(page.locator("#menu-options button").nth(3)).to_contain_text("Number & Time")
        expect(page.locator("#menu-options button").nth(3)).to_contain_text("Critical")
        expect(page.locator("#menu-options button").nth(7)).to_contain_text("N/A")
        press(page, "4")  # Number & Time: Critical
        expect(page.locator("#errors li.err")).to_have_count(1)
        expect(page.locator("#score-value")).to_have_text(f"{one.score:.2f}")
        expect(page.locator("#save-state")).to_have_text("Saving…")

    # 2. "mainly" (j: the next sentence, then nine words on). An N/A pair is refused first,
    # with the matrix's reason, before anything is saved.
    press(page, "j", *["l"] * 9)
    expect(page.locator("#sel-line")).to_contain_text("“mainly”")
    press(page, "Enter", "5")  # Positive-Negative Aspect
    press(page, "1")  # Subject: N/A
    expect(page.locator("#menu-note")).to_contain_text("Not allowed")
    expect(page.locator("#menu-note")).to_contain_text("N/A in the official severity matrix")
    expect(page.locator("#errors li.err")).to_have_count(1)
    press(page, "Escape", "1", "6")  # back to the subtype: Addition / Attribute (Major)

    # 3. An Omission in the source: s switches the caret there; j j reaches sentence 3. A
    # summary-only subtype is refused there, saying where it is marked.
    press(page, "s", "j", "j", "L", "L")
    expect(page.locator("#sel-line")).to_contain_text("“Mayor Odile Penhallow” in the source")
    press(page, "Enter", "1")
    expect(page.locator("#menu-note")).to_contain_text("marked in the summary")
    press(page, "2", "5")  # Omission / Place & Name (Major)
    expect(page.locator("#errors li.err")).to_have_count(3)
    wait_saved(page)
    shot(page, "span-workspace-three-errors.png")

    # The live score is the core's for these three errors, before and after the reload.
    issues = [
        Issue("s", "Inaccuracy Intrinsic", "Number & Time"),
        Issue("s", "Addition", "Attribute"),
        Issue("s", "Omission", "Place & Name"),
    ]
    core = score_segment(Segment("s", summary), issues)
    assert (core.words, core.critical, core.major, core.minor) == (words, 1, 2, 0)
    detail = f"{words} words · penalty {core.penalty:g} · 1 critical · 2 major · 0 minor"
    expected = [
        (
            *spanned(summary, "six to three").values(),
            "Inaccuracy Intrinsic",
            "Number & Time",
            "Critical",
        ),
        (*spanned(summary, "mainly").values(), "Addition", "Attribute", "Major"),
        (
            *spanned(source, "Mayor Odile Penhallow", "source").values(),
            "Omission",
            "Place & Name",
            "Major",
        ),
    ]
    body = task_body(page, live_server.url, task)
    assert marked(body["spans"]["errors"]) == expected
    assert body["score"]["score"] == pytest.approx(core.score)
    for reloaded in (False, True):
        if reloaded:
            page.reload()
            page.wait_for_selector("#workspace[aria-busy=false] #summary .w")
        expect(page.locator("#score-value")).to_have_text(f"{core.score:.2f}")
        expect(page.locator("#score-detail")).to_have_text(detail)
        items = page.locator("#errors li.err")
        expect(items).to_have_count(3)
        expect(items.nth(0)).to_contain_text("Inaccuracy Intrinsic / Number & Time")
        expect(items.nth(0)).to_contain_text("“six to three” in the summary")
        expect(items.nth(1)).to_contain_text("Addition / Attribute")
        expect(items.nth(2)).to_contain_text("“Mayor Odile Penhallow” in the source")
        # Highlighted in both texts; the severity as a tag (text) and a line style, not colour.
        expect(page.locator("#summary .etag")).to_have_text(["1 C", "2 M"])
        expect(page.locator("#source .etag")).to_have_text(["3 M"])
        expect(page.locator("#summary .bar.sev-critical")).to_have_count(5)  # 3 words, 2 spaces
        expect(page.locator("#source .bar.sev-major")).to_have_count(5)  # 3 words, 2 spaces
    shot(page, "span-workspace-reloaded.png")


def test_mouse_overlaps_edit_delete_no_errors_submit_and_next(context, span_world, live_server):
    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    summary, _ = texts(task)
    page = item_page(context, live_server.url, task)
    word = lambda i: page.locator(f"#summary .w[data-w='{i}']")  # noqa: E731

    # The mouse: a click and a shift-click select "six to three"; the menu is keyed as ever.
    word(3).click()
    word(5).click(modifiers=["Shift"])
    press(page, "Enter", "3", "4")
    wait_saved(page)  # version 2: this error alone
    # A drag over "three to turn" overlaps it: two lanes of underlines where they meet.
    word(5).hover()
    page.mouse.down()
    word(7).hover()
    page.mouse.up()
    expect(page.locator("#sel-line")).to_contain_text("“three to turn”")
    press(page, "Enter", "6", "1")  # Word Order / Subject is N/A ...
    expect(page.locator("#menu-note")).to_contain_text("Not allowed")
    press(page, "3")  # ... Predicate: Major
    expect(page.locator("#errors li.err")).to_have_count(2)
    three = page.locator("#summary .w[data-w='5'] .pc")
    expect(three.locator(".bar")).to_have_count(2)
    expect(three.locator(".bar.lane-0")).to_have_count(1)
    expect(three.locator(".bar.lane-1")).to_have_count(1)
    wait_saved(page)
    shot(page, "span-workspace-overlap.png")

    # 0 is refused while errors are marked, and says why.
    press(page, "0")
    expect(page.locator("#flash")).to_contain_text("delete them first")
    # The error just marked is the current one: e changes its subtype and label, r its reason.
    expect(page.locator("#errors li.err.current")).to_contain_text("Word Order / Predicate")
    press(page, "e", "7", "3")  # Duplication / Predicate: Major
    expect(page.locator("#errors li.err.current")).to_contain_text("Duplication / Predicate")
    press(page, "r")
    page.keyboard.type("the verb repeats")
    press(page, "Enter")
    wait_saved(page)
    errors = task_body(page, live_server.url, task)["spans"]["errors"]
    assert [(e["type"], e["label"], e["words"], e["reason"]) for e in errors] == [
        ("Inaccuracy Intrinsic", "Number & Time", "six to three", ""),
        ("Duplication", "Predicate", "three to turn", "the verb repeats"),
    ]
    # x deletes the current error, twice; then 0 marks the summary clean.
    press(page, "x", "[", "x")
    expect(page.locator("#errors li.err")).to_have_count(0)
    press(page, "0")
    expect(page.locator("#clean-note")).to_be_visible()
    expect(page.locator("#score-value")).to_have_text("100.00")
    wait_saved(page)
    spans = task_body(page, live_server.url, task)["spans"]
    assert (spans["errors"], spans["no_errors"]) == ([], True)

    # The history lists every version with what changed (v opens it); an older one comes back
    # as a new version.
    press(page, "v")
    revisions = page.locator("#history-list > li")
    expect(revisions).to_have_count(spans["version"] - 1)
    expect(revisions.first).to_contain_text("marked as having no errors")
    expect(revisions.last).to_contain_text("added Inaccuracy Intrinsic / Number & Time")
    revisions.last.locator("button").focus()
    press(page, "Enter")
    expect(page.locator("#errors li.err")).to_have_count(1)
    expect(page.locator("#clean-note")).to_be_hidden()
    wait_saved(page)
    press(page, "Escape")
    expect(page.locator("#history")).to_be_hidden()
    spans = task_body(page, live_server.url, task)["spans"]
    assert ([e["words"] for e in spans["errors"]], spans["no_errors"]) == (["six to three"], False)

    # Ctrl+Enter submits; n goes to the next item of the queue. Items are document-major, so
    # after the first item of demo-001 comes its other system's summary (its source is read
    # once), after the second the first of demo-002. Which system comes first is the
    # campaign's seeded shuffle (system-blind), so the place is read, not assumed.
    press(page, "Control+Enter")
    expect(page.locator("#banner-text")).to_have_text("Submitted. Reopen it to make changes.")
    body = task_body(page, live_server.url, task)
    place, following = body["item"]["position"], body["next_task"]
    assert place in (1, 2)
    press(page, "n")
    try:
        page.wait_for_url(f"{live_server.url}/tasks/{following}/")
    except Exception as error:  # say what the page said instead of moving on
        raise AssertionError(
            f"n did not open item {following}: the page is at {page.url}, its flash says "
            f"{page.locator('#flash').text_content()!r}, its indicator "
            f"{page.locator('#save-state').text_content()!r}"
        ) from error
    page.wait_for_selector("#workspace[aria-busy=false] #summary .w")
    expected = DOCUMENT if place == 1 else "demo-002"
    expect(page.locator("#doc-title")).to_have_text(
        f"Document {expected} · summary {place + 1} of 4"
    )
    # Submitting an item with nothing marked is refused with the reason.
    press(page, "Control+Enter")
    expect(page.locator("#flash")).to_contain_text("Nothing is marked yet")


def test_two_tabs_get_the_conflict_and_choose(context, span_world, live_server):
    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    summary, _ = texts(task)
    first = item_page(context, live_server.url, task)
    second = context.new_page()
    open_item(second, live_server.url, task)
    expect(first.locator("#presence")).to_contain_text("also open in another tab")

    # Tab 1 saves "Brindlemere" first (version 2); tab 2, still on version 1, saves "councillors".
    press(first, "Enter", "4", "5")
    wait_saved(first)
    second.bring_to_front()
    press(second, "l", "Enter", "1", "1")
    expect(second.locator("#conflict")).to_be_visible()
    expect(second.locator("#save-state")).to_have_text("Conflict")
    expect(second.locator("#conflict-server li")).to_have_text(
        ['Inaccuracy Extrinsic / Place & Name · Critical · "Brindlemere" (summary)']
    )
    expect(second.locator("#conflict-mine li")).to_have_text(
        ['Addition / Subject · Critical · "councillors" (summary)']
    )
    shot(second, "span-workspace-conflict.png")
    # Edits wait for the choice; Esc does not dismiss it; Enter keeps mine (the focused button).
    press(second, "Escape")
    expect(second.locator("#conflict")).to_be_visible()
    press(second, "Enter")
    expect(second.locator("#conflict")).to_be_hidden()
    wait_saved(second)
    spans = task_body(second, live_server.url, task)["spans"]
    assert spans["version"] == 3
    assert [e["words"] for e in spans["errors"]] == ["councillors"]

    # Tab 1 edits on version 2: its conflict, and this time it takes the server's list.
    first.bring_to_front()
    press(first, "x")
    expect(first.locator("#conflict")).to_be_visible()
    press(first, "Tab", "Enter")  # Take the server's
    expect(first.locator("#conflict")).to_be_hidden()
    wait_saved(first)
    expect(first.locator("#errors li.err")).to_have_count(1)
    expect(first.locator("#errors li.err")).to_contain_text("“councillors”")
    spans = task_body(first, live_server.url, task)["spans"]
    assert (spans["version"], [e["words"] for e in spans["errors"]]) == (3, ["councillors"])
    assert summary.index("councillors") == spans["errors"][0]["start"]


def test_offline_edits_reach_the_server_when_the_connection_returns(
    context, span_world, live_server
):
    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    summary, _ = texts(task)
    page = item_page(context, live_server.url, task)

    # Offline: the edit is kept in this browser and the indicator says so.
    context.set_offline(True)
    press(page, "Enter", "4", "5")
    expect(page.locator("#save-state")).to_have_text("Offline")
    [copy] = pending_copies(page, task)
    assert copy["kind"] == "spans" and copy["base_version"] == 1
    assert [e["words"] for e in copy["errors"]] == ["Brindlemere"]
    # Back online: the saver sends it, and the copy goes.
    context.set_offline(False)
    wait_saved(page, timeout=20_000)
    eventually(lambda: pending_copies(page, task) == [], message="the copy was not dropped")
    assert [e["words"] for e in task_body(page, live_server.url, task)["spans"]["errors"]] == [
        "Brindlemere"
    ]

    # Offline again, and the tab is closed before the connection returns: My tasks (another
    # tab of this browser) replays the copy to the span save, not the FAM one.
    context.set_offline(True)
    press(page, "l", "Enter", "1", "1")
    expect(page.locator("#save-state")).to_have_text("Offline")
    page.close()
    context.set_offline(False)
    tasks_page = context.new_page()
    with requests_held(tasks_page, f"**/api/tasks/{task.pk}/spans/") as held:
        tasks_page.goto(f"{live_server.url}/tasks/")
    assert held and held[0].request.method == "PUT"
    note = tasks_page.locator(f"[data-replay='{task.pk}']")
    expect(note).to_have_text("Changes kept in this browser are saved.")
    assert pending_copies(tasks_page, task) == []
    errors = task_body(tasks_page, live_server.url, task)["spans"]["errors"]
    assert [(e["words"], e["start"]) for e in errors] == [
        ("Brindlemere", 0),
        ("councillors", summary.index("councillors")),
    ]


def test_the_help_opens_with_the_question_mark(context, span_world, live_server):
    tasks = span_world()
    page = item_page(context, live_server.url, tasks[(DOCUMENT, SYSTEM)])
    press(page, "?")
    help_dialog = page.locator("#help")
    expect(help_dialog).to_be_visible()
    for heading in ("Keys", "Issue types", "Labels", "Decision tree", "Severity"):
        expect(help_dialog.locator("h3", has_text=heading)).to_have_count(1)
    expect(help_dialog.locator(".defs dt", has_text="Inaccuracy Extrinsic")).to_have_count(1)
    expect(help_dialog.locator(".defs dt", has_text="Place & Name")).to_have_count(1)
    # The severity matrix comes from the scheme: 8 subtypes x 8 labels, N/A cells marked.
    matrix = help_dialog.locator("#help-matrix-table")
    expect(matrix.locator("tbody tr")).to_have_count(8)
    expect(matrix.locator("tbody tr").nth(4).locator("td.na")).to_have_count(6)
    shot(page, "span-workspace-help.png")
    matrix.scroll_into_view_if_needed()
    shot(page, "span-workspace-help-matrix.png")
    press(page, "Escape")
    expect(help_dialog).to_be_hidden()


# Strings where white space and "word" are easy to get wrong: the workbooks' joiners
# (_ - . , '), non-ASCII letters (no word), and Python's white space against JS's \s (U+FEFF,
# U+001C-U+001F, U+0085 are the differences).
TRICKY = [
    "",
    "   \t\n ",
    "Hello, world!",
    "-- ... , ; `` ''",
    "12:30 p.m. d.c. u.s",
    "don't 3-pointers 1,000 3.5",
    "über café naïve résumé ß ǅ ʰ",
    "中文 字 〇 Ⅻ ½ ² ١٢٣ 𝟘 𐍈",
    "\u00a0x\u00a0 a\u2003b a\u200bb a\u3000b",
    "\ufeffword \ufeff",
    "x\x1cy x\x1fy x\x85y x\x0bz x\x0cz",
    "emoji 😀 👍🏽 ✓ → ©",
    "\u0301 e\u0301 _ __init__ #1 @user — … ’",
    "Brindlemere councillors voted six to three.",
]


def test_the_word_count_port_matches_the_python_core(context, span_world, live_server):
    tasks = span_world()
    page = item_page(context, live_server.url, tasks[(DOCUMENT, SYSTEM)])
    counted = page.evaluate(
        "async ([url, cases]) => { const m = await import(url);"
        " return cases.map((text) => m.countWords(text)); }",
        [STATE_MODULE, TRICKY],
    )
    assert counted == [count_words(text) for text in TRICKY]
    # Every code point: white space exactly as Python's; a one-character word exactly where
    # the core counts one (the workbooks' rule: ASCII letters and digits only).
    scan = page.evaluate(
        """async (url) => {
          const m = await import(url);
          const word = [], space = [];
          for (let c = 0; c <= 0x10ffff; c += 1) {
            if (c >= 0xd800 && c <= 0xdfff) continue;
            const s = String.fromCodePoint(c);
            if (m.isWord(s)) word.push(c);
            if (m.isSpace(s)) space.push(c);
          }
          return { word, space };
        }""",
        STATE_MODULE,
    )
    every = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    assert scan["space"] == [c for c in every if chr(c).isspace()]
    assert scan["word"] == [c for c in every if count_words(chr(c)) > 0]
    assert len(scan["word"]) == 62


def test_offsets_count_characters_as_python_does(context, span_world, live_server):
    # Characters outside the BMP are two UTF-16 units in JS but one character in Python: the
    # spans the page sends must still be Python's offsets (the server checks the words).
    sentences = ["The 😀 mascot 𝒜lice cheered 👍🏽 loudly.", "Crowds gathered."]
    tasks = span_world(summary=sentences)
    task = tasks[(DOCUMENT, SYSTEM)]
    summary, _ = texts(task)
    page = item_page(context, live_server.url, task)
    press(page, "l", "l", "l", "Enter", "4", "5")  # "𝒜lice": Inaccuracy Extrinsic / Place & Name
    press(page, "l", "l", "l", "L", "Enter", "7", "3")  # "loudly. Crowds" across the sentences
    wait_saved(page)
    errors = task_body(page, live_server.url, task)["spans"]["errors"]
    assert [(e["start"], e["end"], e["words"]) for e in errors] == [
        (summary.index("𝒜lice"), summary.index("𝒜lice") + len("𝒜lice"), "𝒜lice"),
        (summary.index("loudly"), summary.index("Crowds") + len("Crowds"), "loudly. Crowds"),
    ]
    expect(page.locator("#score-detail")).to_contain_text(f"{count_words(summary)} words")


def test_without_article_text_an_omission_has_no_span(context, span_world, live_server):
    tasks = span_world(text_missing=True)
    task = tasks[(DOCUMENT, SYSTEM)]
    page = item_page(context, live_server.url, task)
    expect(page.locator("#source")).to_have_text("The release has no article text.")
    press(page, "s")
    expect(page.locator("#flash")).to_contain_text("no article text")
    # The Omission is offered without a span; the other subtypes mark the summary as ever.
    press(page, "Enter")
    expect(page.locator("#menu-options button").nth(1)).to_contain_text("no span")
    press(page, "2", "4")  # Omission / Number & Time: Critical
    expect(page.locator("#errors li.err")).to_contain_text("(no span)")
    wait_saved(page)
    [error] = task_body(page, live_server.url, task)["spans"]["errors"]
    assert (error["side"], error["start"], error["end"], error["words"]) == ("none", None, None, "")
    assert (error["type"], error["label"], error["severity"]) == (
        "Omission",
        "Number & Time",
        "Critical",
    )


def test_the_task_page_picks_the_workspace_by_the_campaigns_kind(context, span_world, live_server):
    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    page = item_page(context, live_server.url, task)
    expect(page.locator("#summary-pane")).to_be_visible()
    expect(page.locator("#sentences")).to_have_count(0)  # not the FAM workspace
    # A task nobody may see gets the FAM page, whose script says so (no existence leak).
    page.goto(f"{live_server.url}/tasks/999999/")
    expect(page.locator("#doc-title")).to_have_text("No such task")
    expect(page.locator("#sentences")).to_have_count(1)
    # Researchers read scores, never spans under annotation: the page says so (403).
    researcher = context.browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = researcher.new_page()
        login(other, live_server.url, "researcher")
        response = other.goto(f"{live_server.url}/tasks/{task.pk}/")
        assert response.status == 403
        expect(other.locator("#forbidden")).to_have_text(
            "Error spans under annotation are not shown to researchers."
        )
        expect(other.locator("#summary")).to_have_count(0)
    finally:
        researcher.close()


def test_a_refused_save_says_why_and_keeps_the_change(context, span_world, live_server):
    from annotation.campaigns.models import Campaign, CampaignStatus

    tasks = span_world()
    task = tasks[(DOCUMENT, SYSTEM)]
    page = item_page(context, live_server.url, task)
    # The admin closes the campaign while the page is open: the next save is refused (400).
    Campaign.objects.filter(pk=task.campaign_id).update(status=CampaignStatus.CLOSED)
    press(page, "Enter", "4", "5")
    expect(page.locator("#save-state")).to_have_text("Not saved")
    expect(page.locator("#flash")).to_contain_text("Not saved: The campaign is closed")
    [copy] = pending_copies(page, task)  # kept in this browser, not lost
    assert [e["words"] for e in copy["errors"]] == ["Brindlemere"]
    assert task_body(page, live_server.url, task)["spans"]["errors"] == []
    # Reloaded, the page is read-only and says why.
    page.reload()
    page.wait_for_selector("#workspace[aria-busy=false] #summary .w")
    expect(page.locator("#banner-text")).to_have_text(
        "The campaign is closed: this item is read-only."
    )
    expect(page.locator("#flash")).to_contain_text("the campaign is closed")
    assert len(pending_copies(page, task)) == 1


def test_the_marked_error_notice_covers_no_error_card(context, span_world, live_server):
    """Issue 27: at 1280x800 the "Marked error" notice sat over the card of the error just
    marked (bottom right, in the errors column). It now sits outside that column."""
    tasks = span_world()
    page = item_page(context, live_server.url, tasks[(DOCUMENT, SYSTEM)])
    assert page.viewport_size == {"width": 1280, "height": 800}
    column = page.locator("#errors").bounding_box()
    for n in range(1, 5):
        press(page, "l", "Enter", "3", "4")  # the next word: Inaccuracy Intrinsic / Number & Time
        notice = page.locator("#flash")
        expect(notice).to_contain_text(f"Marked error {n}:")
        expect(page.locator("#errors li.err")).to_have_count(n)
        box = notice.bounding_box()
        assert box["x"] + box["width"] <= column["x"], (box, column)
        assert box["y"] + box["height"] <= 800
        for card in page.locator("#errors li.err").all():
            other = card.bounding_box()
            apart = (
                box["x"] + box["width"] <= other["x"]
                or other["x"] + other["width"] <= box["x"]
                or box["y"] + box["height"] <= other["y"]
                or other["y"] + other["height"] <= box["y"]
            )
            assert apart, (n, box, other)

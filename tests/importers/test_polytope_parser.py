"""The PolyTope release parser: facts read off ../shared by hand, and a tiny hand-made release."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.corpus.importers.parsers.polytope import parse_polytope_release
from annotation.imports.bundle import (
    KIND_ABSTRACTIVE,
    KIND_EXTRACTIVE,
    METHOD_EXACT,
    METHOD_LEAD,
    METHOD_TFIDF,
    ImportValidationError,
    Location,
)
from scoring.metrics.align import LOW_CONFIDENCE_THRESHOLD

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
_skip_without_polytope = pytest.mark.skipif(
    not (SHARED / "polytope-release").is_dir(), reason="../shared/data/polytope-release is absent"
)


def needs_polytope(test):
    """Mark a test as needing the PolyTope release in ../shared (skipped if absent)."""
    return pytest.mark.shared(_skip_without_polytope(test))


SLUGS = [
    "lead-3",
    "textrank",
    "summarunner",
    "bertsumext",
    "seq2seq",
    "pointer-generator",
    "pointer-generator-coverage",
    "bottom-up",
    "bertsumextabs",
    "bart",
]

# =============================================================================================
# The real release (facts checked by hand with grep/sed on the files)
# =============================================================================================

STORY_0 = "177ba23a953736dfeb180c04da950cdbcd998604"  # trial 0 in every folder
STORY_24 = "e40fa02a27848bafee6b15a57eed4519f0c3c6e9"
STORY_25 = "ba4284a69cc068da747c066657035a2307c8873b"
STORY_67 = "627b10527ee809c796f006bcfc8b604126ca79f9"
STORY_68 = "316493557aaa8fa9204133dd6fbf3b10cb1aa394"


@pytest.fixture(scope="module")
def release():
    if not (SHARED / "polytope-release").is_dir():
        pytest.skip("../shared/data/polytope-release is absent")
    return parse_polytope_release(SHARED / "polytope-release")


def _docs(bundle):
    return {doc.external_id: doc for doc in bundle.documents}


def _output(bundle, slug, story):
    (found,) = [o for o in bundle.outputs if o.system_slug == slug and o.document_id == story]
    return found


@needs_polytope
def test_real_counts(release):
    """The release's counts (how fast it parses is bench_polytope_import's business)."""
    bundle = release
    assert bundle.dataset.slug == "cnndm-polytope"
    assert "6bcbe2b27062b35cc002cb8d13e7c6ce5718984d" in bundle.dataset.source
    assert len(bundle.documents) == 150
    assert len({doc.external_id for doc in bundle.documents}) == 150
    assert all(len(doc.references) == 1 for doc in bundle.documents)
    assert [system.slug for system in bundle.systems] == SLUGS
    per_system = {slug: 0 for slug in SLUGS}
    for output in bundle.outputs:
        per_system[output.system_slug] += 1
    # textrank/25_.txt is a byte copy of textrank/24_.txt: trial 25 has no TextRank summary.
    assert per_system == {slug: 149 if slug == "textrank" else 150 for slug in SLUGS}
    kinds = {system.slug: system.kind for system in bundle.systems}
    assert [s for s in SLUGS if kinds[s] == KIND_EXTRACTIVE] == SLUGS[:4]
    assert all(kinds[s] == KIND_ABSTRACTIVE for s in SLUGS[4:])


@needs_polytope
def test_real_document_is_keyed_on_the_story_id(release):
    bundle = release
    doc = _docs(bundle)[STORY_0]
    assert doc.sentences[0] == (
        "three people have been sent to prison and another two are awaiting sentencing for "
        "their roles in a horrific assault on a 53-year-old man , who was beaten , tied to a "
        "chair , and covered in offensive tattoos ."
    )
    assert doc.sentences[5] == "david harrison ( right ) is awaiting sentencing"
    # index: differs between systems for the same hash.
    assert doc.meta["trial"] == 0
    assert doc.meta["indices"] == {
        "bottom_up": 10130,
        "pointer_gen": 9900,
        "presumm": 5036,
        "summarunner": 63,
    }


@needs_polytope
def test_real_reference_two_space_style(release):
    bundle = release
    (reference,) = _docs(bundle)[STORY_0].references
    assert reference.location == Location("bottom_up/0_.txt", 43, "reference")
    assert len(reference.sentences) == 8
    assert reference.sentences[0] == (
        "greg valecce , 53 , had swastikas , stars of david , two variations of the n-word , "
        "a penis and other offensive symbols tattooed on his arms ."
    )
    assert reference.sentences[-1] == "two others are awaiting sentencing ."


@needs_polytope
def test_real_reference_one_per_line_style_and_cleanups(release):
    bundle = release
    by_trial = {doc.meta["trial"]: doc for doc in bundle.documents}
    assert by_trial[100].references[0].sentences == (
        "the queen was spotted enjoying a ride in windsor great park today .",
        "rode her favourite fell pony , a mare named carltonlima emma .",
        "left hard hats at home and opted for one of her favourite scarves instead .",
    )
    # bottom_up keeps the "click here" highlight that presumm dropped.
    assert by_trial[5].references[0].sentences[-1] == "click here for all the latest ufc news ."
    # "#" for "£" restored where the article has "£ 1,400"; PTB brackets and quotes undone.
    assert "` hitman ' £ 1,400 to murder" in by_trial[104].references[0].sentences[1]
    assert "framework ( mcf ) ." in by_trial[48].references[0].sentences[2]
    assert by_trial[108].references[0].sentences[0].startswith('bob barker returned to host " the')


@needs_polytope
def test_real_lead3(release):
    bundle = release
    lead = _output(bundle, "lead-3", STORY_0)
    assert lead.extracted == (0, 1, 2)
    assert lead.method == METHOD_LEAD
    assert lead.confidences == (1.0, 1.0, 1.0)
    assert lead.sentences == _docs(bundle)[STORY_0].sentences[:3]
    assert all(o.extracted == (0, 1, 2) for o in bundle.outputs if o.system_slug == "lead-3")


@needs_polytope
def test_real_textrank_0_maps_to_trial_0_and_is_cut_back_into_sentences(release):
    bundle = release
    output = _output(bundle, "textrank", STORY_0)
    assert output.location == Location("textrank/0_.txt", 1, "summary")
    # The file is one line: article sentences 5, 6, 7, 22 and 23 joined, cut at 100 words.
    assert output.extracted == (5, 6, 7, 22, 23)
    assert output.sentences[0] == "david harrison ( right ) is awaiting sentencing"
    assert output.sentences[-1] == "during a search of the house , police allegedly found a"
    assert output.method == METHOD_TFIDF
    assert output.confidences[:4] == (1.0, 1.0, 1.0, 1.0)
    assert 0.3 < output.confidences[4] < 0.6


@needs_polytope
def test_real_textrank_duplicate_file_is_reported(release):
    bundle = release
    assert _output(bundle, "textrank", STORY_24).location.file == "textrank/24_.txt"
    assert not [
        o for o in bundle.outputs if o.system_slug == "textrank" and o.document_id == STORY_25
    ]
    notes = [str(line) for line in bundle.report if line.location.file.startswith("textrank/")]
    assert any("textrank/25_.txt:1" in n and "duplicate of textrank/24_.txt" in n for n in notes)
    assert any(STORY_25 in n and "no TextRank summary" in n for n in notes)


@needs_polytope
def test_real_separator_line_and_extra_block_in_presumm_0(release):
    bundle = release
    notes = [str(line) for line in bundle.report if line.location.file == "presumm/0_.txt"]
    assert "presumm/0_.txt:60 [reference]: stray separator line '≠≠' ignored" in notes
    assert any("extra text after the reference" in n for n in notes)
    ext = _output(bundle, "bertsumext", STORY_0)
    assert ext.extracted == (4, 2, 0)
    assert ext.method == METHOD_EXACT
    assert ext.location == Location("presumm/0_.txt", 62, "extractive")
    abstractive = _output(bundle, "bertsumextabs", STORY_0)
    assert len(abstractive.sentences) == 5
    assert abstractive.sentences[-1] == "another defendant jennifer pratt , 40 , is awaiting trial"


@needs_polytope
def test_real_pointer_gen_file_gives_three_systems(release):
    bundle = release
    from_file = [o for o in bundle.outputs if o.location.file == "pointer_gen/0_.txt"]
    assert sorted(o.system_slug for o in from_file) == [
        "pointer-generator",
        "pointer-generator-coverage",
        "seq2seq",
    ]
    seq2seq = _output(bundle, "seq2seq", STORY_0)
    assert seq2seq.sentences[0] == "UNK ' corey ' campbell , 21 , was the ringleader of the gang ."
    assert len(seq2seq.sentences) == 4
    assert seq2seq.extracted is None
    coverage = _output(bundle, "pointer-generator-coverage", STORY_0)
    assert (
        coverage.sentences[1]
        == "campbell believed the victim , greg valecce , had hurt his cat , pebbles ."
    )


@needs_polytope
def test_real_bottom_up_two_space_output(release):
    bundle = release
    assert _output(bundle, "bottom-up", STORY_0).sentences == (
        "corry ` corey ' campbell , 21 , was sentenced to 23 months in state prison for her role "
        "in the abuse in march/april 21 .",
        "campbell believed the victim had hurt his cat , pebbles .",
        "valecce , an unemployed drug addict , had been staying in the basement of campbell 's "
        "mother 's house in mayfair .",
    )


@needs_polytope
def test_real_bart_lines_68_and_69_are_swapped(release):
    bundle = release
    assert _output(bundle, "bart", STORY_0).location == Location("bart/bart.txt", 1, "summary")
    assert _output(bundle, "bart", STORY_67).location.line == 69
    assert _output(bundle, "bart", STORY_68).location.line == 68
    assert _output(bundle, "bart", STORY_68).sentences[0] == (
        "Just over a quarter of women giving birth in england now have a caesarean."
    )
    # One line per summary, split with pysbd (plus stand-alone " . " tokens).
    assert len(_output(bundle, "bart", STORY_0).sentences) == 3


@needs_polytope
def test_real_line_break_inside_a_bertsumext_sentence_is_repaired(release):
    bundle = release
    by_trial = {doc.meta["trial"]: doc.external_id for doc in bundle.documents}
    output = _output(bundle, "bertsumext", by_trial[7])
    assert output.extracted == (3, 4, 1)
    assert output.sentences[1].startswith("mr abbott came under fire")
    assert output.method == METHOD_EXACT


@needs_polytope
def test_real_low_confidence_mappings_are_all_textrank_stubs(release):
    bundle = release
    low = [line for line in bundle.report if line.message.startswith("low-confidence mapping")]
    assert len(low) == 7
    assert all(line.location.file.startswith("textrank/") for line in low)
    weak = [
        c
        for o in bundle.outputs
        if o.confidences
        for c in o.confidences
        if c < LOW_CONFIDENCE_THRESHOLD
    ]
    assert len(weak) == 7
    stub = next(line for line in low if line.location.file == "textrank/63_.txt")
    assert "TextRank" in stub.message and "'`'" in stub.message and "0.000" in stub.message


# =============================================================================================
# A tiny hand-made release
# =============================================================================================

A = "a" * 40
B = "b" * 40
ARTICLE_A = [
    "firefighters rescued a cat from a tall oak tree on monday .",
    "the cat , named pebbles , had been stuck for two days",
    "neighbours heard it crying and called the fire brigade .",
    "a ladder truck arrived within ten minutes of the call .",
    "pebbles was returned to her owner unharmed .",
]
ARTICLE_B = [
    "the home team won the cup final on penalties .",
    "the match ended level after extra time",
    "the goalkeeper saved two spot kicks .",
    "fans celebrated in the streets until midnight .",
    "the coach praised the players for their spirit .",
]
REF_A = [
    "firefighters rescued pebbles the cat from an oak tree .",
    "she had been stuck for two days .",
]
REF_B = ["home team won the cup on penalties .", "goalkeeper saved two spot kicks ."]


def trial_file(index: int, story: str | None, article: list[str], reference: list[str], **outputs):
    """A trial file laid out as in the release: index line 1, hash line 4, #article: line 7."""
    lines = [f"index: {index}", "", ""]
    lines += [f"hash: {story}", "", ""] if story is not None else []
    lines += ["#article: ", *article, "", "#reference: ", *reference, ""]
    for name, body in outputs.items():
        lines += [f"#{name.replace('_', '-')}: ", *body, ""]
    return "\n".join(lines) + "\n"


def files_for(story, index, article, ref, trial):
    """The four per-trial files of one story (bottom_up, summarunner, presumm, pointer_gen)."""
    two_space = "  ".join(ref) + " "
    return {
        f"bottom_up/{trial}_.txt": trial_file(
            index, story, article, [two_space], decode=["  ".join(article[:2])]
        ),
        f"summarunner/{trial}_.txt": trial_file(
            index + 1, story, article, [r.removesuffix(" .") for r in ref], decode=article[2:5]
        ),
        f"presumm/{trial}_.txt": trial_file(
            index + 2,
            story,
            article,
            [r.removesuffix(" .") for r in ref],
            extractive=[article[4] + " '", article[0], article[3]],
            extractive_abstractive=["an abstract first sentence", "an abstract second sentence"],
        ).replace("#extractive-abstractive:", "#extractive+abstractive:"),
        f"pointer_gen/{trial}_.txt": trial_file(
            index + 3,
            story,
            [" ".join(article)],
            ref,
            baseline=["UNK was stuck .", "UNK was stuck ."],
            pointer_generator=["the cat was rescued .", "it was unharmed ."],
            pointer_gen_coverage=["a cat was rescued from a tree ."],
        ),
    }


def write_release(root: Path) -> Path:
    files = {}
    files.update(files_for(A, 500, ARTICLE_A, REF_A, 0))
    files.update(files_for(B, 70, ARTICLE_B, REF_B, 1))
    # TextRank: trial 0 joined on one line and cut off; trial 1 one sentence per line (CRLF).
    files["textrank/0_.txt"] = " ".join(ARTICLE_A[1:3]) + " a ladder truck arrived\n"
    files["textrank/1.txt"] = "\r\n".join([ARTICLE_B[2], ARTICLE_B[0]]) + "\r\n"
    files["bart/bart.txt"] = (
        "the cat , named pebbles , had been stuck for two days . neighbours heard it crying .\n"
        "the goalkeeper saved two spot kicks. fans celebrated until midnight.\n"
    )
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("utf-8"))
    return root


@pytest.fixture
def mini(tmp_path):
    return write_release(tmp_path / "polytope")


def parse(root: Path):
    return parse_polytope_release(root, expected_documents=2)


def issues_of(root: Path):
    with pytest.raises(ImportValidationError) as caught:
        parse(root)
    return caught.value.issues


def test_mini_release_parses(mini):
    bundle = parse(mini)
    assert [doc.external_id for doc in bundle.documents] == [A, B]
    assert [system.slug for system in bundle.systems] == SLUGS
    assert len(bundle.outputs) == 20
    assert {o.system_slug for o in bundle.outputs} == set(SLUGS)


def test_mini_accepts_the_outputs_folder_itself(tmp_path):
    root = write_release(tmp_path / "release" / "outputs")
    assert len(parse(root.parent).documents) == 2
    assert len(parse(root).documents) == 2


def test_mini_documents_are_keyed_on_hash_not_index(mini):
    doc = parse(mini).documents[0]
    assert doc.external_id == A
    assert doc.sentences == tuple(ARTICLE_A)
    assert doc.meta["trial"] == 0
    assert doc.meta["indices"] == {
        "bottom_up": 500,
        "pointer_gen": 503,
        "presumm": 502,
        "summarunner": 501,
    }
    assert doc.location == Location("bottom_up/0_.txt", 4, "hash")


def test_mini_reference_two_space_and_one_per_line(mini):
    (tmp := mini / "bottom_up" / "1_.txt").write_text(
        trial_file(70, B, ARTICLE_B, [" " + REF_B[0] + " ", " " + REF_B[1] + " "], decode=["x y ."])
    )
    assert tmp.is_file()
    docs = parse(mini).documents
    assert docs[0].references[0].sentences == tuple(REF_A)
    assert docs[1].references[0].sentences == tuple(REF_B)
    assert docs[0].references[0].location == Location("bottom_up/0_.txt", 15, "reference")


def test_mini_reference_cleanups(mini):
    article = [*ARTICLE_A[:4], "tickets cost £ 64 each ( or more ) ."]
    reference = ["tickets cost # 64 and # 70 -lrb- or more -rrb-  a `` quoted '' word ."]
    (mini / "bottom_up" / "0_.txt").write_text(
        trial_file(500, A, article, reference, decode=["x ."])
    )
    for folder in ("summarunner", "presumm", "pointer_gen"):
        text = (mini / folder / "0_.txt").read_text()
        (mini / folder / "0_.txt").write_text(text.replace(ARTICLE_A[4], article[4]))
    (reference_record,) = parse(mini).documents[0].references
    # "£" comes back only where the article has it ("# 70" stays); PTB escapes are undone.
    assert reference_record.sentences == (
        "tickets cost £ 64 and # 70 ( or more )",
        'a " quoted " word .',
    )


def test_mini_extra_reference_block_and_separator_line(mini):
    path = mini / "presumm" / "0_.txt"
    text = path.read_text().replace(
        "#extractive: ", "an extra block that is not the reference\n\n≠≠ \n#extractive: "
    )
    path.write_text(text)
    lines = text.split("\n")
    separator = lines.index("≠≠ ") + 1
    bundle = parse(mini)
    assert bundle.documents[0].references[0].sentences == tuple(REF_A)
    notes = {str(line) for line in bundle.report}
    assert f"presumm/0_.txt:{separator} [reference]: stray separator line '≠≠' ignored" in notes
    assert any(n.startswith("presumm/0_.txt:15 [reference]: has extra text") for n in notes)


def test_mini_pointer_gen_file_gives_three_systems(mini):
    bundle = parse(mini)
    from_file = {
        o.system_slug: o for o in bundle.outputs if o.location.file == "pointer_gen/0_.txt"
    }
    assert set(from_file) == {"seq2seq", "pointer-generator", "pointer-generator-coverage"}
    assert from_file["seq2seq"].sentences == ("UNK was stuck .", "UNK was stuck .")
    assert from_file["pointer-generator"].location == Location(
        "pointer_gen/0_.txt", 19, "pointer-generator"
    )
    assert from_file["pointer-generator-coverage"].sentences == ("a cat was rescued from a tree .",)


def test_mini_extractive_outputs_are_aligned(mini):
    bundle = parse(mini)
    by_key = {(o.system_slug, o.document_id): o for o in bundle.outputs}
    summarunner = by_key["summarunner", A]
    assert (summarunner.extracted, summarunner.method) == ((2, 3, 4), METHOD_EXACT)
    assert summarunner.confidences == (1.0, 1.0, 1.0)
    bertsumext = by_key["bertsumext", A]  # first sentence has a stray " '" appended
    assert bertsumext.extracted == (4, 0, 3)
    assert bertsumext.method == METHOD_TFIDF
    assert bertsumext.confidences[0] == pytest.approx(1.0)
    assert by_key["lead-3", B].extracted == (0, 1, 2)
    assert by_key["lead-3", B].sentences == tuple(ARTICLE_B[:3])
    assert by_key["lead-3", B].location == Location("bottom_up/1_.txt", 8, "article")


def test_mini_textrank_run_together_line_and_low_confidence_report(mini):
    bundle = parse(mini)
    by_key = {(o.system_slug, o.document_id): o for o in bundle.outputs}
    textrank = by_key["textrank", A]
    assert textrank.sentences == (ARTICLE_A[1], ARTICLE_A[2], "a ladder truck arrived")
    assert textrank.extracted == (1, 2, 3)
    assert textrank.method == METHOD_TFIDF
    assert textrank.confidences[:2] == (1.0, 1.0)
    assert by_key["textrank", B].extracted == (2, 0)  # CRLF, one sentence per line
    assert by_key["textrank", B].location == Location("textrank/1.txt", 1, "summary")
    # The cut-off stub keeps 4 of its sentence's 10 words: cosine about 0.6, not reported.
    assert textrank.confidences[2] == pytest.approx(0.5959, abs=1e-4)
    assert not [line for line in bundle.report if line.message.startswith("low-confidence")]
    # Force a stub that shares no word with its sentence: always below the threshold.
    (mini / "textrank" / "0_.txt").write_text(" ".join(ARTICLE_A[1:3]) + " a\n")
    bundle = parse(mini)
    (line,) = [line for line in bundle.report if line.message.startswith("low-confidence")]
    assert line.location == Location("textrank/0_.txt", 1, "summary")
    for part in ("TextRank", A, "summary sentence 3", "'a'", "cosine 0.000"):
        assert part in line.message


def test_mini_textrank_duplicate_and_misplaced_files(mini):
    (mini / "textrank" / "1.txt").write_text((mini / "textrank" / "0_.txt").read_text())
    bundle = parse(mini)
    textrank = [o for o in bundle.outputs if o.system_slug == "textrank"]
    assert [(o.document_id, o.location.file) for o in textrank] == [(A, "textrank/0_.txt")]
    notes = [str(line) for line in bundle.report]
    assert any(
        n.startswith("textrank/1.txt:1 [summary]: TextRank summary belongs to trial 0")
        for n in notes
    )
    assert "textrank/1.txt:1 [summary]: duplicate of textrank/0_.txt:1; ignored" in notes
    assert any(
        n.startswith("textrank/ [summary]: no TextRank summary for document " + B) for n in notes
    )


def test_mini_bart_one_line_summaries_split_and_swapped_lines_placed(mini):
    path = mini / "bart" / "bart.txt"
    first, second = path.read_text().splitlines()
    bundle = parse(mini)
    bart = {o.document_id: o for o in bundle.outputs if o.system_slug == "bart"}
    assert bart[A].sentences == (
        "the cat , named pebbles , had been stuck for two days .",
        "neighbours heard it crying .",
    )
    assert bart[B].sentences == (
        "the goalkeeper saved two spot kicks.",
        "fans celebrated until midnight.",
    )
    path.write_text(f"{second}\n{first}\n")
    bundle = parse(mini)
    bart = {o.document_id: o for o in bundle.outputs if o.system_slug == "bart"}
    assert bart[A].location == Location("bart/bart.txt", 2, "summary")
    assert bart[B].location == Location("bart/bart.txt", 1, "summary")
    assert sum("placed by content" in line.message for line in bundle.report) == 2


def test_mini_crlf_header_and_hash_sign_content_line(mini):
    path = mini / "bottom_up" / "0_.txt"
    text = path.read_text().replace(ARTICLE_A[0], "# 64 tickets went on sale .")
    path.write_bytes(text.replace("\n", "\r\n").encode())
    for folder in ("summarunner", "presumm", "pointer_gen"):
        other = mini / folder / "0_.txt"
        other.write_text(other.read_text().replace(ARTICLE_A[0], "# 64 tickets went on sale ."))
    doc = parse(mini).documents[0]
    assert doc.sentences[0] == "# 64 tickets went on sale ."


# --- errors ----------------------------------------------------------------------------------


def test_error_missing_hash(mini):
    (mini / "summarunner" / "1_.txt").write_text(
        trial_file(71, None, ARTICLE_B, REF_B, decode=ARTICLE_B[:3])
    )
    (issue,) = issues_of(mini)
    assert issue.location == Location("summarunner/1_.txt", 4, "hash")
    assert "no 'hash:' line" in issue.message


def test_error_bad_hash_value(mini):
    path = mini / "presumm" / "1_.txt"
    path.write_text(path.read_text().replace(f"hash: {B}", "hash: not-a-story-id"))
    (issue,) = issues_of(mini)
    assert issue.location == Location("presumm/1_.txt", 4, "hash")
    assert "not-a-story-id" in issue.message


def test_error_malformed_file_collects_every_problem(mini):
    (mini / "summarunner" / "0_.txt").write_text(
        "index: 1\nthis line is not a field\n"
        f"hash: {A}\n#article: \n{ARTICLE_A[0]}\n#reference: \n#surprise: \nboo\n"
    )
    issues = issues_of(mini)
    assert [(i.location.file, i.location.line, i.location.field) for i in issues] == [
        ("summarunner/0_.txt", 2, "header"),
        ("summarunner/0_.txt", 6, "reference"),
        ("summarunner/0_.txt", 8, "decode"),
        ("summarunner/0_.txt", 7, "surprise"),
    ]
    assert "section '#reference:' is empty" in issues[1].message
    assert "missing section '#decode:'" in issues[2].message
    assert "unknown section '#surprise:'" in issues[3].message


def test_error_story_not_among_documents(mini):
    path = mini / "pointer_gen" / "1_.txt"
    path.write_text(path.read_text().replace(f"hash: {B}", f"hash: {'c' * 40}"))
    issues = issues_of(mini)
    assert issues[0].location == Location("pointer_gen/1_.txt", 4, "hash")
    assert "is not among the documents" in issues[0].message
    assert issues[1].location == Location("pointer_gen/", None, "hash")
    assert B in issues[1].message


def test_error_conflicting_article(mini):
    (mini / "summarunner" / "0_.txt").write_text(
        trial_file(1, A, ARTICLE_B, REF_A, decode=ARTICLE_B[:3])
    )
    issues = issues_of(mini)
    assert issues[0].location == Location("summarunner/0_.txt", 8, "article")
    assert "conflicts with bottom_up/0_.txt" in issues[0].message


def test_error_wrong_number_of_documents(mini):
    with pytest.raises(ImportValidationError) as caught:
        parse_polytope_release(mini, expected_documents=3)
    (issue,) = caught.value.issues
    assert issue.location == Location("bottom_up/", None, "documents")
    assert "expected 3 documents, found 2" in issue.message


def test_error_default_expects_150_documents(mini):
    with pytest.raises(ImportValidationError, match="expected 150 documents, found 2"):
        parse_polytope_release(mini)


def test_error_bart_line_count_and_unmatched_textrank(mini):
    with (mini / "bart" / "bart.txt").open("a") as handle:
        handle.write("a third summary about nothing in particular .\n")
    (mini / "textrank" / "1.txt").write_text("completely unrelated words about astronomy .\n")
    issues = issues_of(mini)
    where = {(i.location.file, i.location.line, i.location.field) for i in issues}
    assert ("textrank/1.txt", 1, "summary") in where
    assert ("bart/bart.txt", 3, "summary") in where


def test_error_missing_folder_and_file(mini):
    (mini / "textrank" / "1.txt").unlink()
    for path in (mini / "bottom_up").iterdir():
        path.unlink()
    (mini / "bottom_up").rmdir()
    issues = issues_of(mini)
    assert issues[0].location == Location("bottom_up/", None, "folder")
    assert any(i.location == Location("bottom_up/", None, "documents") for i in issues)


def test_error_missing_textrank_file(mini):
    (mini / "textrank" / "1.txt").unlink()
    (issue,) = issues_of(mini)
    assert issue.location == Location("textrank/1_.txt", None, "file")


def test_error_invalid_utf8(mini):
    path = mini / "presumm" / "1_.txt"
    path.write_bytes(path.read_bytes().replace(b"penalties", b"penalt\xffies", 1))
    (issue,) = issues_of(mini)
    assert (issue.location.file, issue.location.line) == ("presumm/1_.txt", 8)
    assert "UTF-8" in issue.message

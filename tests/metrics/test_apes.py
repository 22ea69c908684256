"""APES core: entity filtering, cloze questions, the entity-matching answerer, aggregation."""

import dataclasses
import re

import pytest

from scoring.metrics.apes import (
    NO_DEFINED,
    NO_QUESTIONS,
    AnswerCountError,
    Answerer,
    ApesError,
    Entity,
    EntityMatchingAnswerer,
    EntityRecognizer,
    EntitySpanError,
    NoSummariesError,
    PlaceholderInTextError,
    judge,
    make_questions,
    normalize_entity,
    score_summary,
    select_entities,
    split_sentences,
    summary_apes,
    system_apes,
)
from scoring.metrics.errors import MetricsError


def mentions(text, *surfaces):
    """Every whole-word occurrence of each (surface, label) in text, as Entities."""
    found = []
    for surface, label in surfaces:
        for match in re.finditer(r"\b" + re.escape(surface) + r"\b", text):
            found.append(Entity(match.start(), match.end(), surface, label))
    return found


class DictRecognizer(EntityRecognizer):
    """A hand-made recogniser: a dict from text to its entities."""

    def __init__(self, table):
        self.table = table

    def recognize(self, text):
        return self.table.get(text, [])


PEOPLE = (("Obama", "PERSON"), ("Merkel", "PERSON"), ("Berlin", "GPE"))
REFERENCE = "Obama met Merkel in Berlin. Merkel praised Obama and Obama smiled."
SUMMARY_GOOD = "Merkel hosted Obama in Berlin. Obama smiled."
SUMMARY_HALF = "Berlin welcomed Merkel."
SUMMARY_NONE = "Nothing happened."
TABLE = {
    REFERENCE: mentions(REFERENCE, *PEOPLE),
    SUMMARY_GOOD: mentions(SUMMARY_GOOD, *PEOPLE),
    SUMMARY_HALF: mentions(SUMMARY_HALF, *PEOPLE),
    SUMMARY_NONE: [],
}
RECOGNIZER = DictRecognizer(TABLE)
ANSWERER = EntityMatchingAnswerer(RECOGNIZER)


def reference_questions():
    return make_questions(REFERENCE, RECOGNIZER.recognize(REFERENCE))


# --- entities -----------------------------------------------------------------------------


def test_the_helper_finds_the_hand_counted_offsets():
    assert TABLE[REFERENCE][:3] == [
        Entity(0, 5, "Obama", "PERSON"),
        Entity(43, 48, "Obama", "PERSON"),
        Entity(53, 58, "Obama", "PERSON"),
    ]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Obama", "obama"),
        ("The U.S.'s", "u s"),
        ("  the   White House ", "white house"),
        ("Merkel\u2019s", "merkel"),
        ("The", ""),
    ],
)
def test_normalize_entity(text, key):
    assert normalize_entity(text) == key


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"start": 3, "end": 3, "text": "", "label": "X"}, "start < end"),
        ({"start": -1, "end": 2, "text": "abc", "label": "X"}, "start < end"),
        ({"start": 0, "end": 2, "text": "abc", "label": "X"}, "end - start"),
        ({"start": 0.0, "end": 3, "text": "abc", "label": "X"}, "integers"),
    ],
)
def test_an_invalid_entity_is_refused(kwargs, message):
    with pytest.raises(EntitySpanError, match=message):
        Entity(**kwargs)


def test_an_entity_must_be_a_span_of_the_text():
    with pytest.raises(EntitySpanError, match="'Obama'"):
        select_entities("Obama met", [Entity(0, 5, "Osama", "PERSON")])
    with pytest.raises(EntitySpanError, match="past the text"):
        select_entities("Obama", [Entity(3, 9, "ma met", "PERSON")])
    assert issubclass(EntitySpanError, MetricsError)


def test_select_keeps_the_papers_labels_and_drops_one_character_spans():
    text = "On Monday, X of Acme Corp met Germans in Paris."
    entities = [
        Entity(3, 9, "Monday", "DATE"),
        Entity(11, 12, "X", "PERSON"),
        Entity(16, 25, "Acme Corp", "ORG"),
        Entity(30, 37, "Germans", "NORP"),
        Entity(41, 46, "Paris", "GPE"),
    ]
    assert [e.text for e in select_entities(text, entities)] == ["Acme Corp", "Germans", "Paris"]
    every = select_entities(text, entities, labels=None)
    assert [e.text for e in every] == ["Monday", "Acme Corp", "Germans", "Paris"]


def test_overlapping_mentions_resolve_to_the_longest_then_the_earliest():
    text = "New York City and abcdefg"
    entities = [
        Entity(0, 8, "New York", "GPE"),
        Entity(4, 8, "York", "GPE"),
        Entity(0, 13, "New York City", "GPE"),
        # equally long and overlapping: the earlier one wins
        Entity(18, 22, "abcd", "ORG"),
        Entity(20, 24, "cdef", "ORG"),
        Entity(18, 22, "abcd", "ORG"),  # an exact duplicate counts once
    ]
    assert select_entities(text, entities) == (
        Entity(0, 13, "New York City", "GPE"),
        Entity(18, 22, "abcd", "ORG"),
    )


# --- questions ----------------------------------------------------------------------------


def test_split_sentences():
    text = 'He left. "Why?" she asked!  Then  \n silence'
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "He left.",
        '"Why?"',
        "she asked!",
        "Then  \n silence",
    ]
    assert split_sentences("") == ()
    assert split_sentences("   ") == ()


def test_questions_of_the_hand_worked_reference():
    questions = reference_questions()
    assert [(q.text, q.answer, q.label) for q in questions] == [
        ("@placeholder met Merkel in Berlin.", "Obama", "PERSON"),
        ("Obama met @placeholder in Berlin.", "Merkel", "PERSON"),
        ("Obama met Merkel in @placeholder.", "Berlin", "GPE"),
        ("@placeholder praised Obama and Obama smiled.", "Merkel", "PERSON"),
        ("Merkel praised @placeholder and @placeholder smiled.", "Obama", "PERSON"),
    ]
    # a repeated entity in one sentence: one question, every mention masked
    last = questions[-1]
    assert last.mentions == (Entity(43, 48, "Obama", "PERSON"), Entity(53, 58, "Obama", "PERSON"))
    assert last.sentence == (28, 66)
    assert last.context_keys == ("merkel",)
    assert questions[0].context_keys == ("merkel", "berlin")
    assert questions[0].answer_key == "obama"


def test_variants_of_one_entity_in_a_sentence_count_once_by_normalised_text():
    text = "The BBC and the bbc agreed."
    entities = [Entity(4, 7, "BBC", "ORG"), Entity(16, 19, "bbc", "ORG")]
    (question,) = make_questions(text, entities)
    assert question.text == "The @placeholder and the @placeholder agreed."
    assert question.answer == "BBC"


def test_a_sentence_an_entity_crosses_is_joined():
    text = "The U.S. Army left. Then Obama came."
    entities = [Entity(4, 13, "U.S. Army", "ORG"), Entity(25, 30, "Obama", "PERSON")]
    questions = make_questions(text, entities)
    assert [q.text for q in questions] == ["The @placeholder left.", "Then @placeholder came."]
    assert questions[0].sentence == (0, 19)


def test_given_sentence_spans_are_used_and_checked():
    text = "Obama met Merkel. Obama left."
    entities = mentions(text, ("Obama", "PERSON"), ("Merkel", "PERSON"))
    whole = make_questions(text, entities, sentences=[(0, len(text))])
    assert [q.text for q in whole] == [
        "@placeholder met Merkel. @placeholder left.",
        "Obama met @placeholder. Obama left.",
    ]
    with pytest.raises(ApesError, match="overlaps"):
        make_questions(text, entities, sentences=[(0, 10), (5, 20)])
    with pytest.raises(ApesError, match="past the text"):
        make_questions(text, entities, sentences=[(0, 100)])


def test_the_placeholder_must_not_be_in_the_reference_nor_blank():
    with pytest.raises(PlaceholderInTextError, match="@placeholder"):
        make_questions("Ask @placeholder about Obama.", [])
    with pytest.raises(ApesError, match="blank"):
        make_questions("Obama.", [], placeholder=" ")
    (question,) = make_questions("Obama left.", [Entity(0, 5, "Obama", "PERSON")], placeholder="_")
    assert question.text == "_ left."


def test_no_entities_no_questions():
    assert make_questions("", []) == ()
    assert make_questions("On Monday it rained.", [Entity(3, 9, "Monday", "DATE")]) == ()


# --- answering ----------------------------------------------------------------------------


def test_candidates_of_a_summary():
    candidates = ANSWERER.candidates(SUMMARY_GOOD)
    assert [(c.key, c.text, c.first_start, c.mentions) for c in candidates] == [
        ("merkel", "Merkel", 0, 1),
        ("obama", "Obama", 14, 2),
        ("berlin", "Berlin", 23, 1),
    ]
    # each mention's sentence, the mention's own words and stopwords ("in") removed
    assert candidates[1].contexts == (
        frozenset({"merkel", "hosted", "berlin"}),
        frozenset({"smiled"}),
    )


def test_hand_worked_answers_from_the_good_summary():
    # Q1-Q3: only one summary entity is not named elsewhere in the question.
    # Q4 words {praised, obama, smiled}: Merkel and Berlin both overlap 1 ({obama}), one mention
    # each, Merkel comes first. Q5 words {merkel, praised, smiled}: Obama overlaps 1 ({merkel}
    # or {smiled}), Berlin 1 ({merkel}); Obama has two mentions.
    answers = ANSWERER.answer(reference_questions(), SUMMARY_GOOD)
    assert answers == ("Obama", "Merkel", "Berlin", "Merkel", "Obama")
    result = score_summary(reference_questions(), SUMMARY_GOOD, ANSWERER)
    assert (result.n_questions, result.n_correct, result.value) == (5, 5, 1.0)


def test_hand_worked_answers_from_the_half_summary():
    # Candidates: Berlin (first, context {welcomed, merkel}), Merkel ({berlin, welcomed}).
    # Q1 (Obama): both are named in the question; overlaps 1 and 1; Berlin comes first: wrong.
    # Q2, Q3: the one candidate not named in the question: right. Q4 (Merkel): overlaps 0 and
    # 0, Berlin first: wrong. Q5 (Obama): Merkel is named, so Berlin: wrong.
    answers = ANSWERER.answer(reference_questions(), SUMMARY_HALF)
    assert answers == ("Berlin", "Merkel", "Berlin", "Berlin", "Berlin")
    result = score_summary(reference_questions(), SUMMARY_HALF, ANSWERER)
    assert [r.correct for r in result.results] == [False, True, True, False, False]
    assert (result.n_questions, result.n_correct, result.value) == (5, 2, 0.4)


def test_a_summary_without_entities_answers_nothing():
    result = score_summary(reference_questions(), SUMMARY_NONE, ANSWERER)
    assert [r.predicted for r in result.results] == [None] * 5
    assert (result.n_correct, result.value, result.reason) == (0, 0.0, None)


def test_ranking_ties_are_deterministic_whatever_the_recogniser_order():
    reversed_recognizer = DictRecognizer({k: list(reversed(v)) for k, v in TABLE.items()})
    answerer = EntityMatchingAnswerer(reversed_recognizer)
    for summary in (SUMMARY_GOOD, SUMMARY_HALF):
        assert answerer.answer(reference_questions(), summary) == ANSWERER.answer(
            reference_questions(), summary
        )


def test_answerers_are_pluggable_and_their_answer_count_is_checked():
    class Oracle(Answerer):
        name = "oracle"

        def answer(self, questions, summary):
            return [f"the {q.answer}" for q in questions]

    class Short(Answerer):
        def answer(self, questions, summary):
            return ["Obama"]

    assert score_summary(reference_questions(), SUMMARY_NONE, Oracle()).value == 1.0
    with pytest.raises(AnswerCountError, match="1 answers for 5 questions"):
        score_summary(reference_questions(), SUMMARY_GOOD, Short())


# --- judging and aggregation --------------------------------------------------------------


def test_judge_normalises_and_never_credits_none():
    question = reference_questions()[0]  # answer Obama
    assert judge(question, "the OBAMA").correct
    assert judge(question, "Obama's").correct
    assert not judge(question, "Barack Obama").correct
    assert not judge(question, None).correct
    with pytest.raises(ApesError, match="string or None"):
        judge(question, 3)


def test_no_question_means_undefined_with_a_reason_and_no_answerer_call():
    class Refuses(Answerer):
        def answer(self, questions, summary):
            raise AssertionError("called without questions")

    result = score_summary((), SUMMARY_GOOD, Refuses())
    assert (result.value, result.reason, result.n_questions) == (None, NO_QUESTIONS, 0)
    assert not result.defined
    assert summary_apes([]) == result


def test_system_apes_golden_values():
    questions = reference_questions()
    per_summary = {
        "good": score_summary(questions, SUMMARY_GOOD, ANSWERER),
        "half": score_summary(questions, SUMMARY_HALF, ANSWERER),
        "none": score_summary(questions, SUMMARY_NONE, ANSWERER),
        "no-ref-entities": score_summary(make_questions("It rained.", []), "Rain.", ANSWERER),
    }
    system = system_apes(per_summary)
    # mean of 1, 0.4 and 0 over the three defined summaries; pooled 7 of 15 questions
    assert system.value == pytest.approx(1.4 / 3)
    assert system.pooled == pytest.approx(7 / 15)
    assert (system.n_summaries, system.n_scored) == (4, 3)
    assert system.undefined == ("no-ref-entities",)
    assert (system.n_questions, system.n_correct, system.reason) == (15, 7, None)
    record = system.as_dict()
    assert record["per_summary"]["half"] == {
        "value": 0.4,
        "n_questions": 5,
        "n_correct": 2,
        "reason": None,
    }
    assert record["per_summary"]["no-ref-entities"]["reason"] == NO_QUESTIONS
    with pytest.raises(TypeError):
        system.per_summary["x"] = per_summary["good"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        system.value = 1.0


def test_system_apes_undefined_and_errors():
    empty = summary_apes([])
    system = system_apes({"a": empty, "b": empty})
    assert (system.value, system.pooled, system.reason) == (None, None, NO_DEFINED)
    assert system.undefined == ("a", "b")
    with pytest.raises(NoSummariesError, match="system 'lead-3'"):
        system_apes({}, system="lead-3")
    with pytest.raises(ApesError, match="summary 'a'"):
        system_apes({"a": 0.5})

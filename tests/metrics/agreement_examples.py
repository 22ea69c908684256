"""The README's worked examples as data, shared by the agreement tests."""

from scoring.metrics.agreement import SpanMatching

# The README's FAM example: one document, three facets, annotators A and B.
FAM_A = [[{0, 1}], [{3}], []]
FAM_B = [[{0}, {1}], [{3, 4}], []]
FAMS = {"d1": {"A": FAM_A, "B": FAM_B}}

# The README's span example.
SPANS_A = [(0, 10, "Addition", "Subject"), (20, 30, "Omission", "Predicate"),
           (40, 45, "Duplication", "Object")]  # fmt: skip
SPANS_B = [(0, 10, "Addition", "Subject"), (22, 30, "Inaccuracy Intrinsic", "Predicate"),
           (60, 70, "Omission", "Object")]  # fmt: skip
SPANS_C = [(0, 8, "Addition", "Subject"), (20, 30, "Omission", "Predicate")]
SPANS = {"d1": {"A": SPANS_A, "B": SPANS_B}}
SPANS_3 = {"d1": {"A": SPANS_A, "B": SPANS_B, "C": SPANS_C}}
EXACT = SpanMatching("exact")

"""Adjudication to gold: per-campaign adjudicators, gold FAMs and spans, documents marked done."""

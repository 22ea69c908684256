"""Systems app: summarization systems and their per-document outputs."""

"""Human judgments of systems: studies uploaded as CSV or JSONL, correlated with the metrics."""

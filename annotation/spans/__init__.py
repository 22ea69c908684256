"""Error spans: per system output, the errors an annotator (or a release) marked under a scheme."""

"""FAMs app: annotation sets and facet-aware mappings (released, human, gold, machine)."""

"""``import_polytope_workbook``, ``import_spans`` and ``export_spans``."""

"""URLs of the spans API (error annotations, workbook import and export)."""

urlpatterns: list = []

# Scores become one row per output version's document with every metric in a JSON object
# (was: one row per output and metric). The rows are merged in place; reversing deletes the
# scores, which are derived data: a scoring job recomputes them.

from django.db import migrations, models

import scoring.scores.models

BATCH = 5000


def merge_rows(apps, schema_editor):
    """Fold each (version, document)'s per-metric rows into its first row's ``metrics``."""
    Score = apps.get_model("scores", "DocumentScore")
    rows = (
        Score.objects.order_by("version_id", "document_id", "id")
        .values_list("id", "version_id", "document_id", "metric", "value", "fam_id")
        .iterator(chunk_size=BATCH)
    )
    kept: list = []
    dropped: list[int] = []
    pair = None

    def flush():
        Score.objects.bulk_update(kept, ["metrics", "fam"], batch_size=1000)
        Score.objects.filter(pk__in=dropped).delete()
        kept.clear()
        dropped.clear()

    for pk, version_id, document_id, metric, value, fam_id in rows:
        if (version_id, document_id) != pair:
            if len(kept) >= BATCH:
                flush()
            pair = (version_id, document_id)
            kept.append(Score(pk=pk, metrics={}, fam_id=None))
        else:
            dropped.append(pk)
        row = kept[-1]
        row.metrics[metric] = value
        if "@" in metric and fam_id is not None:
            row.fam_id = fam_id
    flush()
    if schema_editor.connection.vendor == "postgresql":
        # Check the deferred foreign keys of the rows updated now: PostgreSQL does not alter
        # a table with pending trigger events, and the columns go next.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def delete_scores(apps, schema_editor):
    apps.get_model("scores", "DocumentScore").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("scores", "0003_autofar_l_any_finite_value"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="documentscore", name="document_score_value_in_range"),
        migrations.RemoveConstraint(model_name="documentscore", name="document_score_unique"),
        migrations.RemoveIndex(model_name="documentscore", name="document_score_by_metric"),
        migrations.AddField(
            model_name="documentscore",
            name="metrics",
            field=models.JSONField(
                decoder=scoring.scores.models.ScoreDecoder,
                default=dict,
                help_text="metric key -> value",
            ),
        ),
        migrations.RunPython(merge_rows, migrations.RunPython.noop, elidable=True),
        migrations.RemoveField(model_name="documentscore", name="metric"),
        migrations.RemoveField(model_name="documentscore", name="value"),
        migrations.AlterModelOptions(
            name="documentscore", options={"ordering": ["version", "document"]}
        ),
        migrations.AddConstraint(
            model_name="documentscore",
            constraint=models.UniqueConstraint(
                fields=("version", "document"), name="document_score_unique"
            ),
        ),
        # Reversed first: the per-metric columns come back on an empty table.
        migrations.RunPython(migrations.RunPython.noop, delete_scores, elidable=True),
    ]

"""Cross-dataset runs count their pairs as the job kernel's chunks (renamed, values kept)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("crossdataset", "0001_initial")]

    operations = [
        migrations.RemoveConstraint(
            model_name="crossdatasettestrun", name="crossdataset_run_pairs_done_le_total"
        ),
        migrations.RenameField(
            model_name="crossdatasettestrun", old_name="pairs_total", new_name="chunks_total"
        ),
        migrations.RenameField(
            model_name="crossdatasettestrun", old_name="pairs_done", new_name="chunks_done"
        ),
    ]

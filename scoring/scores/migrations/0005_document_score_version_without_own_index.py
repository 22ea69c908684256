# DocumentScore.version loses its own index: the unique (version, document) index begins
# with the version and serves every read by version; one index less to write per score row.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scores', '0004_document_score_one_row_per_output'),
        ('systems', '0002_output_versions'),
    ]

    operations = [
        migrations.AlterField(
            model_name='documentscore',
            name='version',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='systems.outputversion'),
        ),
    ]

# A release's own automatic scores of its outputs (ReleasedScore), kept as a reference: the
# REALSumm authors' ROUGE, JS-2, BERTScore and MoverScore under their own keys.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('corpus', '0004_document_n_sentences'),
        ('judgments', '0001_initial'),
        ('systems', '0002_output_versions'),
    ]

    operations = [
        migrations.CreateModel(
            name='ReleasedScore',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('release', models.SlugField(max_length=64)),
                ('scores', models.JSONField(help_text="Key -> value, under the release's own keys.")),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('dataset', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='released_scores', to='corpus.dataset')),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='released_scores', to='corpus.document')),
                ('system', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='released_scores', to='systems.system')),
            ],
            options={
                'ordering': ['dataset', 'release', 'system', 'document'],
                'constraints': [models.UniqueConstraint(fields=('dataset', 'release', 'system', 'document'), name='released_score_unique_per_output')],
            },
        ),
    ]

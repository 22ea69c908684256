"""Human judgments move here from the leaderboards app; the table keeps its name (state only)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('corpus', '0001_initial'),
        ('systems', '0002_output_versions'),
        ('leaderboards', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='HumanJudgment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.SlugField(max_length=64)),
                        ('kind', models.CharField(choices=[('score', 'Score (higher is better)'), ('rank', 'Rank (1 is best)')], max_length=5)),
                        ('value', models.FloatField()),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('dataset', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='corpus.dataset')),
                        ('document', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='corpus.document')),
                        ('system', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgments', to='systems.system')),
                        ('uploaded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'leaderboards_humanjudgment',
                        'ordering': ['dataset', 'name', 'system', 'document'],
                        'constraints': [models.UniqueConstraint(fields=('dataset', 'name', 'system', 'document'), name='judgment_unique_per_document'), models.UniqueConstraint(condition=models.Q(('document__isnull', True)), fields=('dataset', 'name', 'system'), name='judgment_unique_per_system'), models.CheckConstraint(condition=models.Q(('kind__in', ['score', 'rank'])), name='judgment_kind_valid')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]

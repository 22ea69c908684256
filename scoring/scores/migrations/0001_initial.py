"""Initial schema of the app."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('corpus', '0001_initial'),
        ('fams', '0002_fam_category_override_famrevision'),
        ('systems', '0002_output_versions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ScoringJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('trigger', models.CharField(choices=[('upload', 'Outputs uploaded'), ('fams', 'Gold FAMs changed'), ('manual', 'Asked for (button, API or command)')], max_length=8)),
                ('ks', models.JSONField(default=list, help_text='FAR cut-offs to compute, e.g. [3].')),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=10)),
                ('chunks_total', models.PositiveIntegerField(default=0)),
                ('chunks_done', models.PositiveIntegerField(default=0)),
                ('outputs_total', models.PositiveIntegerField(default=0)),
                ('scores_written', models.PositiveIntegerField(default=0)),
                ('dispatches', models.PositiveSmallIntegerField(default=0, help_text='How many times the chunks were sent to the workers.')),
                ('error', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ('dataset', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scoring_jobs', to='corpus.dataset')),
                ('versions', models.ManyToManyField(blank=True, related_name='scoring_jobs', to='systems.outputversion')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='ScoringChunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('index', models.PositiveIntegerField()),
                ('output_ids', models.JSONField()),
                ('scores_written', models.PositiveIntegerField(default=0)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('done_at', models.DateTimeField(blank=True, null=True)),
                ('job', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='scores.scoringjob')),
            ],
            options={
                'ordering': ['job', 'index'],
            },
        ),
        migrations.CreateModel(
            name='DocumentScore',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('metric', models.CharField(max_length=24)),
                ('value', models.FloatField()),
                ('computed_at', models.DateTimeField(auto_now=True)),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='corpus.document')),
                ('fam', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='fams.fam')),
                ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='systems.outputversion')),
                ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='scores.scoringjob')),
            ],
            options={
                'ordering': ['version', 'document', 'metric'],
            },
        ),
        migrations.AddConstraint(
            model_name='scoringjob',
            constraint=models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'succeeded', 'failed'])), name='scoring_job_status_valid'),
        ),
        migrations.AddConstraint(
            model_name='scoringjob',
            constraint=models.CheckConstraint(condition=models.Q(('trigger__in', ['upload', 'fams', 'manual'])), name='scoring_job_trigger_valid'),
        ),
        migrations.AddConstraint(
            model_name='scoringjob',
            constraint=models.CheckConstraint(condition=models.Q(('chunks_done__lte', models.F('chunks_total'))), name='scoring_job_chunks_done_le_total'),
        ),
        migrations.AddConstraint(
            model_name='scoringchunk',
            constraint=models.UniqueConstraint(fields=('job', 'index'), name='scoring_chunk_index_unique'),
        ),
        migrations.AddIndex(
            model_name='documentscore',
            index=models.Index(fields=['version', 'metric'], name='document_score_by_metric'),
        ),
        migrations.AddConstraint(
            model_name='documentscore',
            constraint=models.UniqueConstraint(fields=('version', 'document', 'metric'), name='document_score_unique'),
        ),
        migrations.AddConstraint(
            model_name='documentscore',
            constraint=models.CheckConstraint(condition=models.Q(('value__gte', 0.0), ('value__lte', 1.0)), name='document_score_value_is_a_fraction'),
        ),
    ]

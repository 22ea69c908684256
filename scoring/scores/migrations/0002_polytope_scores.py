"""PolyTope scores: value rule for percent scores and counts, the spans trigger, ErrorBreakdown."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("corpus", "0001_initial"),
        ("fams", "0003_annotationset_scheme"),
        ("scores", "0001_initial"),
        ("systems", "0002_output_versions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ErrorBreakdown",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scheme", models.CharField(max_length=32)),
                ("counts", models.JSONField(blank=True, default=dict)),
                ("computed_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["version", "document", "scheme"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="documentscore",
            name="document_score_value_is_a_fraction",
        ),
        migrations.RemoveConstraint(
            model_name="scoringjob",
            name="scoring_job_trigger_valid",
        ),
        migrations.AlterField(
            model_name="scoringjob",
            name="trigger",
            field=models.CharField(
                choices=[
                    ("upload", "Outputs uploaded"),
                    ("fams", "Gold FAMs changed"),
                    ("spans", "Scored error spans changed"),
                    ("manual", "Asked for (button, API or command)"),
                ],
                max_length=8,
            ),
        ),
        migrations.AddConstraint(
            model_name="documentscore",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("metric", "polytope"), ("value__lte", 100.0)),
                    models.Q(
                        (
                            "metric__in",
                            (
                                "polytope_penalty",
                                "polytope_words",
                                "polytope_critical",
                                "polytope_major",
                                "polytope_minor",
                            ),
                        ),
                        ("value__gte", 0.0),
                    ),
                    models.Q(
                        models.Q(
                            (
                                "metric__in",
                                (
                                    "polytope",
                                    "polytope_penalty",
                                    "polytope_words",
                                    "polytope_critical",
                                    "polytope_major",
                                    "polytope_minor",
                                ),
                            ),
                            _negated=True,
                        ),
                        ("value__gte", 0.0),
                        ("value__lte", 1.0),
                    ),
                    _connector="OR",
                ),
                name="document_score_value_in_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="scoringjob",
            constraint=models.CheckConstraint(
                condition=models.Q(("trigger__in", ["upload", "fams", "spans", "manual"])),
                name="scoring_job_trigger_valid",
            ),
        ),
        migrations.AddField(
            model_name="errorbreakdown",
            name="annotation_set",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="fams.annotationset",
            ),
        ),
        migrations.AddField(
            model_name="errorbreakdown",
            name="document",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="corpus.document"
            ),
        ),
        migrations.AddField(
            model_name="errorbreakdown",
            name="job",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="scores.scoringjob",
            ),
        ),
        migrations.AddField(
            model_name="errorbreakdown",
            name="version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="error_breakdowns",
                to="systems.outputversion",
            ),
        ),
        migrations.AddConstraint(
            model_name="errorbreakdown",
            constraint=models.UniqueConstraint(
                fields=("version", "document", "scheme"), name="error_breakdown_unique"
            ),
        ),
    ]

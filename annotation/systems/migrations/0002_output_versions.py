"""Output versions: every existing (system, dataset) set of outputs becomes its version 1."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def number_existing_outputs(apps, schema_editor):
    """Give the outputs each (system, dataset) already has one version, numbered 1."""
    SystemOutput = apps.get_model("systems", "SystemOutput")
    OutputVersion = apps.get_model("systems", "OutputVersion")
    pairs = (
        SystemOutput.objects.values_list("system_id", "document__dataset_id").distinct().order_by()
    )
    for system_id, dataset_id in list(pairs):
        version = OutputVersion.objects.create(
            system_id=system_id, dataset_id=dataset_id, number=1, source="before versioning"
        )
        SystemOutput.objects.filter(system_id=system_id, document__dataset_id=dataset_id).update(
            version=version
        )


class Migration(migrations.Migration):
    dependencies = [
        ("corpus", "0001_initial"),
        ("systems", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="OutputVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "source",
                    models.CharField(
                        blank=True, help_text="File or release it came from.", max_length=500
                    ),
                ),
                (
                    "report",
                    models.JSONField(
                        blank=True, default=list, help_text="The upload report's lines."
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["system", "dataset", "number"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="systemoutput",
            name="system_output_unique_per_document",
        ),
        migrations.AddField(
            model_name="outputversion",
            name="dataset",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="output_versions",
                to="corpus.dataset",
            ),
        ),
        migrations.AddField(
            model_name="outputversion",
            name="system",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="versions",
                to="systems.system",
            ),
        ),
        migrations.AddField(
            model_name="outputversion",
            name="uploaded_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="systemoutput",
            name="version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="outputs",
                to="systems.outputversion",
            ),
        ),
        migrations.RunPython(number_existing_outputs, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="systemoutput",
            name="version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="outputs",
                to="systems.outputversion",
            ),
        ),
        migrations.AddConstraint(
            model_name="systemoutput",
            constraint=models.UniqueConstraint(
                fields=("version", "document"), name="system_output_unique_per_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="outputversion",
            constraint=models.UniqueConstraint(
                fields=("system", "dataset", "number"), name="output_version_number_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="outputversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("number__gte", 1)), name="output_version_number_positive"
            ),
        ),
    ]

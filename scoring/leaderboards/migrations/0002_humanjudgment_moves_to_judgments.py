"""Human judgments now belong to the judgments app; their table stays (state only)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0001_initial'),
        ('judgments', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='HumanJudgment')],
            database_operations=[],
        ),
    ]

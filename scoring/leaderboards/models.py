"""Leaderboard models: a cache of computed leaderboards."""

from django.db import models

from annotation.corpus.models import Dataset


class LeaderboardSnapshot(models.Model):
    """A computed leaderboard, reused while its ``stamp`` (what it was computed from) holds."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="+")
    params = models.CharField(max_length=200, help_text="Category, k, common-only and sort.")
    stamp = models.CharField(max_length=200, help_text="Versions, last job and judgments.")
    payload = models.JSONField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "params"], name="leaderboard_snapshot_unique"
            )
        ]

    def __str__(self) -> str:
        return f"leaderboard {self.dataset_id} {self.params}"

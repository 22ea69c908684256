"""User-management models: an invitation (or password-reset) link, usable once before it expires."""

from django.conf import settings
from django.db import models


class InvitationKind(models.TextChoices):
    INVITE = "invite", "Invitation"
    RESET = "reset", "Password reset"


class Invitation(models.Model):
    """A one-time link with which a user sets their password.

    Only the SHA-256 of the link's secret is stored: the secret itself is shown once, to the
    admin who made the link. ``used_at`` is set when the password is set through it,
    ``revoked_at`` when a newer link for the same user or a deactivation makes it void.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    kind = models.CharField(max_length=8, choices=InvitationKind.choices)
    secret_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expires_at__gt=models.F("created_at")),
                name="invitation_expires_after_creation",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.user}"

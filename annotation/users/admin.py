"""Admin pages for users: the invitations, read-only (their secrets are stored hashed)."""

from django.contrib import admin

from .models import Invitation


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "created_at", "expires_at", "used_at", "revoked_at")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    readonly_fields = [field.name for field in Invitation._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

"""Campaign agreement API: read a campaign's latest agreement (FAM or spans), ask for a new one."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import ADMIN, IsAnyRole, has_role
from annotation.adjudication.selectors import user_may_adjudicate
from annotation.campaigns.models import Campaign, CampaignKind

from .fam_selectors import campaign_agreement_get
from .fam_services import fam_agreement_request
from .models import RunStatus


class IsAgreementReader(BasePermission):
    """Admins, and the adjudicators of the campaign named by the URL."""

    message = "Only admins and this campaign's adjudicators may read its agreement."

    def has_permission(self, request, view) -> bool:
        return user_may_adjudicate(user=request.user, campaign_id=view.kwargs["pk"])


class IsAdminToRecompute(BasePermission):
    message = "Only admins may ask for a campaign's agreement to be computed."

    def has_permission(self, request, view) -> bool:
        return has_role(request.user, ADMIN)


class CampaignAgreementSerializer(serializers.Serializer):
    """A campaign's agreement: the latest result, whether it is stale, the latest run's state."""

    class RunSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        status = serializers.CharField()
        trigger = serializers.CharField(allow_null=True)
        created_at = serializers.DateTimeField()
        started_at = serializers.DateTimeField(allow_null=True)
        finished_at = serializers.DateTimeField(allow_null=True)
        recoveries = serializers.IntegerField(
            help_text="How many times the job kernel's watchdog re-sent the run's work."
        )
        recovery_note = serializers.CharField(allow_blank=True, help_text="The last recovery.")

    kind = serializers.CharField(help_text="fam (a FAM campaign) or spans (a PolyTope campaign).")
    status = serializers.CharField(
        help_text="The latest run's status: queued, running, succeeded, failed; none before any."
    )
    stale = serializers.BooleanField(
        help_text="The result was computed from other annotations than the campaign's now."
    )
    inputs_digest = serializers.CharField(allow_null=True)
    current_digest = serializers.CharField(allow_null=True)
    computed_at = serializers.DateTimeField(allow_null=True)
    result = serializers.JSONField(
        allow_null=True, help_text="The latest succeeded run's figures (CONTRACTS section B)."
    )
    error = serializers.CharField(allow_blank=True, help_text="Why the latest run failed.")
    run = RunSerializer(allow_null=True)
    systems_hidden = serializers.BooleanField(
        help_text="The result leaves out which system each item comes from (per_system, the "
        "items' system and output): a system-blind PolyTope campaign, not Done, read by one of "
        "its annotators or a non-admin."
    )


class CampaignAgreementApi(APIView):
    """GET: a campaign's agreement (admins, its adjudicators). POST: compute it now (admins).

    Until a system-blind PolyTope campaign is Done, its annotators and adjudicators who are not
    admins get the figures without which system each item comes from (``systems_hidden``).

    POST answers 200 with the current figures when the campaign's annotations have not changed
    since the latest run succeeded, else 202 once a run waits for a worker.
    """

    def get_permissions(self):
        if self.request.method == "POST":
            return [IsAnyRole(), IsAdminToRecompute()]
        return [IsAnyRole(), IsAgreementReader()]

    @extend_schema(responses=CampaignAgreementSerializer)
    def get(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        return Response(campaign_agreement_get(campaign=campaign, user=request.user))

    @extend_schema(
        request=None,
        responses={200: CampaignAgreementSerializer, 202: CampaignAgreementSerializer},
    )
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        if campaign.kind == CampaignKind.POLYTOPE:
            from .services import span_agreement_run_create

            # Submitted work only, as the runs queued after each submission count it, so an
            # up-to-date automatic run is reused.
            run = span_agreement_run_create(
                campaign=campaign.pk, submitted_only=True, user=request.user
            )
            queued = run.status != RunStatus.SUCCEEDED  # an unchanged campaign's run is reused
        else:
            _, queued = fam_agreement_request(campaign=campaign, user=request.user)
        code = status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK
        return Response(campaign_agreement_get(campaign=campaign, user=request.user), status=code)

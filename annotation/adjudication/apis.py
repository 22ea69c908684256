"""Adjudication APIs: grant adjudicators (admins); list, compare and adjudicate a campaign's
documents to gold, mark them done or reopen them (admins and the campaign's adjudicators)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin, IsAnyRole
from annotation.campaigns.models import Campaign, CampaignKind
from config.exceptions import ApplicationError

from . import selectors, services


class IsCampaignAdjudicator(BasePermission):
    """Admins, and users granted adjudicator on the campaign named by the URL's campaign_id."""

    message = "Only admins and this campaign's adjudicators may do this."

    def has_permission(self, request, view) -> bool:
        return selectors.user_may_adjudicate(
            user=request.user, campaign_id=view.kwargs["campaign_id"]
        )


ADJUDICATOR = [IsAnyRole, IsCampaignAdjudicator]


class AdjudicatorsSerializer(serializers.Serializer):
    adjudicators = serializers.ListField(
        child=serializers.CharField(), help_text="Usernames (admins adjudicate every campaign)."
    )


class CampaignAdjudicatorsApi(APIView):
    """A campaign's adjudicators: read them, or set exactly this list (admins)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        adjudicators = serializers.ListField(
            child=serializers.CharField(max_length=150), max_length=200, allow_empty=True
        )

    @extend_schema(responses=AdjudicatorsSerializer)
    def get(self, request, campaign_id: int):
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        names = selectors.campaign_adjudicator_names(campaign=campaign)
        return Response(AdjudicatorsSerializer({"adjudicators": names}).data)

    @extend_schema(request=InputSerializer, responses=AdjudicatorsSerializer)
    def post(self, request, campaign_id: int):
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        grants = services.campaign_adjudicators_set(
            campaign=campaign, usernames=data.validated_data["adjudicators"], user=request.user
        )
        names = [grant.user.username for grant in grants]
        return Response(AdjudicatorsSerializer({"adjudicators": names}).data)


class CampaignBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField()
    dataset = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField()
    reference_position = serializers.IntegerField()
    annotators_per_document = serializers.IntegerField()
    gold_set = serializers.DictField(allow_null=True)
    adjudicators = serializers.ListField(child=serializers.CharField())
    writable = serializers.BooleanField(help_text="False once the campaign is closed.")


class AdjudicationListApi(APIView):
    """A campaign's documents: annotators, submissions, agreement, adjudication state, gold."""

    permission_classes = ADJUDICATOR

    class OutputSerializer(serializers.Serializer):
        class DocumentSerializer(serializers.Serializer):
            id = serializers.IntegerField()
            external_id = serializers.CharField()
            category = serializers.CharField(allow_blank=True)
            annotators = serializers.IntegerField()
            submitted = serializers.IntegerField()
            agreement = serializers.FloatField(allow_null=True)
            status = serializers.CharField(help_text="pending or done")
            gold_version = serializers.IntegerField(allow_null=True)
            gold_items = serializers.IntegerField(required=False, help_text="PolyTope only.")

        campaign = CampaignBriefSerializer()
        agreement_measure = serializers.CharField()
        documents = DocumentSerializer(many=True)

    @extend_schema(operation_id="adjudication_list", responses=OutputSerializer)
    def get(self, request, campaign_id: int):
        campaign = selectors.adjudication_campaign_get(campaign_id=campaign_id)
        body = selectors.adjudication_list(campaign=campaign, user=request.user)
        return Response(self.OutputSerializer(body).data)


class GoldFamSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="0: no gold FAM yet.")
    facets = serializers.ListField(
        child=serializers.DictField(), help_text='{"groups", "label", "note", "provenance"}'
    )
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class GoldSpansSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="0: no gold errors yet.")
    errors = serializers.ListField(child=serializers.DictField())
    no_errors = serializers.BooleanField()
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class _StateFields(serializers.Serializer):
    status = serializers.CharField(help_text="pending or done")
    status_by = serializers.CharField(allow_null=True)
    status_at = serializers.DateTimeField(allow_null=True)
    self_adjudicated = serializers.BooleanField()
    you_annotated = serializers.BooleanField()
    editable = serializers.BooleanField()
    previous = serializers.IntegerField(
        allow_null=True, help_text="The previous document the user may open (campaign order)."
    )
    next = serializers.IntegerField(
        allow_null=True, help_text="The next document the user may open (campaign order)."
    )
    index = serializers.IntegerField(allow_null=True, help_text="1-based place among them.")
    count = serializers.IntegerField(help_text="How many documents the user may open.")


class FamAdjudicationSerializer(_StateFields):
    """A FAM campaign document: the annotators' FAMs side by side, the diff, the gold."""

    kind = serializers.CharField(help_text="fam")
    campaign = CampaignBriefSerializer()
    document = serializers.DictField()
    reference = serializers.DictField()
    annotations = serializers.ListField(child=serializers.DictField())
    waiting = serializers.ListField(child=serializers.CharField())
    diff = serializers.ListField(child=serializers.DictField())
    agreement = serializers.FloatField(allow_null=True)
    agreement_measure = serializers.CharField()
    gold = GoldFamSerializer()


class SpansAdjudicationSerializer(_StateFields):
    """A PolyTope campaign document: per item, the annotators' errors, the diff, the gold."""

    kind = serializers.CharField(help_text="polytope")
    campaign = CampaignBriefSerializer()
    document = serializers.DictField()
    scheme = serializers.DictField()
    items = serializers.ListField(child=serializers.DictField())
    agreement = serializers.FloatField(allow_null=True)
    agreement_measure = serializers.CharField()


ADJUDICATION_BODY = PolymorphicProxySerializer(
    component_name="AdjudicationDocument",
    serializers={"fam": FamAdjudicationSerializer, "polytope": SpansAdjudicationSerializer},
    resource_type_field_name="kind",
)


class GoldItemSavedSerializer(GoldSpansSerializer):
    item = serializers.CharField(help_text="The item's opaque id.")
    output = serializers.IntegerField(
        allow_null=True, help_text="The item's output id; null while the campaign hides it."
    )


class GoldSpansSavedSerializer(serializers.Serializer):
    items = GoldItemSavedSerializer(many=True)


def _campaign_document(campaign_id: int, document_id: int, user):
    campaign = selectors.adjudication_campaign_get(campaign_id=campaign_id)
    document = selectors.adjudication_document_get(campaign=campaign, document_id=document_id)
    selectors.adjudication_document_check_open(campaign=campaign, document=document, user=user)
    return campaign, document


class AdjudicationDocumentApi(APIView):
    """One document: read the annotations side by side with the gold, or save the gold.

    A FAM campaign's gold is saved as ``{"base_version", "facets"}`` (each facet with its
    ``provenance``); a PolyTope campaign's as ``{"items": [{"item", "base_version",
    "errors", "no_errors"}]}``, each item named by the opaque ``item`` id the document's
    items carry (or by ``output`` for a user shown output ids). A stale base version gets 409
    with the server's state.

    Until a system-blind PolyTope campaign is Done, the items' systems and output ids are
    null for anyone who annotates it and for readers who are not admins.
    """

    permission_classes = ADJUDICATOR

    class InputSerializer(serializers.Serializer):
        base_version = serializers.IntegerField(
            min_value=0, required=False, help_text="FAM: the gold version edited (0: none yet)."
        )
        facets = serializers.ListField(
            child=serializers.JSONField(), required=False, max_length=500, help_text="FAM."
        )
        items = serializers.ListField(
            child=serializers.DictField(),
            required=False,
            min_length=1,
            max_length=100,
            help_text='PolyTope: [{"item", "base_version", "errors", "no_errors"}].',
        )

    @extend_schema(operation_id="adjudication_document", responses=ADJUDICATION_BODY)
    def get(self, request, campaign_id: int, document_id: int):
        campaign, document = _campaign_document(campaign_id, document_id, request.user)
        body = selectors.adjudication_document(
            campaign=campaign, document=document, user=request.user
        )
        serializer = (
            SpansAdjudicationSerializer
            if campaign.kind == CampaignKind.POLYTOPE
            else FamAdjudicationSerializer
        )
        return Response(serializer(body).data)

    @extend_schema(
        request=InputSerializer,
        responses=PolymorphicProxySerializer(
            component_name="GoldSaved",
            serializers=[GoldFamSerializer, GoldSpansSavedSerializer],
            resource_type_field_name=None,
        ),
    )
    def put(self, request, campaign_id: int, document_id: int):
        campaign, document = _campaign_document(campaign_id, document_id, request.user)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        if "facets" in fields and "items" in fields:
            raise ApplicationError(
                "Send either facets (a FAM campaign's gold) or items (a PolyTope campaign's), "
                "not both."
            )
        if campaign.kind == CampaignKind.POLYTOPE:
            if "items" not in fields:
                raise ApplicationError("A PolyTope campaign's gold is saved as items.")
            rows = services.gold_spans_save(
                campaign=campaign, document=document, items=fields["items"], user=request.user
            )
            body = {
                "items": [
                    {
                        "item": rows.names.ids[row.output_id],
                        "output": rows.names.shown(row.output_id),
                        "version": row.version,
                        "errors": row.errors if row.version else [],
                        "no_errors": row.no_errors if row.version else False,
                        "updated_at": row.updated_at if row.version else None,
                        "updated_by": selectors.latest_author(row),
                    }
                    for row in rows
                ]
            }
            return Response(GoldSpansSavedSerializer(body).data)
        if "facets" not in fields or "base_version" not in fields:
            raise ApplicationError("A FAM campaign's gold is saved as base_version and facets.")
        fam = services.gold_fam_save(
            campaign=campaign,
            document=document,
            facets=fields["facets"],
            base_version=fields["base_version"],
            user=request.user,
        )
        body = {
            "version": fam.version,
            "facets": [{"provenance": None, **facet} for facet in fam.facets],
            "updated_at": fam.updated_at if fam.version else None,
            "updated_by": selectors.latest_author(fam),
        }
        return Response(GoldFamSerializer(body).data)


class AdjudicationStateSerializer(serializers.Serializer):
    document = serializers.IntegerField()
    external_id = serializers.CharField()
    status = serializers.CharField(help_text="pending or done")
    status_by = serializers.CharField(allow_null=True)
    status_at = serializers.DateTimeField(allow_null=True)
    self_adjudicated = serializers.BooleanField()


class AdjudicationDoneApi(APIView):
    """Mark the document adjudicated: its gold is complete; its tasks can no longer reopen."""

    permission_classes = ADJUDICATOR

    @extend_schema(request=None, responses=AdjudicationStateSerializer)
    def post(self, request, campaign_id: int, document_id: int):
        campaign, document = _campaign_document(campaign_id, document_id, request.user)
        services.document_adjudication_mark(campaign=campaign, document=document, user=request.user)
        body = selectors.adjudication_state(campaign=campaign, document=document)
        return Response(AdjudicationStateSerializer(body).data)


class AdjudicationReopenApi(APIView):
    """Undo "adjudicated": the gold may change again and the document's tasks may reopen."""

    permission_classes = ADJUDICATOR

    @extend_schema(request=None, responses=AdjudicationStateSerializer)
    def post(self, request, campaign_id: int, document_id: int):
        campaign, document = _campaign_document(campaign_id, document_id, request.user)
        services.document_adjudication_reopen(
            campaign=campaign, document=document, user=request.user
        )
        body = selectors.adjudication_state(campaign=campaign, document=document)
        return Response(AdjudicationStateSerializer(body).data)

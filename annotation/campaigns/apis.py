"""Campaign and task APIs: campaigns (admins: create, edit, staff, state, progress), tasks, FAM
and span saves, suggestions, presence."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import IsAdmin, IsAnyRole
from annotation.corpus.models import Category, Dataset

from . import selectors, services
from .models import (
    CAMPAIGN_TRANSITIONS,
    Campaign,
    CampaignKind,
    CampaignStatus,
    SuggestionAction,
    Task,
)


class IsTaskAnnotator(BasePermission):
    """Writes to a task are its annotator's alone (researchers and admins only read)."""

    message = "Only the task's annotator may change it."

    def has_object_permission(self, request, view, obj) -> bool:
        return obj.annotator_id == request.user.pk


class IsCampaignReader(BasePermission):
    """A campaign's details are for admins and the campaign's adjudicators."""

    message = "Only admins and this campaign's adjudicators may read it."

    def has_object_permission(self, request, view, obj) -> bool:
        return selectors.campaign_may_read(campaign=obj, user=request.user)


class IsTaskAnnotatorOrAdmin(BasePermission):
    """Only the task's annotator and admins may announce that they have the task open."""

    message = "Only the task's annotator or an admin may do this."

    def has_object_permission(self, request, view, obj) -> bool:
        return selectors.task_presence_may_announce(task=obj, user=request.user)


class CampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    dataset = serializers.CharField(source="dataset.slug")
    reference_position = serializers.IntegerField()
    annotators_per_document = serializers.IntegerField()
    scorers = serializers.ListField(child=serializers.CharField())
    rouge_use_stemmer = serializers.BooleanField()
    top_k = serializers.IntegerField()
    blind = serializers.BooleanField()
    kind = serializers.CharField()
    systems = serializers.SerializerMethodField()
    systems_hidden = serializers.SerializerMethodField()
    system_blind = serializers.BooleanField()
    status = serializers.CharField()
    suggestions_status = serializers.CharField()
    task_count = serializers.IntegerField(default=0)
    done_count = serializers.IntegerField(default=0)

    def to_representation(self, campaign) -> dict:
        # Whether ``systems`` is left empty for the reader (``context["user"]``, when given):
        # decided once per campaign, for both fields (see
        # :func:`annotation.campaigns.selectors.campaign_systems_hidden`).
        self._systems_hidden = "user" in self.context and selectors.campaign_systems_hidden(
            campaign=campaign, user=self.context["user"]
        )
        return super().to_representation(campaign)

    def get_systems(self, campaign) -> list[str]:
        if self._systems_hidden:
            return []
        return sorted(system.slug for system in campaign.systems.all())

    def get_systems_hidden(self, campaign) -> bool:
        """Whether ``systems`` is left empty for the reader (``context["user"]``, when given)."""
        return self._systems_hidden


class CampaignListApi(APIView):
    """Every campaign with its progress (admins)."""

    permission_classes = [IsAdmin]

    @extend_schema(responses=CampaignSerializer(many=True))
    def get(self, request):
        return Response(CampaignSerializer(selectors.campaign_list(), many=True).data)


class CampaignDetailSerializer(CampaignSerializer):
    """A campaign with everything its admin page shows (``sample`` is null unless sampled)."""

    dataset_name = serializers.CharField(source="dataset.name")
    instructions = serializers.CharField()
    document_count = serializers.IntegerField()
    annotators = serializers.ListField(child=serializers.CharField(), source="annotator_names")
    adjudicators = serializers.ListField(child=serializers.CharField(), source="adjudicator_names")
    sample = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    status_label = serializers.CharField(source="get_status_display")
    statuses_allowed = serializers.SerializerMethodField()

    def get_statuses_allowed(self, campaign) -> list[str]:
        return list(CAMPAIGN_TRANSITIONS[campaign.status])


def _detail(campaign: Campaign, request) -> dict:
    """The campaign's details as the request's user reads them (systems hidden from some)."""
    return CampaignDetailSerializer(campaign, context={"user": request.user}).data


class CampaignCreateApi(APIView):
    """Create a campaign: FAMs (suggestions precomputed by a Celery worker) or PolyTope spans.

    The documents are chosen one way: ``documents`` (ids), ``categories``, a seeded
    ``sample``, or none of them (every document). A PolyTope campaign (``kind`` ``polytope``)
    annotates the outputs of ``systems`` (each must have an output for every chosen document)
    and has no suggestions. ``annotators`` are assigned at once, round-robin, each document to
    ``annotators_per_document`` of them. A refused choice names its field (``extra.field``).
    """

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        class SampleSerializer(serializers.Serializer):
            size = serializers.IntegerField(min_value=1)
            seed = serializers.IntegerField(
                required=False, allow_null=True, help_text="Drawn (and recorded) when missing."
            )
            categories = serializers.ListField(
                child=serializers.CharField(), required=False, allow_null=True
            )

        dataset = serializers.SlugField()
        slug = serializers.SlugField(max_length=64)
        name = serializers.CharField(max_length=200)
        # A string, not an enum in the schema: an enum of fields named "kind" would collide
        # with the systems' kind (extractive/abstractive) in drf-spectacular's enum names.
        kind = serializers.CharField(default="fam", help_text="fam (default) or polytope")
        documents = serializers.ListField(
            child=serializers.CharField(), required=False, allow_empty=True
        )
        categories = serializers.ListField(
            child=serializers.CharField(), required=False, help_text="noise, low, high"
        )
        sample = SampleSerializer(required=False)
        systems = serializers.ListField(child=serializers.SlugField(), required=False)
        reference_position = serializers.IntegerField(min_value=0, default=0)
        annotators_per_document = serializers.IntegerField(min_value=1, max_value=50, default=1)
        scorers = serializers.ListField(child=serializers.CharField(), required=False)
        top_k = serializers.IntegerField(min_value=1, max_value=20, default=3)
        rouge_use_stemmer = serializers.BooleanField(
            default=True, help_text="ROUGE suggestions stem words (rouge-score's use_stemmer)."
        )
        blind = serializers.BooleanField(default=True)
        system_blind = serializers.BooleanField(default=True)
        instructions = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=20000, trim_whitespace=False
        )
        annotators = serializers.ListField(child=serializers.CharField(), required=False)
        adjudicators = serializers.ListField(child=serializers.CharField(), required=False)

        def validate_kind(self, value: str) -> str:
            if value not in CampaignKind.values:
                raise serializers.ValidationError(f"Choose one of {CampaignKind.values}.")
            return value

    class OutputSerializer(CampaignDetailSerializer):
        tasks_created = serializers.IntegerField()
        notes = serializers.ListField(child=serializers.CharField())

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        slug = fields.pop("dataset")
        dataset = Dataset.objects.filter(slug=slug).first()
        if dataset is None:
            raise services.field_error("dataset", f"Unknown dataset {slug!r}.")
        if "sample" in fields:
            fields["sample"] = dict(fields["sample"])
        launch = services.campaign_launch(dataset=dataset, user=request.user, **fields)
        campaign = selectors.campaign_get(pk=launch.campaign.pk)
        campaign.tasks_created, campaign.notes = len(launch.tasks), launch.notes
        return Response(self.OutputSerializer(campaign).data, status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    """One campaign (GET: admins and its adjudicators); PATCH its name, instructions or the
    stemming of its ROUGE suggestions, which are then computed again (admins).

    Until a system-blind PolyTope campaign is Done, its ``systems`` are left out (empty,
    ``systems_hidden`` true) for readers who annotate it or are not admins.
    """

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, required=False)
        instructions = serializers.CharField(
            max_length=20000, required=False, allow_blank=True, trim_whitespace=False
        )
        rouge_use_stemmer = serializers.BooleanField(required=False)

    def get_permissions(self):
        if self.request.method == "GET":
            return [IsAnyRole(), IsCampaignReader()]
        return [IsAdmin()]

    @extend_schema(responses=CampaignDetailSerializer)
    def get(self, request, pk: int):
        campaign = selectors.campaign_get(pk=pk)
        self.check_object_permissions(request, campaign)
        return Response(_detail(campaign, request))

    @extend_schema(request=InputSerializer, responses=CampaignDetailSerializer)
    def patch(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.campaign_update(campaign=campaign, **data.validated_data)
        campaign = selectors.campaign_get(pk=pk)
        return Response(_detail(campaign, request))


class CampaignStatusApi(APIView):
    """Move a campaign: Annotating (open) -> Adjudicating (adjudication) -> Done (closed).

    From Adjudicating it may go back to Annotating; Done is final.
    """

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=CampaignStatus.values)

    @extend_schema(request=InputSerializer, responses=CampaignDetailSerializer)
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.campaign_status_set(campaign=campaign, status=data.validated_data["status"])
        campaign = selectors.campaign_get(pk=pk)
        return Response(_detail(campaign, request))


class TaskSummarySerializer(serializers.Serializer):
    """A task in a list; a PolyTope item's system (and its output's id) is hidden (None) when
    the campaign is system-blind, unless the reader (``context["user"]``) is an admin other
    than its annotator."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    kind = serializers.CharField(source="campaign.kind")
    campaign = serializers.SerializerMethodField()
    document = serializers.SerializerMethodField()
    output = serializers.SerializerMethodField()
    annotator = serializers.CharField(source="annotator.username")
    updated_at = serializers.DateTimeField()

    def get_campaign(self, task) -> dict:
        campaign = task.campaign
        return {
            "id": campaign.pk,
            "name": campaign.name,
            "slug": campaign.slug,
            "status": campaign.status,
        }

    def get_document(self, task) -> dict:
        return {"id": task.document_id, "external_id": task.document.external_id}

    def get_output(self, task) -> dict | None:
        if task.output_id is None:
            return None
        user = self.context.get("user")
        system = selectors.system_shown(task=task, user=user)
        # Output ids are numbered system by system: a hidden system hides its output's id too.
        return {"id": task.output_id if system else None, "system": system}


class CampaignAssignApi(APIView):
    """Assign tasks: round-robin over annotators, or an explicit list (admins)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        class AssignmentSerializer(serializers.Serializer):
            document = serializers.CharField()
            annotator = serializers.CharField()
            system = serializers.SlugField(required=False, help_text="PolyTope: one item only.")

        strategy = serializers.ChoiceField(choices=["round_robin", "manual"])
        annotators = serializers.ListField(child=serializers.CharField(), required=False)
        assignments = AssignmentSerializer(many=True, required=False)

    class OutputSerializer(serializers.Serializer):
        created = serializers.IntegerField()
        tasks = TaskSummarySerializer(many=True)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if data.validated_data["strategy"] == "round_robin":
            tasks = services.tasks_assign_round_robin(
                campaign=campaign, annotators=data.validated_data.get("annotators", [])
            )
        else:
            pairs = [
                (a["document"], a["annotator"], *([a["system"]] if "system" in a else []))
                for a in data.validated_data.get("assignments", [])
            ]
            tasks = services.tasks_assign_manual(campaign=campaign, assignments=pairs)
        body = {"created": len(tasks), "tasks": tasks}
        output = self.OutputSerializer(body, context={"user": request.user})
        return Response(output.data, status=status.HTTP_201_CREATED)


class CampaignAnnotatorsApi(APIView):
    """Add annotators to an Annotating campaign: they top up the items that lack annotators.

    An item lacks annotators while fewer than ``annotators_per_document`` work on it; each
    lacking document goes to the new annotators round-robin.
    """

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        annotators = serializers.ListField(child=serializers.CharField(), allow_empty=False)

    @extend_schema(request=InputSerializer, responses={201: CampaignAssignApi.OutputSerializer})
    def post(self, request, pk: int):
        campaign = get_object_or_404(Campaign, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tasks = services.campaign_annotators_add(
            campaign=campaign, annotators=data.validated_data["annotators"]
        )
        body = {"created": len(tasks), "tasks": tasks}
        output = CampaignAssignApi.OutputSerializer(body, context={"user": request.user})
        return Response(output.data, status=status.HTTP_201_CREATED)


class CampaignProgressApi(APIView):
    """A campaign's progress: totals, per annotator (with time per task) and per task.

    A task's time runs from its annotator's first saved revision to their last, each gap
    between two saves counted at most ``idle_cap_seconds`` (600); the medians and means are
    over done tasks.
    """

    permission_classes = [IsAdmin]

    class OutputSerializer(serializers.Serializer):
        class CountsSerializer(serializers.Serializer):
            done = serializers.IntegerField()
            in_progress = serializers.IntegerField()
            not_started = serializers.IntegerField()
            total = serializers.IntegerField()

        class AnnotatorSerializer(CountsSerializer):
            username = serializers.CharField()
            seconds_per_task_median = serializers.FloatField(allow_null=True)
            seconds_per_task_mean = serializers.FloatField(allow_null=True)
            last_activity = serializers.DateTimeField(allow_null=True)

        class TaskSerializer(serializers.Serializer):
            id = serializers.IntegerField()
            document = serializers.CharField()
            document_id = serializers.IntegerField()
            system = serializers.CharField(allow_null=True)
            annotator = serializers.CharField()
            status = serializers.CharField()
            progress = serializers.CharField(help_text="done, in_progress or not_started")
            seconds = serializers.FloatField(allow_null=True)
            revisions = serializers.IntegerField()
            first_edit = serializers.DateTimeField(allow_null=True)
            last_edit = serializers.DateTimeField(allow_null=True)
            submitted_at = serializers.DateTimeField(allow_null=True)

        campaign = CampaignDetailSerializer()
        idle_cap_seconds = serializers.IntegerField()
        totals = CountsSerializer()
        annotators = AnnotatorSerializer(many=True)
        tasks = TaskSerializer(many=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk: int):
        progress = selectors.campaign_progress(campaign=selectors.campaign_get(pk=pk))
        return Response(self.OutputSerializer(progress).data)


class CampaignProgressCsvApi(APIView):
    """The campaign's progress as CSV: a header row, then one row per task."""

    permission_classes = [IsAdmin]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, pk: int):
        campaign = selectors.campaign_get(pk=pk)
        body = selectors.campaign_progress_csv(
            progress=selectors.campaign_progress(campaign=campaign)
        )
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-progress.csv"'
        return response


class TaskReassignApi(APIView):
    """Give a task that is not submitted to another annotator, with its draft (admins)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        annotator = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=TaskSummarySerializer)
    def post(self, request, pk: int):
        task = get_object_or_404(Task, pk=pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = services.task_reassign(task=task, annotator=data.validated_data["annotator"])
        return Response(TaskSummarySerializer(task, context={"user": request.user}).data)


class TaskListApi(APIView):
    """My tasks: progress, the next unfinished one, and the list."""

    permission_classes = [IsAnyRole]

    class OutputSerializer(serializers.Serializer):
        total = serializers.IntegerField()
        done = serializers.IntegerField()
        next = serializers.IntegerField(allow_null=True)
        results = TaskSummarySerializer(many=True)

    @extend_schema(operation_id="tasks_mine", responses=OutputSerializer)
    def get(self, request):
        summary = selectors.task_queue_summary(user=request.user)
        return Response(self.OutputSerializer(summary, context={"user": request.user}).data)


class FamStateSerializer(serializers.Serializer):
    facets = serializers.JSONField()
    category = serializers.CharField(source="category_override")
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField()


class FamTaskSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    annotator = serializers.CharField()
    kind = serializers.CharField(help_text="fam")
    campaign = serializers.DictField()
    document = serializers.DictField()
    facets_text = serializers.ListField(child=serializers.CharField())
    fam = FamStateSerializer()
    others = serializers.ListField(child=serializers.DictField())
    next_task = serializers.IntegerField(allow_null=True)
    editable = serializers.BooleanField()
    presence = serializers.BooleanField()


class SpanScoreSerializer(serializers.Serializer):
    words = serializers.IntegerField()
    penalty = serializers.FloatField()
    score = serializers.FloatField()
    critical = serializers.IntegerField()
    major = serializers.IntegerField()
    minor = serializers.IntegerField()


class SpanStateSerializer(serializers.Serializer):
    errors = serializers.ListField(child=serializers.DictField())
    no_errors = serializers.BooleanField()
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField(allow_null=True)


class SpanTaskSerializer(serializers.Serializer):
    """A PolyTope task's body (API_CONTRACT.md); ``output.system`` is None when hidden."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    annotator = serializers.CharField()
    kind = serializers.CharField(help_text="polytope")
    campaign = serializers.DictField()
    document = serializers.DictField()
    output = serializers.DictField()
    item = serializers.DictField(child=serializers.IntegerField())
    scheme = serializers.DictField()
    weights = serializers.DictField(child=serializers.FloatField())
    spans = SpanStateSerializer()
    score = SpanScoreSerializer(allow_null=True)
    others = serializers.ListField(child=serializers.DictField())
    next_task = serializers.IntegerField(allow_null=True)
    editable = serializers.BooleanField()
    presence = serializers.BooleanField()


TASK_BODY = PolymorphicProxySerializer(
    component_name="TaskBody",
    serializers={"fam": FamTaskSerializer, "polytope": SpanTaskSerializer},
    resource_type_field_name="kind",
)


class TaskDetailApi(APIView):
    """One task: a FAM task's document, facets and FAM, or a PolyTope item's texts and errors.

    PolyTope tasks are their annotator's and the admins' only (researchers get 403).
    """

    permission_classes = [IsAnyRole]

    @extend_schema(responses=TASK_BODY)
    def get(self, request, pk: int):
        task = selectors.task_get(pk=pk, user=request.user)
        if task.campaign.kind == CampaignKind.POLYTOPE:
            body = selectors.task_span_workspace(task=task, user=request.user)
            return Response(SpanTaskSerializer(body).data)
        body = selectors.task_workspace(task=task, user=request.user)
        return Response(FamTaskSerializer(body).data)


def _own_task(request, view, pk: int):
    task = selectors.task_get(pk=pk, user=request.user)
    view.check_object_permissions(request, task)
    return task


class TaskFamSaveApi(APIView):
    """Save the task's FAM; a stale ``base_version`` gets 409 with the server's state."""

    permission_classes = [IsAnyRole, IsTaskAnnotator]

    class InputSerializer(serializers.Serializer):
        base_version = serializers.IntegerField(min_value=1)
        facets = serializers.JSONField()
        category = serializers.ChoiceField(
            choices=["", *Category.values], required=False, allow_null=True
        )

    @extend_schema(request=InputSerializer, responses=FamStateSerializer)
    def put(self, request, pk: int):
        task = _own_task(request, self, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fam = services.task_fam_save(
            task=task,
            user=request.user,
            facets=data.validated_data["facets"],
            base_version=data.validated_data["base_version"],
            category=data.validated_data.get("category"),
        )
        return Response(FamStateSerializer(fam).data)


class SpanSavedSerializer(SpanStateSerializer):
    score = SpanScoreSerializer(allow_null=True)


class TaskSpanSaveApi(APIView):
    """Save the errors marked in a PolyTope item; a stale ``base_version`` gets 409 with the
    server's state, an error the scheme refuses 400 naming the error and why."""

    permission_classes = [IsAnyRole, IsTaskAnnotator]

    class InputSerializer(serializers.Serializer):
        base_version = serializers.IntegerField(min_value=1)
        no_errors = serializers.BooleanField(default=False)
        errors = serializers.ListField(
            child=serializers.DictField(), max_length=1000, allow_empty=True
        )

    @extend_schema(request=InputSerializer, responses=SpanSavedSerializer)
    def put(self, request, pk: int):
        task = _own_task(request, self, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = services.task_spans_save(
            task=task,
            user=request.user,
            errors=data.validated_data["errors"],
            no_errors=data.validated_data["no_errors"],
            base_version=data.validated_data["base_version"],
        )
        body = {
            **selectors.span_state(annotation=annotation),
            "score": selectors.span_score(
                output=task.output, errors=annotation.errors, no_errors=annotation.no_errors
            ),
        }
        return Response(SpanSavedSerializer(body).data)


class TaskSubmitApi(APIView):
    """Mark the task done."""

    permission_classes = [IsAnyRole, IsTaskAnnotator]

    @extend_schema(request=None, responses=TaskSummarySerializer)
    def post(self, request, pk: int):
        task = services.task_submit(task=_own_task(request, self, pk))
        return Response(TaskSummarySerializer(task, context={"user": request.user}).data)


class TaskReopenApi(APIView):
    """Reopen a submitted task (until the campaign is closed or its document adjudicated)."""

    permission_classes = [IsAnyRole, IsTaskAnnotator]

    @extend_schema(request=None, responses=TaskSummarySerializer)
    def post(self, request, pk: int):
        task = services.task_reopen(task=_own_task(request, self, pk))
        return Response(TaskSummarySerializer(task, context={"user": request.user}).data)


class FamRevisionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    author = serializers.CharField(source="author.username", default=None)
    created_at = serializers.DateTimeField()
    facets = serializers.JSONField()
    category = serializers.CharField(source="category_override")
    changes = serializers.ListField(child=serializers.CharField())


class SpanRevisionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    author = serializers.CharField(source="author.username", default=None)
    created_at = serializers.DateTimeField()
    errors = serializers.ListField(child=serializers.DictField())
    no_errors = serializers.BooleanField()
    changes = serializers.ListField(child=serializers.CharField())


class TaskHistoryApi(APIView):
    """Every saved revision of the task's FAM or errors: who, when, what changed, newest first."""

    permission_classes = [IsAnyRole]

    @extend_schema(
        responses=PolymorphicProxySerializer(
            component_name="TaskRevision",
            serializers=[FamRevisionSerializer, SpanRevisionSerializer],
            resource_type_field_name=None,
            many=True,
        )
    )
    def get(self, request, pk: int):
        task = selectors.task_get(pk=pk, user=request.user)
        if task.campaign.kind == CampaignKind.POLYTOPE:
            revisions = selectors.span_history(task=task)
            return Response(SpanRevisionSerializer(revisions, many=True).data)
        revisions = selectors.fam_history(fam=selectors.task_fam(task=task))
        return Response(FamRevisionSerializer(revisions, many=True).data)


class TaskSuggestionsApi(APIView):
    """The task document's precomputed suggestions (``pending`` until the worker is done)."""

    permission_classes = [IsAnyRole]

    class OutputSerializer(serializers.Serializer):
        status = serializers.CharField()
        scorers = serializers.DictField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request, pk: int):
        task = selectors.task_get(pk=pk, user=request.user)
        return Response(self.OutputSerializer(selectors.task_suggestions(task=task)).data)


class TaskSuggestionEventsApi(APIView):
    """Log which suggestions were shown, accepted or ignored."""

    permission_classes = [IsAnyRole, IsTaskAnnotator]

    class InputSerializer(serializers.Serializer):
        class EventSerializer(serializers.Serializer):
            facet = serializers.IntegerField(min_value=0)
            sentence = serializers.IntegerField(min_value=0)
            scorer = serializers.CharField(max_length=40)
            scorer_version = serializers.CharField(max_length=200)
            action = serializers.ChoiceField(choices=SuggestionAction.values)

        events = EventSerializer(many=True)

    class OutputSerializer(serializers.Serializer):
        created = serializers.IntegerField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request, pk: int):
        task = _own_task(request, self, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.suggestion_events_log(task=task, events=data.validated_data["events"])
        return Response({"created": created}, status=status.HTTP_201_CREATED)


class TaskPresenceApi(APIView):
    """A workspace tab's heartbeat: the task is open here (or was left); who else has it open.

    Entries expire ``expires_after`` seconds after their last heartbeat.
    """

    permission_classes = [IsAnyRole, IsTaskAnnotatorOrAdmin]

    class InputSerializer(serializers.Serializer):
        client_id = serializers.RegexField(r"^[A-Za-z0-9._:-]{8,64}$")
        leaving = serializers.BooleanField(default=False)

    class OutputSerializer(serializers.Serializer):
        class OtherSerializer(serializers.Serializer):
            user = serializers.CharField()
            is_you = serializers.BooleanField()
            editing = serializers.BooleanField()
            last_seen = serializers.DateTimeField()
            seconds_ago = serializers.IntegerField()

        expires_after = serializers.IntegerField()
        others = OtherSerializer(many=True)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request, pk: int):
        task = _own_task(request, self, pk)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        client_id = data.validated_data["client_id"]
        if data.validated_data["leaving"]:
            services.task_presence_leave(task=task, user=request.user, client_id=client_id)
        else:
            services.task_presence_touch(task=task, user=request.user, client_id=client_id)
        body = {
            "expires_after": selectors.presence_seconds(),
            "others": selectors.task_presence_list(
                task=task, user=request.user, client_id=client_id
            ),
        }
        return Response(self.OutputSerializer(body).data)

"""User-management APIs (admins): the users with who works on what, add, invite, deactivate,
reactivate, reset a password, revoke a token; and accepting an invitation (anyone with a link)."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.roles import ROLES, IsAdmin

from . import selectors, services
from .links import INVITE_PATH
from .models import InvitationKind
from .selectors import STATES

KIND_HELP = ", ".join(f"{value} ({label.lower()})" for value, label in InvitationKind.choices)


class UserSerializer(serializers.Serializer):
    class InvitationSerializer(serializers.Serializer):
        # Strings, not enums in the schema: enums of fields named "kind" collide in
        # drf-spectacular's names (as the campaigns' kind does).
        kind = serializers.CharField(help_text=KIND_HELP)
        created_at = serializers.DateTimeField()
        expires_at = serializers.DateTimeField()

    class TokenSerializer(serializers.Serializer):
        created = serializers.DateTimeField()
        expires_at = serializers.DateTimeField()
        expired = serializers.BooleanField()

    class CampaignSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        slug = serializers.CharField()
        name = serializers.CharField()
        kind = serializers.CharField()
        status = serializers.CharField()
        total = serializers.IntegerField()
        todo = serializers.IntegerField()
        in_progress = serializers.IntegerField()
        submitted = serializers.IntegerField()
        last_worked = serializers.DateTimeField(allow_null=True)
        working_now = serializers.BooleanField()

    username = serializers.CharField()
    email = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    state = serializers.ChoiceField(choices=STATES)
    is_active = serializers.BooleanField()
    last_login = serializers.DateTimeField(allow_null=True)
    date_joined = serializers.DateTimeField()
    invitation = InvitationSerializer(allow_null=True)
    token = TokenSerializer(allow_null=True)
    campaigns = CampaignSerializer(many=True)


def _user_data(username: str) -> dict:
    (entry,) = selectors.user_overview(username=username)
    return UserSerializer(entry).data


class LinkSerializer(serializers.Serializer):
    username = serializers.CharField()
    kind = serializers.CharField(help_text=KIND_HELP)
    link = serializers.CharField(
        help_text="The one-time link; it is not stored and not shown again."
    )
    expires_at = serializers.DateTimeField()
    user = UserSerializer()


def _link_data(request, invitation, secret: str) -> dict:
    body = {
        "username": invitation.user.username,
        "kind": invitation.kind,
        "link": request.build_absolute_uri(INVITE_PATH.format(secret=secret)),
        "expires_at": invitation.expires_at,
        "user": selectors.user_overview(username=invitation.user.username)[0],
    }
    return LinkSerializer(body).data


class UserOverviewApi(APIView):
    """Every user (any state, with a role or not): roles, state, last login, open link, API
    token, and the campaigns they have tasks in with the tasks' states (who works on what)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=ROLES, required=False)
        state = serializers.ChoiceField(choices=STATES, required=False)

    @extend_schema(
        parameters=[
            OpenApiParameter("role", str, enum=list(ROLES), required=False),
            OpenApiParameter("state", str, enum=list(STATES), required=False),
        ],
        responses=UserSerializer(many=True),
    )
    def get(self, request):
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        users = selectors.user_overview(**params.validated_data)
        return Response(UserSerializer(users, many=True).data)


class UserCreateApi(APIView):
    """Add a user with a password you choose (Django's password validators apply)."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=ROLES)
        password = serializers.CharField(trim_whitespace=False)
        email = serializers.EmailField(required=False, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        responses={201: UserSerializer, 409: OpenApiResponse(description="Username taken.")},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_create(**data.validated_data)
        return Response(_user_data(user.username), status=status.HTTP_201_CREATED)


class UserInviteApi(APIView):
    """Add a user without a password and get their one-time link (valid ``LOUPE_INVITE_DAYS``).

    The user may be given tasks at once; they log in once they set a password through the link.
    Loupe sends no mail: pass the link on yourself.
    """

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(choices=ROLES)
        email = serializers.EmailField(required=False, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        responses={201: LinkSerializer, 409: OpenApiResponse(description="Username taken.")},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        _, invitation, secret = services.user_invite(created_by=request.user, **data.validated_data)
        return Response(_link_data(request, invitation, secret), status=status.HTTP_201_CREATED)


class UserDeactivateApi(APIView):
    """Deactivate a user: no more logins (sessions end), token deleted, open links void.

    Their tasks and work are kept; reassign the tasks on the campaign's page.
    """

    permission_classes = [IsAdmin]

    @extend_schema(request=None, responses=UserSerializer)
    def post(self, request, username: str):
        user = selectors.user_get(username=username)
        services.user_deactivate(user=user, by=request.user)
        return Response(_user_data(username))


class UserReactivateApi(APIView):
    """Let a deactivated user log in again (with their old password)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=None, responses=UserSerializer)
    def post(self, request, username: str):
        services.user_reactivate(user=selectors.user_get(username=username))
        return Response(_user_data(username))


class UserPasswordResetApi(APIView):
    """Reset a user's password: the old one stops working, their sessions end, their token is
    deleted, and a one-time link (valid ``LOUPE_INVITE_DAYS``) lets them set a new one."""

    permission_classes = [IsAdmin]

    @extend_schema(request=None, responses={201: LinkSerializer})
    def post(self, request, username: str):
        user = selectors.user_get(username=username)
        invitation, secret = services.user_password_reset(user=user, created_by=request.user)
        return Response(_link_data(request, invitation, secret), status=status.HTTP_201_CREATED)


class UserTokenRevokeApi(APIView):
    """Delete a user's API token: their scripts get 401 until they obtain a new one."""

    permission_classes = [IsAdmin]

    class OutputSerializer(serializers.Serializer):
        revoked = serializers.IntegerField(help_text="Tokens deleted (0: the user had none).")
        user = UserSerializer()

    @extend_schema(request=None, responses=OutputSerializer)
    def post(self, request, username: str):
        revoked = services.user_token_revoke(user=selectors.user_get(username=username))
        body = {"revoked": revoked, "user": selectors.user_overview(username=username)[0]}
        return Response(self.OutputSerializer(body).data)


class InvitationAcceptApi(APIView):
    """Set your password through an invitation or reset link (the link's secret); the link is
    then used up. 404: unknown link; 410: used, replaced or expired; 400: a refused password.

    JSON only, and no session is read: the holder of the link is the one allowed.
    """

    permission_classes = [AllowAny]
    authentication_classes: list = []
    parser_classes = [JSONParser]

    class InputSerializer(serializers.Serializer):
        secret = serializers.CharField(max_length=200)
        password = serializers.CharField(trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            404: OpenApiResponse(description="No such link."),
            410: OpenApiResponse(description="The link was used, replaced or has expired."),
        },
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.invitation_accept(**data.validated_data)
        return Response(self.OutputSerializer({"username": user.username}).data)

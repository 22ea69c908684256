"""Account APIs: who am I, the users by role (admins), obtain an API token (throttled, with
the login lockout), and my own token's expiry and revocation."""

from axes.helpers import get_client_username
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from config.client_ip import client_ip
from config.parsers import BoundedJSONParser

from .roles import ROLES, IsAdmin, user_roles
from .selectors import LoginLockout, login_lockout_get, user_list
from .services import token_revoke, user_token_obtain
from .tokens import token_expires_at


class MeApi(APIView):
    """The logged-in user and their roles."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        roles = serializers.ListField(child=serializers.CharField())

    @extend_schema(responses=OutputSerializer)
    def get(self, request):
        data = {
            "id": request.user.pk,
            "username": request.user.username,
            "roles": sorted(user_roles(request.user)),
        }
        return Response(self.OutputSerializer(data).data)


class MeTokenApi(APIView):
    """My API token: when it was made and expires (GET), or revoke it (DELETE, 204)."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        exists = serializers.BooleanField()
        created = serializers.DateTimeField(allow_null=True)
        expires_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request):
        token = getattr(request.user, "auth_token", None)
        data = {
            "exists": token is not None,
            "created": token.created if token else None,
            "expires_at": token_expires_at(token=token) if token else None,
        }
        return Response(self.OutputSerializer(data).data)

    @extend_schema(responses={204: None})
    def delete(self, request):
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserListApi(APIView):
    """Users and their roles, by username (admins): e.g. ``?role=Annotator`` to staff a campaign."""

    permission_classes = [IsAdmin]

    class InputSerializer(serializers.Serializer):
        role = serializers.ChoiceField(choices=ROLES, required=False)

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        roles = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        parameters=[OpenApiParameter("role", str, enum=list(ROLES), required=False)],
        responses=OutputSerializer(many=True),
    )
    def get(self, request):
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        users = user_list(role=params.validated_data.get("role"))
        return Response(self.OutputSerializer(users, many=True).data)


class LoginLockedOut(exceptions.Throttled):
    """Too many failed logins for a username from this address (HTTP 429, ``Retry-After``)."""

    default_code = "login_locked_out"


def _lockout_message(lockout: LoginLockout) -> str:
    minutes = lockout.cooloff_minutes
    return (
        f"Too many failed logins for this username from this address "
        f"({lockout.failures}): its logins from this address are locked for "
        f"{minutes} minute{'s' if minutes != 1 else ''} after the last failure; other addresses "
        f"are not affected. An admin can unlock it sooner with "
        f"`manage.py axes_reset_username {lockout.username}`."
    )


class TokenRateThrottle(ScopedRateThrottle):
    """The token endpoint's rate per client address, the address the login lockout counts."""

    def get_ident(self, request):
        return client_ip(request) or super().get_ident(request)


class TokenObtainApi(APIView):
    """Exchange a username and password for an API token (for scripts and the CLI).

    Two guards: a rate per client address (``LOUPE_TOKEN_RATE``, scope ``auth-token``) and the
    login lockout that the login form has (django-axes, through ``authenticate(request, ...)``).
    Both answer 429 with ``Retry-After``. The body must be JSON (415 otherwise).
    """

    permission_classes = [AllowAny]
    authentication_classes: list = []
    # JSON only: no CSRF check applies here, and a page elsewhere can make a browser post a
    # plain form but not JSON (that needs a CORS preflight), so it cannot feed the lockout.
    parser_classes = [BoundedJSONParser]
    throttle_classes = [TokenRateThrottle]
    throttle_scope = "auth-token"

    class InputSerializer(AuthTokenSerializer):
        pass

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(description="Wrong username or password."),
            429: OpenApiResponse(
                description="Too many requests from this address, or this username is locked "
                "out from it after failed logins; see the Retry-After header."
            ),
        },
    )
    def post(self, request):
        # The serializer calls authenticate() with the request, so django-axes counts a
        # failure, refuses a locked-out username and flags the request.
        try:
            data = request.data
        except exceptions.UnsupportedMediaType as error:
            raise exceptions.UnsupportedMediaType(
                request.content_type,
                detail="Send the username and password as JSON (Content-Type: application/json); "
                f"got {request.content_type or 'no content type'!r}.",
            ) from error
        serializer = self.InputSerializer(data=data, context={"request": request})
        if not serializer.is_valid():
            if getattr(request, "axes_locked_out", False):
                self._raise_locked_out(request)
            raise serializers.ValidationError(serializer.errors)
        token = user_token_obtain(
            user=serializer.validated_data["user"],
            ip_address=getattr(request, "axes_ip_address", None),
        )
        return Response(self.OutputSerializer({"token": token.key}).data)

    def _raise_locked_out(self, request):
        username = get_client_username(request, request.axes_credentials) or ""
        lockout = login_lockout_get(username=username, ip_address=request.axes_ip_address)
        if lockout is None:  # it ended between axes' check and this one
            raise LoginLockedOut(wait=1, detail="Too many failed logins; try again.")
        raise LoginLockedOut(wait=lockout.seconds_left(), detail=_lockout_message(lockout))

    def throttled(self, request, wait):
        raise exceptions.Throttled(wait, detail="Too many token requests from this address.")

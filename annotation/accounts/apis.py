"""Account APIs: who am I, and obtain an API token."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .roles import user_roles


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


class TokenObtainApi(APIView):
    """Exchange a username and password for an API token (for scripts and the CLI)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(AuthTokenSerializer):
        pass

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request):
        serializer = self.InputSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response(self.OutputSerializer({"token": token.key}).data)

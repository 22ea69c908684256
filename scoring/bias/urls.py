"""API URLs of the bias app."""

urlpatterns: list = []

"""API URLs of the autofar app."""

urlpatterns: list = []

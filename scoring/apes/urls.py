"""API URLs of the apes app."""

urlpatterns: list = []

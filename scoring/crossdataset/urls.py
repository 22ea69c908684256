"""API URLs of the crossdataset app."""

urlpatterns: list = []

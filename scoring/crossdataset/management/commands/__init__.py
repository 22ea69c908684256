"""The crossdataset app's manage.py commands."""

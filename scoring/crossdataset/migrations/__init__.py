"""Migrations of the crossdataset app."""

"""Management commands of the crossdataset app."""

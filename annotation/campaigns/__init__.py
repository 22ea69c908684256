"""Campaigns app: FAM campaigns, annotator tasks, precomputed suggestions and their log."""

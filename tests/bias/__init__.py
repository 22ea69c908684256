"""Tests of the bias app: the command, runs, API and pages."""

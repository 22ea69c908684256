"""Tests of the apes app."""

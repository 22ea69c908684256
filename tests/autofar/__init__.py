"""Tests of the autofar app: Tables 6-8, machine FAM sets, fits and AutoFAR-L runs."""

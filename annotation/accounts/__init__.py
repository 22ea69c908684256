"""Accounts app: the Annotator, Researcher and Admin roles, login and API tokens."""

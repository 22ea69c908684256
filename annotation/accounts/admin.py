"""Admin pages for accounts: Django's own user and group admin are used as they are."""

"""manage.py apes."""

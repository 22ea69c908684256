"""manage.py autofar and autofar_l."""

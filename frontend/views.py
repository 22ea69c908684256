"""Page views: thin shells; the pages' data comes from the JSON API via ES modules."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def home(request):
    """The start page: the user's roles and the datasets (loaded by ``home.js``)."""
    return render(request, "frontend/home.html")

"""Page views: thin shells; the pages' data comes from the JSON API via ES modules."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def home(request):
    """The start page: the user's roles and the datasets (loaded by ``home.js``)."""
    return render(request, "frontend/home.html")


@login_required
def tasks(request):
    """My tasks: progress, the next unfinished task and the list (loaded by ``tasks.js``)."""
    return render(request, "frontend/tasks.html")


@login_required
def workspace(request, task_id: int):
    """The FAM workspace of one task (``workspace.js``; the API checks who may see it)."""
    return render(request, "frontend/workspace.html", {"task_id": task_id})

"""Template tag ``ui_timing``: the pages' poll and heartbeat intervals as ``<body>`` data."""

from django import template
from django.conf import settings
from django.utils.html import format_html_join

register = template.Library()


@register.simple_tag
def ui_timing() -> str:
    """The ``data-poll-ms`` and ``data-beat-ms`` attributes of the settings that are set.

    ``LOUPE_UI_POLL_MS`` and ``LOUPE_UI_BEAT_MS`` at 0 (the default) leave each page its own
    intervals; frontend/static/loupe/timing.js reads the attributes.

    Returns:
        The attributes, each after a space ("" when neither is set).
    """
    values = [
        ("data-poll-ms", settings.LOUPE_UI_POLL_MS),
        ("data-beat-ms", settings.LOUPE_UI_BEAT_MS),
    ]
    set_ = [(name, int(value)) for name, value in values if value and int(value) > 0]
    return format_html_join("", ' {}="{}"', set_)

"""What `make run` and `make test` install, as the README and the manual state it.

Measured (``du --apparent-size`` of a fresh ``.venv/``): 701 MB after ``make run``, 2.0 GB
after ``make test``. Every page that gives a size gives these, and no other.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/getting-started.md")
SIZES = {"make run": "about 700 MB", "make test": "about 2.0 GB"}


@pytest.mark.parametrize("page", PAGES)
def test_each_page_gives_the_measured_install_sizes(page):
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    for command, size in SIZES.items():
        said = re.search(rf"`{command}` (?:installs|adds)[^.]*?\(about [\d.,]+ [MG]B", text)
        assert said, f"{page} does not say what `{command}` installs"
        assert said.group(0).endswith(size), f"{page}: {said.group(0)!r}, measured {size}"

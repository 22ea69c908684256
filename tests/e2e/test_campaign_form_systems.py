"""The new-campaign form's PolyTope systems follow the chosen dataset: only its systems, each
with its outputs on that dataset (the latest version's), never every system's global count."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login
from tests.test_systems_of_a_dataset import other_dataset

pytestmark = pytest.mark.django_db(transaction=True)


def _systems(page) -> list[str]:
    return [" ".join(t.split()) for t in page.locator("#systems label.check").all_text_contents()]


def test_the_systems_are_the_chosen_datasets_with_their_counts_there(context, demo):
    other_dataset()
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(f"{demo.url}/manage/campaigns/new/")
    page.locator("input[name=kind][value=polytope]").check()
    expect(page.locator("#systems")).to_contain_text("Choose a dataset first.")
    page.locator("#dataset").select_option("demo")
    expect(page.locator("#systems input")).to_have_count(3)
    assert _systems(page) == [
        "DemoAbs (demo-abs, 6 outputs on this dataset)",
        "DemoExt (demo-extsum, 6 outputs on this dataset)",
        "Lead-3 (lead-3, 6 outputs on this dataset)",
    ]
    page.locator("#systems input[value=lead-3]").check()
    page.locator("#systems input[value=demo-abs]").check()
    # Another dataset: its own systems and counts; a choice still offered stays chosen.
    page.locator("#dataset").select_option("other")
    expect(page.locator("#systems input")).to_have_count(2)
    assert _systems(page) == [
        "Lead-3 (lead-3, 1 output on this dataset)",
        "Other system (other-sys, 2 outputs on this dataset)",
    ]
    expect(page.locator("#systems input[value=lead-3]")).to_be_checked()
    expect(page.locator("#systems input[value=other-sys]")).not_to_be_checked()

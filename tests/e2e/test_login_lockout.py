"""The login lockout in the browser: after five wrong passwords the page says the account is
locked for this address, for how long and what to do; even the right password is refused."""

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import PASSWORD, login_through_form

pytestmark = pytest.mark.django_db(transaction=True)


def _try_login(page, url: str, username: str, password: str):
    """Fill the login form and send it with Enter; return the server's answer."""
    page.goto(f"{url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_response(
        lambda r: r.url == f"{url}/login/" and r.request.method == "POST"
    ) as answer:
        page.press("#id_password", "Enter")
    page.wait_for_load_state()
    return answer.value


def test_five_wrong_passwords_lock_the_account_for_this_address(context, demo):
    page = context.new_page()
    for attempt in range(4):
        answer = _try_login(page, demo.url, "researcher", f"wrong-{attempt}")
        assert answer.status == 200
        expect(page.locator(".login .error")).to_contain_text("did not match")

    answer = _try_login(page, demo.url, "researcher", "wrong-4")
    assert answer.status == 429
    assert 0 < int(answer.headers["retry-after"]) <= 15 * 60
    expect(page.locator("h1")).to_have_text("Too many failed logins")
    expect(page.locator("#locked-out")).to_contain_text(
        "The account researcher is locked for logins from this address"
    )
    expect(page.locator("#locked-out")).to_contain_text("for 15 minutes")
    expect(page.locator("#locked-until")).to_contain_text("Try again in about 15 minutes")
    expect(page.locator("#locked-help")).to_contain_text(
        "python manage.py axes_reset_username researcher"
    )
    # It fits at 1280x800: no horizontal scrolling, the whole card on the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    box = page.locator(".locked-out").bounding_box()
    assert box["y"] + box["height"] <= 800

    # By keyboard: the way back to the login page.
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    expect(page.locator("#back-to-login")).to_be_focused()
    with page.expect_navigation(url=f"{demo.url}/login/"):
        page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("Log in to Loupe")

    # The right password is refused from here too.
    answer = _try_login(page, demo.url, "researcher", PASSWORD["researcher"])
    assert answer.status == 429
    expect(page.locator("h1")).to_have_text("Too many failed logins")

    # Another user logs in from the same address.
    login_through_form(page, demo.url, "annotator")
    expect(page.locator(".topbar .who")).to_have_text("annotator")

"""Accounts in the browser: sign up, set an e-mail address, follow the link the console back end
printed, and see the address verified."""

from __future__ import annotations

import re
import time
from typing import Any

from .conftest import ARTIFACTS
from .helpers import sign_up


def mailed_link(site: Any, address: str, timeout: float = 10) -> str:
    """The verification link of the last mail to ``address`` in the server's output."""
    deadline = time.monotonic() + timeout
    while True:
        text = site.log.read_text(errors="replace")
        mails = [m for m in text.split("Content-Type: text/plain") if f"To: {address}" in m]
        found = re.findall(r"https?://[^/\s]+(/email/verify/[^\s/]+/)", mails[-1]) if mails else []
        if found:
            return str(found[-1])
        if time.monotonic() > deadline:
            raise AssertionError(f"no verification mail to {address} in the server's output")
        time.sleep(0.2)


def test_a_new_player_sets_an_address_follows_the_mailed_link_and_sees_it_verified(site: Any, new_context: Any) -> None:
    page = new_context(locale="en-GB").new_page()
    name = sign_up(page, site)
    address = f"{name}@example.org"
    page.goto("/profile/email/")
    assert page.locator("#id_email").get_attribute("autocomplete") == "email"
    page.fill("#id_email", address)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(re.compile(r"/profile/"))
    assert page.locator(".email-status").get_attribute("data-verified") == "0"
    assert "We sent a verification link" in page.locator(".messages").inner_text()
    link = mailed_link(site, address)
    page.goto(link)
    page.click("#verify-email")
    page.wait_for_url(re.compile(r"/profile/"))
    assert page.locator(".email-status").get_attribute("data-verified") == "1"
    assert page.locator("#verify-resend").count() == 0
    assert "Your e-mail address is verified" in page.locator(".messages").inner_text()
    page.screenshot(path=str(ARTIFACTS / "email-verified.png"))

"""Accounts in the browser: sign up, set an e-mail address, follow the link the console back end
printed, and see the address verified."""

from __future__ import annotations

import re
import time
from typing import Any

from .conftest import ARTIFACTS
from .helpers import sign_up


def mailed_link(site: Any, address: str, timeout: float = 10, path: str = r"/email/verify/[^\s/]+/") -> str:
    """The verification link (or another ``path``) of the last mail to ``address`` in the server's output."""
    deadline = time.monotonic() + timeout
    while True:
        text = site.log.read_text(errors="replace")
        mails = [m for m in text.split("Content-Type: text/plain") if f"To: {address}" in m]
        found = re.findall(rf"https?://[^/\s]+({path})", mails[-1]) if mails else []
        if found:
            return str(found[-1])
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail to {address} with {path} in the server's output")
        time.sleep(0.2)


def fields_without_autocomplete(page: Any) -> list[str]:
    """The form fields of the page a browser would fill without knowing what they are."""
    return page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
        .filter((el) => !['hidden', 'submit', 'button'].includes(el.type) && !el.hasAttribute('autocomplete'))
        .map((el) => el.name || el.id)"""
    )


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


def test_a_player_who_forgot_the_password_gets_a_link_by_mail_and_signs_in_with_a_new_one(
    site: Any, new_context: Any
) -> None:
    """Issue 42, point 12: there was no password reset and no e-mail; the forms had no autocomplete."""
    page = new_context(locale="es-ES").new_page()
    page.goto("/signup/")
    assert not fields_without_autocomplete(page)
    name = sign_up(page, site)
    address = f"{name}@example.org"
    page.goto("/profile/email/")
    assert not fields_without_autocomplete(page)
    page.fill("#id_email", address)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(re.compile(r"/profile/"))
    page.locator("header.site form.inline button").click()
    page.wait_for_url(site.url + "/")

    page.goto("/signin/")
    assert not fields_without_autocomplete(page)
    page.get_by_role("link", name="¿Olvidaste tu contraseña?").click()
    page.wait_for_url(re.compile(r"/password/reset/$"))
    assert page.locator("#id_email").get_attribute("autocomplete") == "email"
    page.fill("#id_email", address)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(re.compile(r"/password/reset/sent/"))
    page.goto(mailed_link(site, address, path=r"/password/reset/[^\s]+/"))
    assert [page.locator(f"#id_new_password{n}").get_attribute("autocomplete") for n in (1, 2)] == ["new-password"] * 2
    assert not fields_without_autocomplete(page)
    page.fill("#id_new_password1", "a-brand-new-phrase-7")
    page.fill("#id_new_password2", "a-brand-new-phrase-7")
    page.click("form.stack button[type=submit]")
    page.wait_for_url(re.compile(r"/password/reset/done/$"))

    page.goto("/signin/")
    page.fill("#id_username", name)
    page.fill("#id_password", "a-brand-new-phrase-7")
    page.click("form.stack button[type=submit]")
    page.wait_for_url(site.url + "/")
    assert page.locator("header.site").get_by_role("link", name=name).is_visible()

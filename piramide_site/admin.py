"""The site's admin: Django's, with a sign-in page that says when sign-in is locked, as the site's does."""

from __future__ import annotations

from django.contrib import admin

from frontend.forms import AdminSignInForm


class PiramideAdminSite(admin.AdminSite):
    """``admin.site`` (``apps.PiramideAdminConfig`` makes it the default site)."""

    login_form = AdminSignInForm

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class PiramideAdminConfig(AdminConfig):
    """``django.contrib.admin`` with the site's own admin site as ``admin.site``."""

    default_site = "piramide_site.admin.PiramideAdminSite"

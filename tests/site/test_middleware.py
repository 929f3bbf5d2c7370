"""The middleware chain runs on the event loop under ASGI: every middleware is async-capable,
so Django does not adapt the chain with extra hops between the loop and a thread; the static
files and the security headers still come through it."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import AsyncClient
from django.utils.module_loading import import_string


def test_every_middleware_runs_async_as_well_as_sync():
    sync_only = [path for path in settings.MIDDLEWARE if not getattr(import_string(path), "async_capable", False)]
    assert sync_only == []


@pytest.mark.asyncio
async def test_a_static_file_is_served_under_asgi_with_the_security_headers():
    response = await AsyncClient().get("/static/frontend/site.css")
    assert response.status_code == 200
    assert b"{" in b"".join(response.streaming_content)
    assert response["Content-Security-Policy"].startswith("default-src 'self'")
    assert "camera=()" in response["Permissions-Policy"]

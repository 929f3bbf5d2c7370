"""Every API error is JSON with a message a person can read, even where no API view answered."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_an_unknown_api_url_is_a_json_404(api):
    response = api.get("/api/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"error": "not_found", "message": "there is no /api/no-such-thing/ in the API"}


def test_a_wrong_method_is_a_json_405(player_api):
    response = player_api.delete("/api/challenges/today/")
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"


def test_a_crash_under_the_api_is_a_json_500(monkeypatch):
    from games import apis

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(apis.selectors, "challenges_for_day", boom)
    client = Client(raise_request_exception=False)
    response = client.get("/api/challenges/today/")
    assert response.status_code == 500
    assert response.json()["error"] == "server_error" and "boom" not in response.content.decode()

"""Request bodies the API cannot take are refused in its error shape, never a 500 or an HTML page."""

import json

import pytest
from django.conf import settings
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.raise_request_exception = False
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    client.credentials(HTTP_X_CSRFTOKEN=token)
    return client


@pytest.mark.parametrize("depth", [2_000, 30_000, 100_000])
def test_deeply_nested_json_is_a_400_in_the_error_shape(client, depth, settings):
    # 100,000 levels are 200 KB, over the default body limit: the parser must cope where a site raises it
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = max(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, 2 * depth)
    response = client.post("/api/auth/signin/", "[" * depth + "]" * depth, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "parse_error" and "JSON" in response.json()["message"]


def test_json_nested_a_little_is_read_as_before(client):
    body = {"username": "nobody", "password": "x", "extra": [[[[{"a": [1]}]]]]}
    response = client.post("/api/auth/signin/", json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert "extra" in response.json()["message"]


@pytest.mark.parametrize("kind", ["json", "form"])
def test_a_body_over_the_upload_limit_is_a_413_in_the_error_shape(client, kind):
    big = "a" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    if kind == "json":
        response = client.post(
            "/api/auth/signin/", json.dumps({"username": big, "password": "x"}), content_type="application/json"
        )
    else:
        response = client.post("/api/auth/signin/", {"username": big, "password": "x"}, format="multipart")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "too_large" and body["limit"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert "2.5 MB" in body["message"] or "bytes" in body["message"]


def test_a_page_form_over_the_upload_limit_is_a_413_page():
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.raise_request_exception = False
    response = client.post(
        "/signin/", {"username": "a" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}, format="multipart"
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")

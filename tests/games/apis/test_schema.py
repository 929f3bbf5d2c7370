import pytest
import yaml

pytestmark = pytest.mark.django_db

OPERATIONS = {
    "/api/challenges/today/": "get",
    "/api/challenges/{challenge_id}/": "get",
    "/api/challenges/{challenge_id}/ranked/": "post",
    "/api/challenges/{challenge_id}/practice/": "post",
    "/api/games/{game_id}/": "get",
    "/api/games/{game_id}/moves/": "post",
    "/api/games/{game_id}/undo/": "post",
    "/api/games/{game_id}/resign/": "post",
    "/api/games/{game_id}/hint/": "get",
    "/api/games/{game_id}/review/": "get",
    "/api/leaderboards/challenges/{challenge_id}/": "get",
    "/api/leaderboards/weeks/{preset}/": "get",
    "/api/leaderboards/all-time/{preset}/": "get",
    "/api/me/": "get",
    "/api/auth/signup/": "post",
    "/api/auth/signin/": "post",
    "/api/auth/signout/": "post",
    "/api/auth/password/": "post",
}


def test_the_schema_documents_every_operation_with_session_auth(api):
    response = api.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    for path, method in OPERATIONS.items():
        assert method in schema["paths"][path], path
    assert schema["components"]["securitySchemes"]["cookieAuth"]["in"] == "cookie"
    move = schema["paths"]["/api/games/{game_id}/moves/"]["post"]
    body = move["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][body]["required"]) == {"move", "seen"}


def test_the_docs_pages_are_served_without_a_cdn(api):
    for url in ("/api/docs/", "/api/redoc/"):
        page = api.get(url)
        assert page.status_code == 200
        assert "cdn.jsdelivr" not in page.content.decode()

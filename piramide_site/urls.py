from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from plumbing.health import healthz, readyz
from plumbing.metrics import metrics_view


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers and crawlers ask for /favicon.ico whatever the pages link to."""
    return HttpResponsePermanentRedirect(static("frontend/icon.svg"))


urlpatterns = [
    path("healthz/", healthz, name="healthz"),
    path("readyz/", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("api/auth/", include("accounts.urls")),
    path("api/follows/", include("accounts.follow_urls")),
    path("api/", include("games.urls")),
    path("api/", include("leaderboard.urls")),
    path("api/", include("races.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its starter script as a file, so the docs page needs no inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="frontend/redoc.html"),
        name="api-redoc",
    ),
    path("", include("frontend.urls")),
]

handler400 = "plumbing.errors.bad_request"
handler404 = "plumbing.errors.not_found"
handler500 = "plumbing.errors.server_error"

"""The site's URLs plus one view with a real fault, for the tests of unhandled errors."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from piramide_site.urls import handler400, handler404, handler500  # noqa: F401
from piramide_site.urls import urlpatterns as site_urlpatterns


def divide_by_zero(request: HttpRequest) -> HttpResponse:
    shares = 0
    return HttpResponse(str(100 // shares))


urlpatterns = [path("api/test-only/fault/", divide_by_zero), *site_urlpatterns]

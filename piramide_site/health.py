"""/healthz/: what the container health check asks; 200 while the database answers."""

from django.db import connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:  # any failure means unhealthy; say which
        return JsonResponse({"ok": False, "database": type(error).__name__}, status=503)
    return JsonResponse({"ok": True})

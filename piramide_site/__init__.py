"""The Django project: settings, URLs, the ASGI application and the Celery app."""

from .celery import app as celery_app

__all__ = ["celery_app"]

"""The developer's machine: `make run`.  Needs no server unless DATABASE_URL / REDIS_URL say so."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="local-only-insecure-key-do-not-use-in-production")
# Serve static files straight from the apps, with no collectstatic step.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT = None  # served from the apps by the finders; no collectstatic here
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

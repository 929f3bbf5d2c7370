"""The Celery app; every setting comes from Django's settings under the CELERY_ prefix."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")

app = Celery("piramide_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

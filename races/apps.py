from django.apps import AppConfig


class RacesConfig(AppConfig):
    name = "races"

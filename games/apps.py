from django.apps import AppConfig
from django.core import checks


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from .rotation import check_rotation

        checks.register(check_rotation)

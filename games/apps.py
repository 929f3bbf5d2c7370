from django.apps import AppConfig
from django.core import checks


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from accounts.services import ACCOUNT_LEAVING
        from plumbing.hooks import hook_add

        from .rotation import check_rotation
        from .services import games_player_leaving

        checks.register(check_rotation)
        hook_add(ACCOUNT_LEAVING, games_player_leaving)

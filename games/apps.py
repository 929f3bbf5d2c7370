from django.apps import AppConfig
from django.core import checks


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from accounts.services import ACCOUNT_LEAVING

        from .rotation import check_rotation
        from .services import games_player_leaving

        checks.register(check_rotation)
        if games_player_leaving not in ACCOUNT_LEAVING:
            ACCOUNT_LEAVING.append(games_player_leaving)

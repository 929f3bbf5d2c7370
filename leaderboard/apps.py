from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from accounts.services import ACCOUNT_LEAVING
        from accounts.verification import EMAIL_VERIFIED

        from .services import scores_player_leaving, scores_player_verified

        if scores_player_leaving not in ACCOUNT_LEAVING:
            ACCOUNT_LEAVING.append(scores_player_leaving)
        if scores_player_verified not in EMAIL_VERIFIED:
            EMAIL_VERIFIED.append(scores_player_verified)

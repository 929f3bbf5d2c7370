from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        # what games and accounts ask of the boards, given here so that neither imports leaderboard
        from accounts.services import ACCOUNT_LEAVING
        from accounts.verification import EMAIL_VERIFIED
        from games.live import BOARD_PAGE
        from games.services import GAMES_CLAIMED, RANKED_END, SCORE_RECORD
        from plumbing.hooks import hook_add

        from .selectors import challenge_board_page
        from .services import (
            SCORE_AT_END,
            score_record,
            scores_claim,
            scores_player_leaving,
            scores_player_verified,
        )

        hook_add(ACCOUNT_LEAVING, scores_player_leaving)
        hook_add(EMAIL_VERIFIED, scores_player_verified)
        hook_add(SCORE_RECORD, score_record)
        hook_add(GAMES_CLAIMED, scores_claim)
        hook_add(RANKED_END, SCORE_AT_END)
        hook_add(BOARD_PAGE, challenge_board_page)

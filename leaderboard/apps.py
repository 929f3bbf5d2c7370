from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        # what games and accounts ask of the boards, given here so that neither imports leaderboard
        from accounts.services import ACCOUNT_LEAVING
        from accounts.verification import EMAIL_VERIFIED
        from games.live import BOARD_PAGE
        from games.services import GAMES_CLAIMED, RANKED_END, SCORE_RECORD

        from .selectors import challenge_board_page
        from .services import (
            SCORE_AT_END,
            score_record,
            scores_claim,
            scores_player_leaving,
            scores_player_verified,
        )

        if scores_player_leaving not in ACCOUNT_LEAVING:
            ACCOUNT_LEAVING.append(scores_player_leaving)
        if scores_player_verified not in EMAIL_VERIFIED:
            EMAIL_VERIFIED.append(scores_player_verified)
        if score_record not in SCORE_RECORD:
            SCORE_RECORD.append(score_record)
        if scores_claim not in GAMES_CLAIMED:
            GAMES_CLAIMED.append(scores_claim)
        if SCORE_AT_END not in RANKED_END:
            RANKED_END.append(SCORE_AT_END)
        if challenge_board_page not in BOARD_PAGE:
            BOARD_PAGE.append(challenge_board_page)

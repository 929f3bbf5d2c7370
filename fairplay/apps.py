from django.apps import AppConfig


class FairplayConfig(AppConfig):
    name = "fairplay"
    verbose_name = "Fair play"

    def ready(self) -> None:
        from leaderboard.services import SCORE_WRITTEN

        from .tasks import score_assess_task

        def assess_later(score_id: int) -> None:
            from django.conf import settings

            if settings.FAIRPLAY_ASSESS:
                score_assess_task.delay(score_id)

        if assess_later.__qualname__ not in {follower.__qualname__ for follower in SCORE_WRITTEN}:
            SCORE_WRITTEN.append(assess_later)

from collections.abc import Iterator

from django.apps import AppConfig
from prometheus_client.core import GaugeMetricFamily


def pool_gauges() -> Iterator[GaugeMetricFamily]:
    """The proven-winnable deals waiting in each preset's race pool, read at each scrape."""
    from races.pool import pool_count, pool_presets

    pools = GaugeMetricFamily(
        "piramide_race_pool_deals", "Proven-winnable race deals in the pool, by preset.", labels=["preset"]
    )
    for preset in pool_presets():
        pools.add_metric([preset], pool_count(preset))
    yield pools


class RacesConfig(AppConfig):
    name = "races"

    def ready(self) -> None:
        from accounts.services import ACCOUNT_LEAVING
        from plumbing import metrics
        from plumbing.hooks import hook_add
        from races.services import races_player_leaving

        hook_add(metrics.state_sources, pool_gauges)
        hook_add(ACCOUNT_LEAVING, races_player_leaving)

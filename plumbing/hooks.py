"""The lists of hooks a lower app keeps for the apps above it, which fill them in ``AppConfig.ready``
(the apps' import layers: README, *Architecture*)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def hook_add(hooks: list[T], hook: T) -> None:
    """Add ``hook`` to ``hooks`` once: ``ready`` may run again in one process (Django's test tools)."""
    if hook not in hooks:
        hooks.append(hook)

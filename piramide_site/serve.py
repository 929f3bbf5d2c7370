"""uvicorn, told the limits only the settings know: ``python -m piramide_site.serve [uvicorn options]``.

uvicorn's ``--ws-max-size`` becomes ``LIVE_MAX_MESSAGE_BYTES``, so a larger socket message closes
with 1009 before more than the limit is read (docs/operations.md, *Socket messages*); every other
option goes to uvicorn as given.  It also empties ``PROMETHEUS_MULTIPROC_DIR`` before the server
starts.  ``make run``, the Dockerfile and docker-compose.yml start the server this way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def uvicorn_arguments(argv: list[str]) -> list[str]:
    """The settings' ASGI application and message limit, then the options given."""
    from django.conf import settings

    if any(arg == "--ws-max-size" or arg.startswith("--ws-max-size=") for arg in argv):
        raise SystemExit("set LIVE_MAX_MESSAGE_BYTES rather than --ws-max-size: the protocol and the server share it")
    module, attribute = settings.ASGI_APPLICATION.rsplit(".", 1)
    return [f"{module}:{attribute}", "--ws-max-size", str(settings.LIVE_MAX_MESSAGE_BYTES), *argv]


def metrics_dir_ready() -> Path | None:
    """``PROMETHEUS_MULTIPROC_DIR``, made and emptied before any server process writes to it: the
    files of processes of an earlier run would otherwise be summed with this run's."""
    name = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not name:
        return None
    folder = Path(name)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink(missing_ok=True)
    return folder


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "piramide_site.settings.local")
    metrics_dir_ready()
    from uvicorn.main import main as uvicorn_main

    uvicorn_main(uvicorn_arguments(sys.argv[1:]), prog_name="uvicorn")


if __name__ == "__main__":
    main()

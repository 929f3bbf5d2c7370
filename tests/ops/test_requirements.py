"""The requirement files: the image installs the runtime set only, `make venv` both, every version
pinned, and no test or type-checking tool among what the service runs on."""

import re
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s=]+)$")
DEV_TOOLS = {
    "pytest",
    "pytest-django",
    "pytest-asyncio",
    "mypy",
    "playwright",
    "schemathesis",
    "hypothesis",
    "requests",
}


def pins(name: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line == "-r requirements.txt":
            continue
        match = PIN.match(line)
        assert match, f"{name}: {line!r} is not pinned as name==version"
        found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def test_every_requirement_is_pinned_once_in_one_file():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert not set(runtime) & set(dev), "a package pinned in both files"
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text().splitlines()


def test_test_and_typing_tools_are_development_requirements_only():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert DEV_TOOLS <= set(dev)
    assert not DEV_TOOLS & set(runtime)
    assert not {name for name in runtime if name.startswith("types-") or name.endswith("-stubs")}


def test_daphne_is_not_among_what_the_service_runs_on():
    """uvicorn serves; daphne stays a development requirement only because channels.testing
    imports it (tests/sockets.py), and a fresh machine without it cannot collect the socket tests."""
    assert not {"daphne", "twisted", "autobahn", "txaio"} & set(pins("requirements.txt"))
    assert "daphne" in pins("requirements-dev.txt")


def test_the_image_installs_the_runtime_set_only():
    dockerfile = (ROOT / "Dockerfile").read_text()
    installs = re.findall(r"pip install [^\n]*", dockerfile)
    assert installs == ["pip install --no-cache-dir -r requirements.txt"]
    assert "requirements-dev" not in dockerfile


def test_make_venv_installs_both_sets_and_reinstalls_when_either_changes():
    makefile = (ROOT / "Makefile").read_text()
    stamp = re.search(r"^\$\(STAMP\): (.*)$", makefile, re.MULTILINE).group(1).split()
    assert set(stamp) == {"requirements.txt", "requirements-dev.txt"}
    assert "-r requirements-dev.txt" in makefile


def test_the_metrics_client_is_a_pinned_runtime_requirement():
    assert "prometheus-client" in pins("requirements.txt")

"""The server processes a benchmark starts: a free port for each, how uvicorn is started and waited
for, their CPU seconds, stopping them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def free_ports(count: int) -> list[int]:
    """``count`` different free ports."""
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def uvicorn_command(app: str, port: int, *options: str) -> list[str]:
    """uvicorn as every bench starts it: ``app`` on 127.0.0.1:``port`` with uvloop and httptools, no
    access log, warnings only, then ``options``."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--no-access-log",
        "--log-level",
        "warning",
        *options,
    ]


def answering(process: subprocess.Popen[bytes], url: str, *, timeout: float, log: Path | None = None) -> None:
    """Returns once ``url`` answers; raises RuntimeError, with the end of ``log``, if ``process``
    exits first or ``timeout`` seconds pass.  Stopping the process is the caller's."""
    deadline = time.monotonic() + timeout
    while True:
        said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {process.returncode}. {said}")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout:.0f} s. {said}") from None
            time.sleep(0.2)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (all its threads); 0 once it is gone."""
    return _stat_cpu(Path(f"/proc/{pid}/stat"))


def main_thread_cpu_seconds(pid: int) -> float:
    """The same for the process's main thread alone (a uvicorn server's event loop); 0 once it is gone."""
    return _stat_cpu(Path(f"/proc/{pid}/task/{pid}/stat"))


def _stat_cpu(path: Path) -> float:
    try:
        fields = path.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(processes: Iterable[subprocess.Popen[bytes]], timeout: float) -> None:
    """Ask every process to end, then wait for each, killing those still there after ``timeout``."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

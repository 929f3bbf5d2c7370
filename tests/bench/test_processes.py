"""bench/processes.py: a server's CPU, all of it and its main thread's (the event loop's) apart."""

from __future__ import annotations

import os
import threading
import time

from bench.processes import cpu_seconds, main_thread_cpu_seconds


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_another_thread_s_cpu_counts_for_the_process_and_not_for_its_main_thread():
    before_all, before_main = cpu_seconds(os.getpid()), main_thread_cpu_seconds(os.getpid())
    worker = threading.Thread(target=spin, args=(0.3,))
    worker.start()
    worker.join()
    assert cpu_seconds(os.getpid()) - before_all >= 0.25
    assert main_thread_cpu_seconds(os.getpid()) - before_main < 0.1


def test_the_main_thread_s_own_cpu_counts_for_it():
    before = main_thread_cpu_seconds(os.getpid())
    spin(0.3)
    assert main_thread_cpu_seconds(os.getpid()) - before >= 0.25


def test_a_process_that_is_gone_has_used_nothing():
    assert cpu_seconds(2**22 + 1) == 0.0
    assert main_thread_cpu_seconds(2**22 + 1) == 0.0

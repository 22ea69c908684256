"""Django settings for Loupe, read from the environment (see docs/deployment.md, Configuration)."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated environment variable into a list of non-empty items."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    """Read an integer environment variable."""
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_int_list(name: str, default: str, minimum: int) -> tuple[int, ...]:
    """Read a comma-separated list of integers, each at least ``minimum``.

    Args:
        name: the variable.
        default: its value when unset.
        minimum: the smallest value accepted.

    Returns:
        The integers in the order given.

    Raises:
        ImproperlyConfigured: an item is not an integer or is below ``minimum``.
    """
    values = []
    for item in env_list(name, default):
        try:
            value = int(item)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise ImproperlyConfigured(
                f"{name} must list integers of at least {minimum}, got {item!r}"
            )
        values.append(value)
    return tuple(values)


def env_choice(name: str, choices: tuple[str, ...]) -> str:
    """Read an environment variable that must be one of ``choices`` (any case), or empty.

    Args:
        name: the variable.
        choices: the accepted values, in upper case.

    Returns:
        The value in upper case, or "" when unset or empty.

    Raises:
        ImproperlyConfigured: the value is none of ``choices``.
    """
    raw = os.environ.get(name, "")
    value = raw.strip().upper()
    if value and value not in choices:
        raise ImproperlyConfigured(
            f"{name} must be {', '.join(choices[:-1])} or {choices[-1]}, not {raw!r}."
        )
    return value


def env_int_at_least(name: str, default: int, minimum: int) -> int:
    """Read an integer environment variable that must be at least ``minimum``.

    Args:
        name: the variable.
        default: its value when unset or empty.
        minimum: the smallest value accepted.

    Returns:
        The value.

    Raises:
        ImproperlyConfigured: the value is below ``minimum``.
    """
    value = env_int(name, default)
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


VAR_DIR = Path(os.environ.get("LOUPE_VAR_DIR", BASE_DIR / "var")).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Dataset releases: <dataset>/<version>/ each (scoring.releases); read by the download API.
LOUPE_RELEASES_DIR = Path(os.environ.get("LOUPE_RELEASES_DIR", VAR_DIR / "releases")).resolve()

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off. Set SECRET_KEY in the environment "
            "(or DEBUG=1 for local development)."
        )
    SECRET_KEY = "insecure-development-key-only-used-when-DEBUG-is-on"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "annotation.accounts",
    "annotation.jobs",
    "annotation.corpus",
    "annotation.fams",
    "annotation.campaigns",
    "annotation.systems",
    "annotation.spans",
    "annotation.agreement",
    "annotation.adjudication",
    "annotation.users",
    "scoring.uploads",
    "scoring.scores",
    "scoring.judgments",
    "scoring.leaderboards",
    "scoring.releases",
    "scoring.autofar",
    "scoring.bias",
    "scoring.crossdataset",
    "scoring.apes",
    "frontend",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a login refused for a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "frontend" / "templates"],
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

# --- Database -------------------------------------------------------------------------------
# DATABASE_URL unset: the embedded default, a SQLite file under var/.
# Every SQLite database, the default one or one named by a sqlite:// DATABASE_URL (as a test's
# Celery worker is given the test database): a transaction takes the write lock at BEGIN
# (IMMEDIATE) and waits up to 20 s for it. Without IMMEDIATE a transaction that read first
# cannot take the lock while another process writes, and SQLite fails it at once with
# "database is locked" instead of waiting.
_SQLITE_OPTIONS = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
# LOUPE_SQLITE_SYNCHRONOUS sets SQLite's synchronous pragma on every connection. Unset, SQLite's
# FULL stands: each commit waits for the disk (fsync). `make test` sets OFF, as its databases are
# thrown away at the end of the run (the figures are in docs/getting-started.md).
_SQLITE_SYNCHRONOUS = env_choice("LOUPE_SQLITE_SYNCHRONOUS", ("OFF", "NORMAL", "FULL", "EXTRA"))
if _SQLITE_SYNCHRONOUS:
    _SQLITE_OPTIONS["init_command"] = f"PRAGMA synchronous={_SQLITE_SYNCHRONOUS}"
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["OPTIONS"] = {
            **_SQLITE_OPTIONS,
            **DATABASES["default"].get("OPTIONS", {}),
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "loupe.sqlite3",
            "OPTIONS": dict(_SQLITE_OPTIONS),
            # A file, not memory, so a Celery worker process can share the test database.
            "TEST": {"NAME": str(VAR_DIR / "test-loupe.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# Outside LOUPE_VAR_DIR in the image, so a rebuilt image never serves a stale volume's files.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "config.storage.LoupeStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

# --- Login throttling -----------------------------------------------------------------------
# django-axes counts failed logins (the login page, the admin's and POST /api/auth/token/) in the
# database, so every gunicorn process sees the same count and each test starts from none. It
# locks a username out from one client address (the combination): someone guessing passwords for
# "admin" locks "admin" out from their own address only; the real admin still logs in from
# elsewhere, and other users from that address. A lock on the username alone would let anyone
# lock anyone out; a lock on the address alone, a whole office behind one NAT. The price:
# guessing from many addresses is slowed per address, not stopped. Axes' backend comes first: it
# refuses a locked-out login before the password is even checked, and it needs the request, so
# every authenticate() call must pass it (the login forms and DRF's AuthTokenSerializer do).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOUPE_LOGIN_FAILURE_LIMIT = env_int_at_least("LOUPE_LOGIN_FAILURE_LIMIT", 5, 1)
LOUPE_LOGIN_COOLOFF_MINUTES = env_int_at_least("LOUPE_LOGIN_COOLOFF_MINUTES", 15, 1)
# Proxies in front of the app that append the client's address to X-Forwarded-For (0: none, the
# client address is REMOTE_ADDR). Only the last that many entries are trusted; the rest of the
# header is whatever the client sent.
LOUPE_PROXY_COUNT = env_int_at_least("LOUPE_PROXY_COUNT", 0, 0)
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = LOUPE_LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=LOUPE_LOGIN_COOLOFF_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "config.client_ip.client_ip"
# A success below the limit starts the count again.
AXES_RESET_ON_SUCCESS = True
# Attempts during a lockout are refused but do not extend it: it ends one cool-off after the
# failure that locked, so the page can say when.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "frontend.views.login_locked_out"
# Axes announces its configuration on stderr at start, which would pollute every management
# command's output (scripts read it); the settings above are in docs/deployment.md instead.
AXES_VERBOSE = False

# --- Security ---------------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
if env_bool("USE_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- REST API ---------------------------------------------------------------------------------
LOUPE_TOKEN_RATE = os.environ.get("LOUPE_TOKEN_RATE", "") or "10/min"
if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", LOUPE_TOKEN_RATE):
    raise ImproperlyConfigured(
        f"LOUPE_TOKEN_RATE must look like 10/min (a count per s, min, hour or day), "
        f"not {LOUPE_TOKEN_RATE!r}."
    )
# An API token works this many days after it was made; then the API answers 401 and
# POST /api/auth/token/ hands out a new one. A password change also replaces it.
LOUPE_TOKEN_DAYS = env_int_at_least("LOUPE_TOKEN_DAYS", 30, 1)
# An invitation or password-reset link works once, within this many days.
LOUPE_INVITE_DAYS = env_int_at_least("LOUPE_INVITE_DAYS", 7, 1)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "annotation.accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.LoupeAutoSchema",
    # JSON bodies nested deeper than 64 levels get 400 (config.parsers), not a RecursionError.
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    # POST /api/auth/token/ (TokenRateThrottle), per client address (config.client_ip), successes
    # included; NUM_PROXIES keeps any other DRF throttle on the same proxy count.
    "DEFAULT_THROTTLE_RATES": {"auth-token": LOUPE_TOKEN_RATE},
    "NUM_PROXIES": LOUPE_PROXY_COUNT,
}
# /api/schema/ and /api/docs/ need a login (or an API token) unless this makes them public.
LOUPE_API_DOCS_PUBLIC = env_bool("LOUPE_API_DOCS_PUBLIC", False)
SPECTACULAR_SETTINGS = {
    "TITLE": "Loupe API",
    "DESCRIPTION": "Facet-aware evaluation of summarization systems with human judgments.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["config.schema.ApiDocsPermission"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Celery -----------------------------------------------------------------------------------
# CELERY_BROKER_URL (or REDIS_URL) unset: an embedded file-system broker that needs no server;
# `manage.py serve` starts a real worker process beside the web server.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or ""
CELERY_EMBEDDED_BROKER = not CELERY_BROKER_URL
if CELERY_EMBEDDED_BROKER:
    # Its folders; `make test` gives the tests their own (LOUPE_CELERY_DIR), emptied each run.
    _celery_dir = Path(os.environ.get("LOUPE_CELERY_DIR") or VAR_DIR / "celery").resolve()
    _broker_dir = _celery_dir / "broker"
    _processed_dir = _celery_dir / "processed"
    _control_dir = _celery_dir / "control"
    CELERY_BROKER_URL = "filesystem://"
    # kombu's file-system transport, with its races between processes closed (config/broker.py).
    # Celery opens every connection with it, even one given another URL at run time: such code
    # names its transport too (connection_for_write(url, transport="redis")).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "processed_folder": str(_processed_dir),
        "control_folder": str(_control_dir),
        "store_processed": False,
        "polling_interval": 0.2,
    }
    CELERY_RESULT_BACKEND = os.environ.get(
        "CELERY_RESULT_BACKEND", f"file://{(_celery_dir / 'results').as_posix()}"
    )
    CELERY_EMBEDDED_DIRS = [
        _broker_dir,
        _processed_dir,
        _control_dir,
        _celery_dir / "results",
    ]
else:
    # A task a killed worker never acknowledged goes back to the queue after this many seconds.
    # Workers sweep for such tasks every CELERY_RESTORE_INTERVAL seconds.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600),
        "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 10),
        "unacked_restore_throttle": 1,
    }
    CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL)
    CELERY_EMBEDDED_DIRS = []
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "loupe")
# A broker that is down costs a publisher (an upload, a FAM save) a few seconds, not minutes.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 3,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 1800)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1900)
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

# How long /healthz waits for the worker to answer its ping task.
HEALTH_WORKER_TIMEOUT = float(os.environ.get("HEALTH_WORKER_TIMEOUT", "5"))
# How long /healthz reuses its last worker round trip (a burst of probes queues one task).
HEALTH_CACHE_SECONDS = float(os.environ.get("HEALTH_CACHE_SECONDS", "10"))

# --- Imports ----------------------------------------------------------------------------------
# Outputs per scoring task, and bootstrap/permutation resamples behind leaderboard CIs and tests.
# 500: a chunk's fixed cost (its queries, the task round trip) is then a small share, and an
# 11,490-output upload still makes 23 chunks for the workers to share (bench/CHANGELOG.md,
# 2026-11-26: the job took 3.7 s with 500, 5.0 s with 250 and 3.2 s with 1,000 on 2 workers).
LOUPE_SCORING_CHUNK = env_int("LOUPE_SCORING_CHUNK", 500)

# The job kernel's recovery (annotation/jobs, docs/deployment.md "Workers"): a chunk beats every
# LOUPE_JOB_BEAT_SECONDS while it computes; Celery beat runs the watchdog every
# LOUPE_JOB_WATCHDOG_SECONDS. A started chunk silent for LOUPE_JOB_LOST_SECONDS lost its worker
# and is sent again; chunks never started while the queue is empty and the job silent for
# LOUPE_JOB_RESEND_SECONDS were lost by the broker and are sent again; a job silent for
# LOUPE_JOB_STALL_SECONDS while no worker works fails with the reason; after
# LOUPE_JOB_MAX_RECOVERIES recoveries a job that is still stuck fails.
LOUPE_JOB_BEAT_SECONDS = env_int_at_least("LOUPE_JOB_BEAT_SECONDS", 5, 1)
LOUPE_JOB_WATCHDOG_SECONDS = env_int_at_least("LOUPE_JOB_WATCHDOG_SECONDS", 15, 1)
LOUPE_JOB_LOST_SECONDS = env_int_at_least("LOUPE_JOB_LOST_SECONDS", 30, 2)
LOUPE_JOB_RESEND_SECONDS = env_int_at_least("LOUPE_JOB_RESEND_SECONDS", 30, 1)
LOUPE_JOB_STALL_SECONDS = env_int_at_least("LOUPE_JOB_STALL_SECONDS", 120, 1)
LOUPE_JOB_MAX_RECOVERIES = env_int_at_least("LOUPE_JOB_MAX_RECOVERIES", 5, 1)
# A job waiting for another (a bias run for its dataset's scoring job) looks again this often.
LOUPE_JOB_WAIT_SECONDS = env_int_at_least("LOUPE_JOB_WAIT_SECONDS", 2, 1)
CELERY_BEAT_SCHEDULE = {
    "loupe-jobs-watchdog": {
        "task": "loupe.jobs.watchdog",
        "schedule": float(LOUPE_JOB_WATCHDOG_SECONDS),
    }
}
# Documents per bias task (each with every source's summaries of them).
LOUPE_BIAS_CHUNK = env_int("LOUPE_BIAS_CHUNK", 250)
# Documents per AutoFAR-L task (machine FAMs, FAR and the estimate of every extractive output).
LOUPE_AUTOFAR_CHUNK = env_int("LOUPE_AUTOFAR_CHUNK", 250)
LOUPE_LEADERBOARD_RESAMPLES = env_int("LOUPE_LEADERBOARD_RESAMPLES", 1000)
# The k of the leaderboard's top-k meta-evaluation subsets: the k systems with the best mean
# human score (REALSumm's question); those from 3 to fewer than all the systems are shown.
LOUPE_META_EVALUATION_TOP_K = env_int_list("LOUPE_META_EVALUATION_TOP_K", "5,10,15,20", 1)
# A finished job whose versions lack this many score arrays or more builds them in
# LOUPE_ARRAY_PARTS tasks beside each other (one per worker), then stores its first leaderboard;
# fewer are built in the job's callback itself.
LOUPE_ARRAY_PARTS_FROM = env_int_at_least("LOUPE_ARRAY_PARTS_FROM", 8, 2)
LOUPE_ARRAY_PARTS = env_int_at_least("LOUPE_ARRAY_PARTS", 2, 1)
# A workspace tab counts as having its task open this long after its last heartbeat.
LOUPE_PRESENCE_SECONDS = env_int_at_least("LOUPE_PRESENCE_SECONDS", 15, 1)
# The pages' timers, in milliseconds (rendered on <body>; frontend/static/loupe/timing.js). 0:
# each page's own, 1-2 s between two looks at a running job or run (LOUPE_UI_POLL_MS) and at
# most 5 s between two presence heartbeats (LOUPE_UI_BEAT_MS). The browser tests set 200.
LOUPE_UI_POLL_MS = env_int("LOUPE_UI_POLL_MS", 0)
LOUPE_UI_BEAT_MS = env_int("LOUPE_UI_BEAT_MS", 0)
LOUPE_UPLOAD_MAX_BYTES = env_int("LOUPE_UPLOAD_MAX_BYTES", 50 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = LOUPE_UPLOAD_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

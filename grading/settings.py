"""Settings, all from environment variables with safe defaults.

Nothing set: debug on, a SQLite file and Celery tasks run eagerly in the web process.
``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (broker and result backend) switch to the real
services; ``DJANGO_DEBUG=0`` requires ``DJANGO_SECRET_KEY`` and turns on production security.
"""

import datetime
import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlparse

import plotly
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from grading.ingest import limits

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# psycopg's ``prepare_threshold`` on PostgreSQL: a count of runs no query reaches by itself, so
# only the queries that ask are prepared (grading/common/compiled.py).
PREPARE_WHEN_ASKED = 2**62


def database_from_url(url: str) -> dict:
    """A Django DATABASES entry from ``postgres://user:pass@host:port/name?opt=v``."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        options = dict(parse_qsl(parsed.query))
        if env_bool("DB_PREPARED_STATEMENTS", True):
            # The queries every page makes are prepared statements (grading/common/compiled.py);
            # off (0) behind a connection pooler that cannot keep them.
            options.setdefault("prepare_threshold", PREPARE_WHEN_ASKED)
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": int(os.environ.get("DB_CONN_MAX_AGE", "60")),
            "CONN_HEALTH_CHECKS": True,
        }
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path) or str(BASE_DIR / "db.sqlite3")
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path}
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported")


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "grading",
    "clubs",
    "members",
    "grading.lab",  # manage.py bench and simulate only; the product never imports it
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "grading.common.middleware.SecurityHeadersMiddleware",
    "grading.common.middleware.RefuseNulMiddleware",
    # A member's own grade is never kept by a browser or a shared cache (issue 21 item 5).
    "grading.common.middleware.PrivateNoStoreMiddleware",
]

# ModelBackend's checks, reading the user's membership in the same query (members/auth.py).
AUTHENTICATION_BACKENDS = ["members.auth.MemberBackend"]

ROOT_URLCONF = "grading.urls"
WSGI_APPLICATION = "grading.wsgi.application"
ASGI_APPLICATION = "grading.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "members.context_processors.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# SQLite (the embedded default) builds the PPI chart's covering index without its extra column
# (grading.models.PPIPoint): the same rows, read through the table; nothing to warn about.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Europe/London")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # plotly.js is served from the plotly package itself, so the chart library and the Python
    # figures that feed it are always the same version, and nothing comes from a CDN.
    ("vendor/plotly", Path(plotly.__file__).parent / "package_data"),
]
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "/media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Celery: eager (in-process) unless a broker is configured.
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# Two queues (docs/decisions.md, "Grading has a queue of its own"): uploads and grading on the
# default one; the work that follows a grading step (the other schemes, the players' emails, pages
# rendered ahead) and the union's mailings on the background one, so that a worker kept for
# grading (`celery worker -Q celery`) is never busy with them when an upload arrives. A worker
# started without -Q takes both.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_BACKGROUND_QUEUE = "background"
CELERY_TASK_QUEUES = tuple(  # each with its own exchange and key: a message reaches one list
    Queue(name, Exchange(name), routing_key=name)
    for name in (CELERY_TASK_DEFAULT_QUEUE, CELERY_BACKGROUND_QUEUE)
)
CELERY_TASK_ROUTES = {
    name: {"queue": CELERY_BACKGROUND_QUEUE}
    for name in (
        "grading.schemes_catch_up",
        "grading.regrade_brambledown",
        "grading.schemes_rebuild",
        "grading.warm_member_pages",
        "grading.sign_up_notify",
        "grading.register_invitations_send",
        "results.send_session_emails",
        "results.send_due_emails",
        "results.send_weekly_summaries",
    )
}
CELERY_BEAT_SCHEDULE = {
    # The 3-year window and the statuses move with the calendar (S4): refresh every night.
    "refresh-grades": {"task": "grading.refresh_grades", "schedule": crontab(hour=3, minute=0)},
    # Versions stored while the broker was down are graded by the next sweep.
    "grade-pending": {"task": "grading.grade_pending", "schedule": 5 * 60},
    # The players' emails (S16): refused ones tried again; the weekly summaries.
    "results-emails-due": {"task": "results.send_due_emails", "schedule": 60},
    "results-emails-weekly": {
        "task": "results.send_weekly_summaries",
        "schedule": crontab(hour=7, minute=0, day_of_week=1),
    },
    # Brambledown (S11): regrade the quarter just ended, on the first day of each quarter.
    "regrade-brambledown": {
        "task": "grading.regrade_brambledown",
        "schedule": crontab(hour=2, minute=30, day_of_month=1, month_of_year="1,4,7,10"),
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        # Tokens are stored as digests and made by their owner only (S14.25).
        "members.accounts.tokens.HashedTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # An infinite figure stored before the score bounds is written as null, not a 500.
    "DEFAULT_RENDERER_CLASSES": [
        "grading.common.renderers.FiniteJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Bridge grading API",
    "DESCRIPTION": "Grades, sessions and uploads of the bridge grading service.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the sidecar package: the product works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Login throttling counts (grading/common/auth.py) and other shared state: Redis when configured, so
# every web process sees the same counts.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
LOGIN_THROTTLE_DELAY = env_bool("LOGIN_THROTTLE_DELAY", True)
# The reverse proxies in front of the site (addresses or networks, comma-separated). Only a
# request arriving from one of them has its X-Forwarded-For believed for the client address
# (the login throttle locks a username from one address); empty: the connection's own address.
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES", "")

# Email (invitations, approvals, password resets). Without EMAIL_HOST the messages are written
# to the server's output (make run: the link to follow appears there); with it, SMTP.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "20"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Bridge grading <grades@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The site's address as members reach it: the links in emails the worker sends (S16).
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000")
# How long an invitation's link stays usable, and a password reset's (Django's setting).
INVITATION_DAYS = int(os.environ.get("INVITATION_DAYS", "14"))
PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600
# The site's address in emails sent by the worker (a sign-up's notice to the administrators).
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000")

# The engine path the ledger grades with, in a step and in a whole-ledger replay: "fast" (the
# windows built once per subject) or "reference" (each grade recomputed from the whole
# history); equal to 1e-9 (tests/test_ledger_stateless.py, docs/ngs.md).
GRADING_ENGINE_PATH = os.environ.get("GRADING_ENGINE_PATH", "fast")
if GRADING_ENGINE_PATH not in ("fast", "reference"):
    raise ImproperlyConfigured('GRADING_ENGINE_PATH must be "fast" or "reference".')

# PostgreSQL's memory for each join and sort of the whole-ledger operations, in their own
# transaction only (PostgreSQL sizes: "1GB", "256MB"). Measured nationally (docs/benchmarks.md):
# replay --check took 287 s with 1 GB from its start against 433 s before (when its first
# comparison ran at the server's 4 MB) on a machine reading from disk, and 217 s against 205 s
# at 256 MB on one whose page cache held the database; the refold's full joins are faster in
# batches of 256 MB than in one 1.3 GB hash (the history's 64 s against 158 s). A hash may
# take twice this (hash_mem_multiplier), so the database server needs that much free while
# they run.
LEDGER_CHECK_WORK_MEM = os.environ.get("LEDGER_CHECK_WORK_MEM", "1GB")
LEDGER_REFOLD_WORK_MEM = os.environ.get("LEDGER_REFOLD_WORK_MEM", "256MB")
for _size in (LEDGER_CHECK_WORK_MEM, LEDGER_REFOLD_WORK_MEM):
    if not re.fullmatch(r"[1-9][0-9]{0,6}(kB|MB|GB)", _size):
        raise ImproperlyConfigured(f"{_size!r}: a ledger work_mem must be a size such as 1GB.")
del _size

# Results files (S12): refused above this size before they are read into memory.
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(limits.MAX_UPLOAD_BYTES)))
# A date of play before this is refused when a file is read (issue 21: a session dated year 1
# took a club's pages down). YYYY-MM-DD; passed to grading.ingest.parse_file.
try:
    EARLIEST_PLAY_DATE = datetime.date.fromisoformat(
        os.environ.get("EARLIEST_PLAY_DATE", limits.EARLIEST_PLAY_DATE.isoformat())
    )
except ValueError as exc:
    raise ImproperlyConfigured("EARLIEST_PLAY_DATE must be a date written YYYY-MM-DD.") from exc
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES + 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_HANDLERS = [
    "grading.common.uploadhandlers.SizeLimitUploadHandler",  # an oversize file is drained, not kept
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# Sessions are read from the shared cache (Redis), with the database behind it, so a signed-in
# page reads no session row (issue 17). Without Redis each process has a cache of its own, in
# which a session logged out in another process would live on: the database alone then.
# A cache that is down means the database alone (grading/common/sessions.py, issue 32 item 7).
SESSION_ENGINE = "grading.common.sessions" if REDIS_URL else "django.contrib.sessions.backends.db"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Uploads (issue 21 item 3): a session of more pairs than this is refused before anything is
# stored or graded (no club session is that large; a file that claims it is a wrong export).
UPLOAD_MAX_PAIRS_PER_SESSION = int(os.environ.get("UPLOAD_MAX_PAIRS_PER_SESSION", "500"))
# What one file may hold over all its sessions, and how many files one request may carry
# (issue 32 item 9): a file of 40 sessions of 500 pairs kept every other club's uploads waiting
# for minutes, and 50 files of 10 MB in one request outlasted the server's timeout half stored.
# The largest congress file (a week's events, a few thousand pairs) fits well within them.
UPLOAD_MAX_SESSIONS_PER_FILE = int(os.environ.get("UPLOAD_MAX_SESSIONS_PER_FILE", "50"))
UPLOAD_MAX_PAIRS_PER_FILE = int(os.environ.get("UPLOAD_MAX_PAIRS_PER_FILE", "4000"))
UPLOAD_MAX_FILES_PER_REQUEST = int(os.environ.get("UPLOAD_MAX_FILES_PER_REQUEST", "10"))
# A broker that is down must not hold a request: publishing gives up within a second (no
# publish retries, short socket timeouts) and the sweep (grade_pending) takes the upload up.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 0.5
# Issue 32 item 8: a message taken by a worker that dies (kill -9) comes back to the queue
# after the visibility timeout: Redis's default is an hour. Ten minutes is above the longest
# task the product runs in normal work (a file's grading is seconds; a refold of the ledger a few
# minutes), so a task still running is not delivered twice, and a lost one waits at most that.
TASK_VISIBILITY_SECONDS = int(os.environ.get("TASK_VISIBILITY_SECONDS", str(10 * 60)))
CELERY_BROKER_TRANSPORT_OPTIONS = {  # a producer's connection: one quick retry, then give up
    "visibility_timeout": TASK_VISIBILITY_SECONDS,
    "socket_connect_timeout": 0.5,
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}

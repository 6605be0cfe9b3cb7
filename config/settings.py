"""Django settings, read from the environment.

DJANGO_ENV=production (the Dockerfile and docker-compose.yml set it) turns on the production
checks: the process refuses to start while DEBUG is on or SECRET_KEY is the development key.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, production_problems

BASE_DIR = Path(__file__).resolve().parent.parent

DJANGO_ENV = os.environ.get("DJANGO_ENV", "development").strip().lower()
if DJANGO_ENV not in {"development", "production"}:
    raise ImproperlyConfigured(f"DJANGO_ENV must be development or production, not {DJANGO_ENV!r}")
PRODUCTION = DJANGO_ENV == "production"

DEVELOPMENT_SECRET_KEY = "django-insecure-development-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
DEBUG = env_bool("DEBUG", default=not PRODUCTION)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

if PRODUCTION:
    _problems = production_problems(debug=DEBUG, secret_key=SECRET_KEY, default_secret_key=DEVELOPMENT_SECRET_KEY)
    if _problems:
        raise ImproperlyConfigured("Refusing to start in production: " + "; ".join(_problems) + ".")

INSTALLED_APPS = [
    "daphne",  # first: makes `manage.py runserver` serve ASGI (websockets) too
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_prometheus",
    "playground",
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",  # first and last: whole-request counts
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.csp.ContentSecurityPolicyMiddleware",
    "playground.middleware.QuotaMiddleware",  # after sessions, auth and CSRF: who asks, and a valid post
    "playground.middleware.ReadLimitMiddleware",  # reads per client (PLAYGROUND_READS_PER_SECOND)
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

# HTTPS (Django's deployment checklist). In production: cookies only over HTTPS, HSTS, and plain
# HTTP redirected to HTTPS; behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER=true (the
# proxy must set X-Forwarded-Proto) or SECURE_SSL_REDIRECT=false when the proxy redirects itself.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=PRODUCTION)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600) if PRODUCTION else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=PRODUCTION)
if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
# /diagnostics/ in production: staff only. Pings are rate-limited per client everywhere.
DIAGNOSTICS_PUBLIC = env_bool("DIAGNOSTICS_PUBLIC", default=not PRODUCTION)
# /metrics (the app's operational metrics): staff only unless this is set.
METRICS_PUBLIC = env_bool("METRICS_PUBLIC", default=False)
DIAGNOSTICS_PINGS_PER_MINUTE = int(os.environ.get("DIAGNOSTICS_PINGS_PER_MINUTE", "10"))

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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
            ],
        },
    },
]

# Database: SQLite by default; DATABASE_URL (e.g. postgres://user:pass@host:5432/name) selects
# another. The SQLite test database is a file, not memory, so that the Celery worker and the
# ASGI server started by the browser tests can open it too (they get it through DATABASE_URL).
_database_url = os.environ.get("DATABASE_URL", "").strip()
if _database_url:
    _database = dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)
    if _database["ENGINE"] == "django.db.backends.postgresql":
        # A pool per process (psycopg_pool), not a connection per thread: under ASGI every HTTP
        # request runs on a thread of its own, so a per-thread "persistent" connection was a new
        # server process forked for every request (milliseconds of CPU each, on the class's cores).
        _database["CONN_MAX_AGE"] = 0
        _database["CONN_HEALTH_CHECKS"] = False
        _database.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": int(os.environ.get("PLAYGROUND_DB_POOL_SIZE", "12")),
            "timeout": 20,
        }
else:
    _database = {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker) write to one file: WAL, and writers take turns
    # (playground/infra/sqlite_backend: woken when the file is free, not by SQLite's polling).
    _database["ENGINE"] = "playground.infra.sqlite_backend"
    _database["CONN_MAX_AGE"] = 0
    _database["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    _database["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"playground-test-{os.getpid()}.sqlite3")}
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: Celery's broker and the Channels layer. The launcher (./dev run) starts an embedded
# redis-server and sets REDIS_URL unless REDIS_URL is already set.
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

def channel_layer_host(url: str) -> dict[str, object]:
    """One Redis host of the Channels layer. redis-py 8 defaults socket_timeout to 5 s, which
    breaks channels-redis's blocking reads: no timeout. After a Redis restart the pooled
    connections are dead; without a retry the first command on one (a page's websocket joining
    its group) fails and the handshake answers HTTP 500. A command that finds its connection
    closed is retried on a new one (group joins and sends are safe to repeat)."""
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return {
        "address": url,
        "socket_timeout": None,
        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.05), 4),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, ConnectionError, OSError],
    }


CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [channel_layer_host(REDIS_URL)]},
    },
}

CELERY_BROKER_URL = REDIS_URL
# kombu's Redis transport, made safe to close after Redis went away (config/broker.py says why).
CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis may restart under a running worker: retry the broker forever (not 100 times), notice a
# dead connection quickly, and keep the worker process alive. A task interrupted by the outage is
# not cancelled; the run's own recovery (lock expiry + re-queue) covers anything lost with Redis.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "health_check_interval": 10,
    "socket_keepalive": True,
    "socket_connect_timeout": 5,
    "retry_on_timeout": True,
    "visibility_timeout": 3600,
    # Ten priorities, 0 served first (playground/services/runs/dispatch.py: a client's first
    # waiting action 0, its later ones 1-7, warming an engine 8, a play's next slice 9).
    "priority_steps": list(range(10)),
    "queue_order_strategy": "priority",
}
CELERY_TASK_DEFAULT_PRIORITY = 0
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

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

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
if PRODUCTION:
    # Hashed, compressed files from `collectstatic` (the Dockerfile runs it), served by whitenoise.
    # In development config/asgi.py serves them from the source folders instead.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# How much one scenario may bring (the engine's loader refuses more, naming the setting to
# raise). Per request, for anyone who can reach the server. The defaults admit Kubernetes'
# published scalability envelope (5,000 nodes, 150,000 pods, 110 pods per node): a dump of such
# a cluster is ~70 MB of YAML (~66 MiB), so the byte limit is 96 MiB; it bounds the text a gzip
# upload decompresses to as well (playground/uploads.py). The command line admits more (65,000
# nodes, 256 MiB) because it spends only its user's machine. The classroom quotas below bound
# how often one visitor may spend that.
# Django's query log under DEBUG (connection.queries), on SQLite: off unless asked (see
# playground/infra/sqlite_backend/base.py, `queries_logged`).
PLAYGROUND_LOG_QUERIES = env_bool("PLAYGROUND_LOG_QUERIES", default=False)
PLAYGROUND_MAX_NODES = env_int("PLAYGROUND_MAX_NODES", 5_000)
PLAYGROUND_MAX_PODS = env_int("PLAYGROUND_MAX_PODS", 150_000)
PLAYGROUND_MAX_BYTES = env_int("PLAYGROUND_MAX_BYTES", 96 * 1024 * 1024)
# Claims made from templates (StatefulSet volumeClaimTemplates, ephemeral volumes,
# ResourceClaimTemplates): pods x templates, counted before any is built.
PLAYGROUND_MAX_CLAIMS = env_int("PLAYGROUND_MAX_CLAIMS", 20_000)

# Per-client quotas (playground/services/quotas.py): per hour, per session; a network address
# gets PLAYGROUND_QUOTA_ADDRESS_FACTOR times as much (a classroom behind one NAT). 0: no quota.
PLAYGROUND_SCENARIOS_PER_HOUR = env_int("PLAYGROUND_SCENARIOS_PER_HOUR", 60, minimum=0)
PLAYGROUND_RUNS_PER_HOUR = env_int("PLAYGROUND_RUNS_PER_HOUR", 120, minimum=0)
PLAYGROUND_RUNS_PLAYING = env_int("PLAYGROUND_RUNS_PLAYING", 3, minimum=0)
PLAYGROUND_NODE_STEPS_PER_HOUR = env_int("PLAYGROUND_NODE_STEPS_PER_HOUR", 10_000_000, minimum=0)
PLAYGROUND_QUOTA_ADDRESS_FACTOR = env_int("PLAYGROUND_QUOTA_ADDRESS_FACTOR", 40)
# Reads (GET of pages and panels) per client per second (playground/middleware.py); more get
# HTTP 429 with Retry-After. 0: not limited.
PLAYGROUND_READS_PER_SECOND = env_int("PLAYGROUND_READS_PER_SECOND", 20, minimum=0)
# A run worker raises its niceness by this much at start (playground/tasks/priority.py): where
# workers and web processes share cores, the web (the class's posts and pushes) runs first.
PLAYGROUND_WORKER_NICE = env_int("PLAYGROUND_WORKER_NICE", 5, minimum=0)
# ...and a play's later slices run this much lower again, on a thread of their own.
PLAYGROUND_PLAY_NICE = env_int("PLAYGROUND_PLAY_NICE", 10, minimum=0)
# Time limits of one worker task, in seconds (playground/tasks/limits.py): at the soft limit the
# action stops and fails with a line on its run page; a task still running at the hard limit has
# its worker process restarted in place. Sized from the envelope's costliest legitimate task
# (bench/RESULTS.md): a run's first action at 5,000 x 150,000 restores a checkpoint, steps and
# stores one, ~33 s of CPU quiet, ~75 s on a busy machine; a start's preparation 62 s / 143 s.
# 0: no such limit.
PLAYGROUND_TASK_SOFT_TIME_LIMIT = env_int("PLAYGROUND_TASK_SOFT_TIME_LIMIT", 120, minimum=0)
PLAYGROUND_TASK_TIME_LIMIT = env_int("PLAYGROUND_TASK_TIME_LIMIT", 180, minimum=0)
PLAYGROUND_PREPARE_SOFT_TIME_LIMIT = env_int("PLAYGROUND_PREPARE_SOFT_TIME_LIMIT", 600, minimum=0)
PLAYGROUND_PREPARE_TIME_LIMIT = env_int("PLAYGROUND_PREPARE_TIME_LIMIT", 720, minimum=0)
# An upload, import or YAML-view save whose estimated load weighs this much (units of ~50 us of
# loader CPU: playground/services/scenario_uploads.py) is loaded by a worker; 0: always a worker.
PLAYGROUND_UPLOAD_WORKER_WEIGHT = env_int("PLAYGROUND_UPLOAD_WORKER_WEIGHT", 7000, minimum=0)

# Pasted YAML may be up to PLAYGROUND_MAX_BYTES, so the request body limit (2.5 MB by default)
# is a little above it; the views refuse a larger body by its Content-Length before parsing it
# (an upload too), naming the setting.
DATA_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_MAX_BYTES + 1024 * 1024

# Scheduler extenders a run may call (design: SSRF guard). Comma-separated http(s) URL prefixes;
# a port of * allows every port. Development default: the bundled sample extender on loopback
# (./dev run starts it on port 8888); production default: none.
EXTENDER_ALLOWED_URLS = env_list(
    "EXTENDER_ALLOWED_URLS", [] if PRODUCTION else ["http://127.0.0.1:8888/", "http://localhost:8888/"]
)
# Seconds one run action (a step, a play) may spend waiting for extenders in total; after that its
# extender calls fail at once (so one slow extender cannot hold a worker for long).
EXTENDER_TIME_BUDGET = float(os.environ.get("EXTENDER_TIME_BUDGET", "30"))
# Out-of-tree scheduler plugins (docs/plugins.md): comma-separated Python modules the operator has
# installed; each web and worker process imports them at start (playground/plugins.py), and a
# scenario's KubeSchedulerConfiguration may then enable their plugins. Scenarios never bring code.
PLAYGROUND_PLUGINS = env_list("PLAYGROUND_PLUGINS", [])
# Runs whose scenario configures extenders go to their own Celery queue (./dev run and
# docker-compose start a worker for it), so a slow extender never delays other runs.
PLAYGROUND_EXTENDER_QUEUE = os.environ.get("PLAYGROUND_EXTENDER_QUEUE", "extenders")

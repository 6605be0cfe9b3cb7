"""The web app's walls, read from its import graph (like tests/engine/test_import_graph.py for
the engine): no import cycle, except the service <-> task pairs listed below; selectors and
presenters never import services (they read and shape, services change things); services never
import a tasks module (they send tasks by name); `playground/infra` never imports the domain;
and only `playground/infra` makes Redis clients.

Every import counts, including those under `if TYPE_CHECKING:` and inside functions: a cycle
that only a function-local import closes is still two modules that cannot be read, tested or
changed one without the other (the run pipeline was one 15-module circle of such imports).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.import_graph import cycles, read_import_graph

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "playground"

# Cycles allowed: a service and the task that calls it, when the service must also queue that
# task. None is needed today (tasks are sent by name); a pair added here is read and argued.
ALLOWED_CYCLES: list[list[str]] = []

# Calls that make a Redis client or a connection pool (`redis.Redis(...)`, `Redis.from_url(...)`,
# `redis.ConnectionPool(...)`, `redis.asyncio.from_url(...)`, ...).
REDIS_FACTORIES = {"Redis", "StrictRedis", "ConnectionPool", "BlockingConnectionPool", "from_url",
                   "RedisStorage"}  # the `limits` library's storage holds a client of its own


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    return read_import_graph(root, package)


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def layer_breaches(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs that cross a wall."""
    bad = []
    for mod, deps in graph.items():
        for dep in deps:
            if _in(mod, f"{PACKAGE}.selectors", f"{PACKAGE}.presenters") and _in(dep, f"{PACKAGE}.services"):
                bad.append((mod, dep))  # selectors read, presenters shape: neither changes things
            elif _in(mod, f"{PACKAGE}.services") and _in(dep, f"{PACKAGE}.tasks"):
                bad.append((mod, dep))  # services send tasks by name; tasks call services
            elif _in(mod, f"{PACKAGE}.infra") and not _in(dep, f"{PACKAGE}.infra"):
                bad.append((mod, dep))  # infrastructure knows no domain
    return sorted(bad)


def redis_factories(root: Path = ROOT, package: str = PACKAGE) -> list[str]:
    """`path:line` of every call outside `<package>/infra` that makes a Redis client or pool."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        if (root / package / "infra") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in REDIS_FACTORIES:
                continue
            if name == "from_url" and not _redis_owner(func):
                continue  # another library's from_url (a storage URL, a broker URL)
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def _redis_owner(func: ast.expr) -> bool:
    """Is `X.from_url` called on something named after Redis (redis, Redis, redis.asyncio, ...)?"""
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    text = ast.unparse(owner).lower()
    return "redis" in text


def test_the_web_app_has_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert [c for c in found if c not in ALLOWED_CYCLES] == [], found


def test_selectors_and_presenters_never_import_services_and_services_never_import_tasks() -> None:
    assert layer_breaches(import_graph()) == []


def test_only_infra_makes_redis_clients() -> None:
    assert redis_factories() == []


def test_the_runs_services_package_imports_nothing() -> None:
    """Importing one part of the run pipeline (a form's check, the lease's reader) must not
    drag in the rest through the package's `__init__`."""
    tree = ast.parse((ROOT / PACKAGE / "services" / "runs" / "__init__.py").read_text())
    assert [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))] == []


def test_every_task_a_service_sends_by_name_is_registered() -> None:
    """Tasks are sent by name: a name that no task is registered under would be queued and
    never run, so each name a service sends is checked against the Celery app's registry."""
    from config.celery import app
    from playground.services import diagnostics, scenario_uploads
    from playground.services.runs import dispatch, prepare
    from playground.services.versions import queued

    app.loader.import_default_modules()
    sent = [dispatch.ADVANCE_RUN_TASK, prepare.PREPARE_TASK, scenario_uploads.CHECK_TASK, diagnostics.PING_TASK,
            queued.COMPARE_TASK]
    assert [name for name in sent if name not in app.tasks] == []


# ---- the checks themselves see what they must ---------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_graph_sees_function_local_imports_and_their_cycle(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from pkg import b\n",
        "b.py": "from pkg.a import f\n",
    })
    assert cycles(import_graph(root, "pkg")) == [["pkg.a", "pkg.b"]]


@pytest.mark.parametrize("text, found", [
    ("import redis\nclient = redis.Redis.from_url('redis://x')\n", True),
    ("import redis\nclient = redis.Redis(host='x')\n", True),
    ("import redis.asyncio\nclient = redis.asyncio.from_url('redis://x')\n", True),
    ("from redis import ConnectionPool\npool = ConnectionPool()\n", True),
    ("from limits.storage import RedisStorage\ns = RedisStorage('redis://x')\n", True),
    ("from limits.strategies import FixedWindowRateLimiter\nl = FixedWindowRateLimiter(storage)\n", False),
    ("from kombu import Connection\nc = Connection.from_url('redis://x')\n", False),
])
def test_the_redis_scan_finds_client_factories(tmp_path: Path, text: str, found: bool) -> None:
    root = _package(tmp_path, {"__init__.py": "", "m.py": text, "infra/__init__.py": "",
                               "infra/ok.py": "import redis\nclient = redis.Redis.from_url('redis://x')\n"})
    assert bool(redis_factories(root, "pkg")) is found


def test_the_breach_check_sees_a_selector_importing_a_service() -> None:
    graph = {f"{PACKAGE}.selectors.x": {f"{PACKAGE}.services.runs.dispatch"}, f"{PACKAGE}.services.runs.dispatch": set()}
    assert layer_breaches(graph) == [(f"{PACKAGE}.selectors.x", f"{PACKAGE}.services.runs.dispatch")]

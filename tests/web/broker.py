"""Pointing the test process's Celery app at another Redis.

The app keeps a connection pool and a producer pool made for the broker it first sent to; after a
test switched `broker_url` to a Redis of its own and that Redis stopped, a later test's tasks went
on to the stopped one ("could not queue": connection refused) whatever `broker_url` said.
"""

from __future__ import annotations

from typing import Any


def switch_broker(app: Any, url: str) -> str:
    """Send the app's tasks to `url` from now on; the URL it had before."""
    before = app.conf.broker_url
    app.conf.broker_url = url
    app._pool = None  # made again, for `url`, on the next send
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None
    return before

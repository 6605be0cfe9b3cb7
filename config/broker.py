"""The Celery broker transport: kombu's Redis transport, made safe to close after Redis went away.

Why it exists: a worker that loses Redis while a task is running (`acks_late`: its message is
unacknowledged) died with "Unrecoverable error: AttributeError: 'NoneType' object has no
attribute 'hostname'". The sequence, in Celery 5.7 / kombu 5.7:

1. the consumer sees the connection error and calls `Connection.collect()`, which tries to close
   the default channel; that close fails part-way (the channel was in a BRPOP on the dead socket)
   and kombu ignores the error, leaving the channel open, then detaches the transport from the
   connection (`transport.client = None`);
2. the consumer then calls `Connection.close()`, which closes that channel again; this time the
   channel gets as far as putting its unacknowledged message back on the queue
   (`restore_unacked`), for which it builds a new connection pool from `transport.client`,
   which is None now. The AttributeError is not one of the transport's connection errors, so
   `ignore_errors` lets it through and the worker's main process exits.

Here a channel whose transport was detached reports a connection error instead, which kombu
and Celery already handle: the close finishes, the consumer reconnects with the broker retry
settings, and the worker process lives on. The message it could not put back is not lost to
the run: Redis restarted empty anyway, and the run's recovery (its lock expires, the sweeper
queues it again, see playground/services/run_recovery.py) continues the run from its stored log.

Selected by CELERY_BROKER_TRANSPORT in config/settings.py (the broker URL stays redis://...).
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel

"""The web's infrastructure, apart from its domain: the one place that makes Redis clients
(`redis_client`), a run's lease (`lease`), the Celery queues' names and lengths (`queues`), the
web server's processes (`web_processes`, `websocket_deflate`, `parent_death`), fast bulk
writes (`bulk_insert`) and the SQLite backend whose writers take turns (`sqlite_backend`).

Nothing here knows what a scenario or a run's actions are: services build on these modules,
and selectors may read through them (a lease is asked, never taken, by a page); these
modules never import services, selectors or presenters.
"""

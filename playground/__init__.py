"""The web playground: pages, websocket consumers and Celery tasks around scheduler_core."""

"""The web app's own operational metrics for its operator, at /metrics (docs/metrics.md).

Requests come from django-prometheus's middleware; websocket connections from the consumers
(`instruments.py`); Celery queue depth and the runs' stored steps are read from Redis when
scraped (`collectors.py`); `registry.py` assembles what one scrape returns, across every web
process when they share PROMETHEUS_MULTIPROC_DIR (playground/infra/web_processes.py sets it).
"""

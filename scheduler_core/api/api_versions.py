"""The apiVersions of the two documents a scenario holds besides Kubernetes objects: the
playground's Timeline and the KubeSchedulerConfiguration.

Why here: the loader reads them and the export writes them back; the export sits in `api/`,
below the loader, so the strings live where both can import them.
"""

from __future__ import annotations

__all__ = ["CONFIG_API_VERSION", "TIMELINE_API_VERSION"]

TIMELINE_API_VERSION = "playground.kube-scheduler.dev/v1"
CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"

"""Every in-tree plugin that filters or scores signs pods itself (upstream SignPlugin), so a
profile of in-tree plugins can batch; and the signature reads each plugin's own fragment."""

from __future__ import annotations

from scheduler_core.api.types import Pod, Toleration
from scheduler_core.framework import interface as fi
from scheduler_core.framework.plugins.registry import IN_TREE_PLUGIN_PATHS, get_registry


def test_every_filter_and_score_plugin_signs_pods():
    registry = get_registry()
    points = (fi.PreFilterPlugin, fi.FilterPlugin, fi.PreScorePlugin, fi.ScorePlugin)
    unsigned = [name for name in IN_TREE_PLUGIN_PATHS
                if issubclass(registry.get(name), points) and not callable(getattr(registry.get(name), "sign_pod", None))]
    assert unsigned == []


def test_taint_toleration_signs_tolerations():
    cls = get_registry().get("TaintToleration")
    pl = cls.__new__(cls)  # sign_pod reads nothing of the plugin's configuration
    a = Pod(name="a", tolerations=[Toleration(key="k", operator="Exists")])
    b = Pod(name="b")
    assert pl.sign_pod(a) != pl.sign_pod(b)
    assert pl.sign_pod(b) == {"tolerations": ()}

"""Forms for the scenario editor, one module per kind of object (plus the scenario's own forms).

Forms only parse the shorthand a person types (``key=value`` lines, ``key=value:Effect``
taints); whether the result is a valid Kubernetes object is decided by the engine's loader when
the service validates the whole scenario. Editing merges the form's fields into the stored
manifest, so fields the form does not show (images, affinity, ...) are kept.
"""

from __future__ import annotations

from playground.forms.base import ManifestForm
from playground.forms.config import SchedulerConfigForm
from playground.forms.nodes import BulkNodesForm, NodeForm
from playground.forms.pods import PodBatchForm, PodForm
from playground.forms.policies import PodDisruptionBudgetForm, PriorityClassForm
from playground.forms.scenarios import NewScenarioForm, ScenarioDetailsForm, YamlImportForm

FORM_BY_KIND: dict[str, type[ManifestForm]] = {
    "Node": NodeForm,
    "Pod": PodForm,
    "PriorityClass": PriorityClassForm,
    "PodDisruptionBudget": PodDisruptionBudgetForm,
}

__all__ = [
    "FORM_BY_KIND",
    "BulkNodesForm",
    "ManifestForm",
    "NewScenarioForm",
    "NodeForm",
    "PodBatchForm",
    "PodDisruptionBudgetForm",
    "PodForm",
    "PriorityClassForm",
    "ScenarioDetailsForm",
    "SchedulerConfigForm",
    "YamlImportForm",
]

"""Names of every in-tree plugin (upstream `framework/plugins/names`).

Profiles, pluginConfig entries, status messages ("didn't satisfy plugin(s) [NodeAffinity]") and
the queue's unschedulable-plugin bookkeeping all refer to plugins by these exact strings.
"""

PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
DYNAMIC_RESOURCES = "DynamicResources"
GANG_SCHEDULING = "GangScheduling"
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_DECLARED_FEATURES = "NodeDeclaredFeatures"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_BINDING = "VolumeBinding"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"

ALL = (
    PRIORITY_SORT, DEFAULT_BINDER, DEFAULT_PREEMPTION, DYNAMIC_RESOURCES, GANG_SCHEDULING,
    IMAGE_LOCALITY, INTER_POD_AFFINITY, NODE_AFFINITY, NODE_DECLARED_FEATURES, NODE_NAME, NODE_PORTS,
    NODE_RESOURCES_BALANCED_ALLOCATION, NODE_RESOURCES_FIT, NODE_UNSCHEDULABLE, NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD, SCHEDULING_GATES, TAINT_TOLERATION, VOLUME_BINDING, VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
)

"""Then and now: the mechanisms the well-known kube-scheduler articles explain (written against
v1.16 to v1.23), what each is in v1.35, what changed, and where the playground shows it.

The text is the project's own: nothing is quoted from the articles beyond their names and the
names of upstream's code. Every entry links to a gallery scenario (`gallery`: the slug; `look`:
what to do there) or to a part of the app (`page`: a URL name and its arguments); the test
tests/web/services/test_then_and_now.py checks that each target exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Article:
    key: str
    title: str
    version: str
    about: str


@dataclass(frozen=True)
class Entry:
    article: str  # Article.key
    section: str  # the article's chapter or section, by its subject
    mechanism: str
    now: str  # what it is in v1.35
    changed: str  # what changed since the article's version ("" when nothing did)
    gallery: str = ""  # the gallery scenario that shows it
    look: str = ""  # what to do or watch there ("Cycle N: ..." claims are checked against the run)
    page: tuple[str, ...] = field(default=())  # or a URL name (and args) of the app
    version: str = ""  # the Kubernetes version of the chapter this entry contrasts with
    upstream: str = ""  # the file of kubernetes/kubernetes (v1.35.4) where "now" can be read


ARTICLES = [
    Article("notes", "kubernetes-design (source notes, Chinese)", "v1.22–v1.24",
            "scheduler start-up, queue, preemption, framework, cache, events; the taint manager; admission"),
    Article("preemption", "Priority and preemption, from the source (Chinese)", "v1.19",
            "PostFilter, candidates, victims, the pick criteria, nomination"),
    Article("predicates", "Predicates and priorities, from the source (Chinese)", "v1.16",
            "the filter and score functions before the framework, feasible-node search"),
    Article("scheduleone", "pkg/scheduler's run loop and scheduleOne (Chinese)", "~v1.20",
            "the scheduling cycle and binding cycle step by step"),
    Article("extender", "The scheduler extender (English)", "v1.18",
            "filter, prioritize, preempt and bind over HTTP"),
]

# Where "now" can be read in upstream (kubernetes/kubernetes at v1.35.4).
_SCHED = "pkg/scheduler/"
_PLUGINS = _SCHED + "framework/plugins/"
_ONE = _SCHED + "schedule_one.go"
_QUEUE = _SCHED + "backend/queue/scheduling_queue.go"
_PREEMPT = _SCHED + "framework/preemption/preemption.go"
_DEFAULT_PREEMPT = _PLUGINS + "defaultpreemption/default_preemption.go"
_RUNTIME = _SCHED + "framework/runtime/framework.go"
_CACHE = _SCHED + "backend/cache/cache.go"
_EXTENDER = _SCHED + "extender.go"

ENTRIES = [
    # ---- the source notes (v1.22–v1.24, each chapter its own version) -----------------------------
    Entry("notes", "Initialization", "Profiles and the default plugin set",
          "One multiPoint list of default plugins per profile; a profile's config enables, disables or "
          "re-weights them.",
          "Since v1.23 defaults are written once under multiPoint instead of per extension point; "
          "DynamicResources joined the defaults (DRA is GA).",
          gallery="scheduler-profiles", look="Two profiles in one scheduler: each cycle names its profile, and "
                                             "the Score table shows the strategy at work.",
          version="v1.22", upstream=_SCHED + "apis/config/v1/default_plugins.go"),
    Entry("notes", "Initialization", "The cache's assumed-pod TTL (internalcache.New)",
          "The scheduler builds its cache with a TTL of 0: an assumed pod whose binding finished never "
          "expires on its own.",
          "In this chapter's v1.22 the cache was built with 30 s: an assumed pod whose binding finished was "
          "dropped 30 s later unless the informer had confirmed it. v1.23 raised it to 15 minutes; it is 0 now.",
          gallery="bind-failure", look="The pods table's cache states: Assumed until the informer's Add confirms it.",
          version="v1.22", upstream=_SCHED + "scheduler.go"),
    Entry("notes", "Start", "The scheduling loop (scheduleOne until the context ends)",
          "Unchanged in shape: pop a pod, run the scheduling cycle, hand the bind to its own cycle.",
          "Opportunistic batching (v1.35) may reuse the previous pod's Filter and Score for a pod with the "
          "same signature.",
          gallery="resource-fit", look="Press Step: one step is one scheduleOne.",
          version="v1.22", upstream=_ONE),
    Entry("notes", "Scheduling queue", "activeQ, backoffQ and the unschedulable pods",
          "The same three places; moves are gated by each plugin's queueing hints.",
          "unschedulableQ became a plain map (unschedulablePods); QueueingHints decide which cluster event "
          "requeues which pod.",
          gallery="queueing-hints", look="Each queue move names the plugin whose hint said Queue; at t=20 s "
                                         "both hints say QueueSkip and nobody moves.",
          version="v1.22", upstream=_QUEUE),
    Entry("notes", "Scheduling queue", "Leftover unschedulable pods",
          "A pod that stayed unschedulable for 5 minutes is moved back, checked every 30 seconds.",
          "Was 60 seconds in these versions; the period stayed 30 s.",
          gallery="resource-fit",
          look="When too-big is in the unschedulable pods, let the clock run 330 s: the first 30-s flush more "
               "than 5 minutes after its attempt moves it back, and it fails again.",
          version="v1.22", upstream=_QUEUE),
    Entry("notes", "Scheduling queue", "Backoff and the 1-second flush",
          "Backoff doubles from 1 s to at most 10 s; backoffQ is flushed every second.",
          "New in v1.33+ (on in v1.35): when activeQ is empty the scheduler pops from backoffQ without "
          "waiting for the backoff to end (SchedulerPopFromBackoffQ).",
          gallery="priority-preemption", look="Cycle 3: payments is popped from backoffQ early.",
          version="v1.22", upstream=_SCHED + "backend/queue/backoff_queue.go"),
    Entry("notes", "Priority and preemption", "DefaultPreemption as a PostFilter plugin",
          "The same: PostFilter runs only after Filter left no feasible node.",
          "DynamicResources' PostFilter now runs before it, so every default FailedScheduling message ends "
          "with its fragment (\"no new claims to deallocate\").",
          gallery="priority-preemption", look="Read the FailedScheduling message in the Events panel.",
          version="v1.24", upstream=_DEFAULT_PREEMPT),
    Entry("notes", "Priority and preemption", "Lower-priority nominations on the chosen node",
          "With async preemption (on by default since v1.33) a goroutine clears the nominations of "
          "lower-priority pods on the chosen node, then deletes the victims. When every victim is already "
          "terminating no goroutine starts, so those nominations are kept.",
          "In this chapter's v1.24 preemption was synchronous: the nominations were cleared every time, "
          "terminating victims or not.",
          page=("docs_page", "async-edges"), version="v1.24", upstream=_PREEMPT),
    Entry("notes", "Framework", "Extension points",
          "PreEnqueue, QueueSort, PreFilter, Filter, PostFilter, PreScore, Score, NormalizeScore, Reserve, "
          "Permit, PreBind, Bind, PostBind.",
          "PreEnqueue (scheduling gates) and PreBindPreFlight are new; PreFilter and PreScore may answer Skip.",
          gallery="resource-fit", look="Use Step extension point (e) to reveal a cycle point by point.",
          version="v1.23", upstream=_SCHED + "framework/interface.go"),
    Entry("notes", "Framework", "Scores and normalisation",
          "Each Score plugin gives 0–100 per node, then its weight multiplies it.",
          "Scores were 0–10 (MaxPriority) before the framework; see the weights table below.",
          gallery="resource-fit", look="Cycle 1: large wins; the Score table shows raw → normalized → weighted.",
          version="v1.23", upstream=_RUNTIME),
    Entry("notes", "Cache", "Assumed pods and their TTL",
          "A pod is assumed into the cache when its node is chosen, before the bind; with the TTL at 0 an "
          "assumed pod never expires on its own: only a failed bind forgets it.",
          "In this chapter's v1.23 an assumed pod whose binding finished expired 15 minutes later "
          "(durationToExpireAssumedPod) unless the informer confirmed it; today the TTL is 0.",
          gallery="bind-failure", look="The pods table's cache states; cycle 1's bind fails: Unreserve, "
                                       "then ForgetPod.",
          version="v1.23", upstream=_CACHE),
    Entry("notes", "Cache", "The snapshot each cycle reads",
          "Each cycle updates a snapshot from the cache, copying only the nodes whose generation changed.",
          "", gallery="percentage-of-nodes-to-score",
          look="The cycle view's first line: the snapshot generation and how many NodeInfos it refreshed.",
          version="v1.23", upstream=_CACHE),
    Entry("notes", "Event", "Events recorded by the scheduler",
          "Scheduled, FailedScheduling and Preempted events, with upstream's messages.",
          "events.k8s.io/v1 events; the message texts changed with the plugins.",
          gallery="priority-preemption", look="The Events panel lists them like kubectl get events.",
          version="v1.23", upstream=_ONE),
    Entry("notes", "Taint manager", "NoExecute taints evict running pods",
          "The taint eviction controller deletes pods that do not tolerate a NoExecute taint, after their "
          "tolerationSeconds.",
          "Split out of the node lifecycle controller as its own controller (v1.29).",
          gallery="noexecute-eviction", look="Watch the Evictions panel's countdowns.",
          version="v1.23", upstream="pkg/controller/tainteviction/taint_eviction.go"),
    Entry("notes", "Taint manager", "Node conditions become not-ready / unreachable taints",
          "The node lifecycle controller taints a node whose Ready is False or Unknown (NoSchedule at once, "
          "NoExecute at its 5-s health pass; Unknown after 50 s without a heartbeat).",
          "The grace period was 40 s before v1.32; TaintBasedEvictions is no longer a gate.",
          gallery="node-not-ready", look="The node cards' conditions and taints, then the evictions 300 s later.",
          version="v1.23", upstream="pkg/controller/nodelifecycle/node_lifecycle_controller.go"),
    Entry("notes", "Admission controller", "DefaultTolerationSeconds",
          "Every pod gets 300 s not-ready and unreachable NoExecute tolerations unless it has its own.",
          "", page=("docs_page", "admission"),
          version="v1.22", upstream="plugin/pkg/admission/defaulttolerationseconds/admission.go"),
    Entry("notes", "Admission controller", "Priority admission",
          "priorityClassName becomes priority and preemptionPolicy at admission.",
          "", gallery="priority-preemption", look="The pods table shows each pod's resolved priority.",
          version="v1.22", upstream="plugin/pkg/admission/priority/admission.go"),
    # ---- priority and preemption (v1.19) ----------------------------------------------------------
    Entry("preemption", "Who may preempt", "podEligibleToPreemptOthers",
          "A pod with preemptionPolicy Never does not preempt; nor does one whose nominated node still has "
          "a lower-priority pod terminating because of preemption (unless that node is now unresolvable).",
          "In v1.19 any terminating lower-priority pod on the nominated node held it back; now only one whose "
          "DisruptionTarget condition says PreemptionByScheduler does.",
          gallery="priority-preemption", look="reports (Never) stays Pending: \"not eligible\".",
          version="v1.19", upstream=_DEFAULT_PREEMPT),
    Entry("preemption", "Finding candidates", "Dry-run on each node (selectVictimsOnNode)",
          "Remove all lower-priority pods, then reprieve them in importance order while the preemptor "
          "still fits.",
          "The search starts at a random node and stops after enough candidates (10 % of the nodes, at "
          "least 100).",
          gallery="priority-preemption", look="The Preemption panel lists each candidate's victims.",
          version="v1.19", upstream=_DEFAULT_PREEMPT),
    Entry("preemption", "PDBs", "Victims that would violate a PodDisruptionBudget",
          "They are reprieved first; a candidate with fewer violations wins.",
          "", gallery="preemption-pdb", look="The chosen node's victims violate no PDB.",
          version="v1.19", upstream=_DEFAULT_PREEMPT),
    Entry("preemption", "Picking the node", "pickOneNodeForPreemption's criteria",
          "Fewest PDB violations, lowest highest victim priority, smallest priority sum, fewest victims, "
          "latest start time, then the first.",
          "Unchanged; the playground names the criterion that decided.",
          gallery="preemption-criteria", look="Three preemptions, decided by three different criteria.",
          version="v1.19", upstream=_PREEMPT),
    Entry("preemption", "Picking the node", "Latest start time of the highest-priority victims",
          "Compares status.startTime; without one a victim counts as \"now\".",
          "", gallery="preemption-start-time", look="Start times decide: the report, started last, goes.",
          version="v1.19", upstream=_PREEMPT),
    Entry("preemption", "After the choice", "Nomination and deleting the victims",
          "The preemptor gets nominatedNodeName; the victims are deleted; the preemptor retries from backoffQ.",
          "Victim deletion moved to a goroutine (async preemption, on by default since v1.33).",
          gallery="priority-preemption", look="Cycle 1: victims leave, the nominated chip appears.",
          version="v1.19", upstream=_PREEMPT),
    Entry("preemption", "After the choice", "Clearing lower-priority nominations (PrepareCandidate)",
          "With async preemption the nominations of lower-priority pods on the chosen node are cleared by the "
          "goroutine, and only when at least one victim still has to be deleted.",
          "In v1.19 PrepareCandidate cleared them after every preemption, even when every victim was already "
          "terminating.",
          page=("docs_page", "async-edges"), version="v1.19", upstream=_PREEMPT),
    # ---- predicates and priorities (v1.16) --------------------------------------------------------
    Entry("predicates", "Predicates", "Every predicate and the plugin that replaced it",
          "Filter plugins; see the mapping table below.", "Predicates and priorities were removed in v1.18–v1.23.",
          page=("then_and_now_section", "predicates"), version="v1.16", upstream=_PLUGINS + "registry.go"),
    Entry("predicates", "Predicates", "alwaysCheckAllPredicates",
          "Gone: Filter stops at a node's first plugin that does not answer Success; the plugins after it are "
          "not evaluated on that node.",
          "In v1.16 the setting made every predicate run on a node, so a message could list all its reasons; "
          "it was removed with the Policy API (v1.23).",
          gallery="taints-tolerations",
          look="Cycle 1: TaintToleration rejects gpu-1, and NodeResourcesFit is not evaluated on gpu-1.",
          version="v1.16", upstream=_RUNTIME),
    Entry("predicates", "Priorities", "Every priority function, its plugin and weight",
          "Score plugins; see the weights table below.", "Score range 0–10 became 0–100.",
          page=("then_and_now_section", "priorities"), version="v1.16",
          upstream=_SCHED + "apis/config/v1/default_plugins.go"),
    Entry("predicates", "Resource fit", "PodFitsResources and LeastRequestedPriority",
          "NodeResourcesFit filters on requests and scores LeastAllocated by default.", "",
          gallery="resource-fit", look="Cycle 7: NodeResourcesFit rejects small for memory.",
          version="v1.16", upstream=_PLUGINS + "noderesources/fit.go"),
    Entry("predicates", "Taints", "PodToleratesNodeTaints and TaintTolerationPriority",
          "TaintToleration: filters NoSchedule/NoExecute taints, scores PreferNoSchedule ones.", "",
          gallery="taints-tolerations", look="The ✗ on gpu-1 names the untolerated taint.",
          version="v1.16", upstream=_PLUGINS + "tainttoleration/taint_toleration.go"),
    Entry("predicates", "Node selection", "PodMatchNodeSelector and NodeAffinityPriority",
          "NodeAffinity (required: Filter, preferred: Score).", "", gallery="node-affinity",
          version="v1.16", upstream=_PLUGINS + "nodeaffinity/node_affinity.go"),
    Entry("predicates", "Inter-pod affinity", "MatchInterPodAffinity and InterPodAffinityPriority",
          "InterPodAffinity.", "", gallery="pod-anti-affinity",
          version="v1.16", upstream=_PLUGINS + "interpodaffinity/filtering.go"),
    Entry("predicates", "Spreading", "EvenPodsSpread and SelectorSpreadPriority",
          "PodTopologySpread, with system default constraints that replace SelectorSpread.",
          "SelectorSpread was removed; default spreading is PodTopologySpread's.",
          gallery="deployments-daemonsets", look="Two web pods per worker come from default spreading.",
          version="v1.16", upstream=_PLUGINS + "podtopologyspread/plugin.go"),
    Entry("predicates", "Feasible-node search", "numFeasibleNodesToFind and percentageOfNodesToScore",
          "Stop after enough feasible nodes (adaptive percentage, at least 100), starting where the last "
          "search stopped.", "", gallery="percentage-of-nodes-to-score",
          look="The Filter groups count the nodes never evaluated.",
          version="v1.16", upstream=_ONE),
    Entry("predicates", "Removed", "NodePreferAvoidPodsPriority (weight 10000)",
          "Gone: the NodePreferAvoidPods plugin was removed in v1.24.", "Removed.",
          page=("then_and_now_section", "priorities"), version="v1.16", upstream=_PLUGINS + "registry.go"),
    # ---- scheduleOne (~v1.20) ---------------------------------------------------------------------
    Entry("scheduleone", "NextPod", "Popping the next pod",
          "activeQ's head by PrioritySort (priority, then queue time); backoffQ when activeQ is empty.",
          "Pop from backoffQ is new (v1.33+).", gallery="priority-preemption",
          version="v1.20", upstream=_QUEUE),
    Entry("scheduleone", "frameworkForPod", "Profiles chosen by schedulerName",
          "A pod whose schedulerName matches no profile is left to another scheduler; the pods panel says so.",
          "", gallery="resource-fit", version="v1.20", upstream=_ONE),
    Entry("scheduleone", "schedulePod", "findNodesThatFitPod, prioritizeNodes, selectHost",
          "The same three steps, but the last is no longer a random pick: the scores go into a heap and its "
          "first pop wins. Among equal totals the node heap.Init leaves at the root wins, so the same "
          "feasible nodes in the same walk order give the same node; only nodes an extender scored get a "
          "random tie-breaker (the playground draws it from the run's seeded RNG).",
          "In v1.20 selectHost picked one of the top-scored nodes at random (reservoir sampling); the heap "
          "came after v1.30 (a run modelling v1.30 still samples, from the run's seed).",
          gallery="resource-fit", look="Cycle 2: large and medium tie, and large wins (the heap's first pop).",
          version="v1.20", upstream=_ONE),
    Entry("scheduleone", "Failure handling", "FailedScheduling and the error function",
          "handleSchedulingFailure records the message and puts the pod back in a queue.",
          "MakeDefaultErrorFunc became the scheduler's FailureHandler.",
          gallery="resource-fit", look="too-big's message lists each node's reason.",
          version="v1.20", upstream=_ONE),
    Entry("scheduleone", "assume, Reserve, Permit", "The end of the scheduling cycle",
          "Assume into the cache, Reserve, Permit (may wait), then the binding cycle; an assumed pod's TTL "
          "is 0 (it never expires on its own).",
          "In v1.20 an assumed pod whose binding finished expired after 30 s unless the informer confirmed it.",
          gallery="resource-fit", look="Step extension point through Reserve and Permit.",
          version="v1.20", upstream=_ONE),
    Entry("scheduleone", "Binding cycle", "PreBind, Bind, PostBind",
          "In its own goroutine; DefaultBinder writes the Binding.",
          "PreBindPreFlight (v1.34) lets PreBind be skipped.", gallery="resource-fit",
          version="v1.20", upstream=_PLUGINS + "defaultbinder/default_binder.go"),
    # ---- the extender (v1.18) ---------------------------------------------------------------------
    Entry("extender", "Configuration", "urlPrefix, verbs, weight, nodeCacheCapable, managedResources, ignorable",
          "Same fields in KubeSchedulerConfiguration's extenders.", "The Policy file is gone (v1.23).",
          gallery="extender-gpu", version="v1.18", upstream=_SCHED + "apis/config/types.go"),
    Entry("extender", "Filter", "The filter verb after the Filter plugins",
          "Only nodes the plugins kept are sent.", "", gallery="extender-gpu",
          look="The filter matrix's extender column.", version="v1.18", upstream=_EXTENDER),
    Entry("extender", "Prioritize", "Extender scores and their scale",
          "An extender scores 0–10 (MaxExtenderPriority); the scheduler multiplies by its weight and scales "
          "to 0–100.", "Plugins moved to 0–100; extenders stayed 0–10, so they are scaled.",
          gallery="extender-gpu", look="The Score table's extender column.", version="v1.18", upstream=_ONE),
    Entry("extender", "Bind", "The bind verb", "An extender with bindVerb binds instead of DefaultBinder.",
          "", gallery="extender-gpu", version="v1.18", upstream=_EXTENDER),
    Entry("extender", "Preempt", "The preempt verb",
          "Called with the candidates; may remove victims or nodes.", "", gallery="extender-preempt",
          look="The extender_call event: the node it removed, and the victim that changed.",
          version="v1.18", upstream=_PREEMPT),
]

# Every v1.16 predicate name -> the v1.35 plugin (or what became of it).
PREDICATES = [
    ("CheckNodeCondition", "— (removed in v1.17: node conditions became taints, checked by TaintToleration)"),
    ("CheckNodeUnschedulable", "NodeUnschedulable"),
    ("GeneralPredicates", "NodeResourcesFit, NodeName, NodePorts, NodeAffinity (its parts)"),
    ("HostName (PodFitsHost)", "NodeName"),
    ("PodFitsHostPorts", "NodePorts"),
    ("MatchNodeSelector (PodMatchNodeSelector)", "NodeAffinity"),
    ("PodFitsResources", "NodeResourcesFit"),
    ("NoDiskConflict", "VolumeRestrictions"),
    ("PodToleratesNodeTaints", "TaintToleration"),
    ("PodToleratesNodeNoExecuteTaints", "— (removed; TaintToleration covers NoExecute)"),
    ("CheckNodeLabelPresence", "— (removed with the NodeLabel plugin; use NodeAffinity)"),
    ("CheckServiceAffinity", "— (removed with the ServiceAffinity plugin; use pod affinity)"),
    ("MaxEBSVolumeCount", "NodeVolumeLimits (in-tree volumes through CSI migration)"),
    ("MaxGCEPDVolumeCount", "NodeVolumeLimits (in-tree volumes through CSI migration)"),
    ("MaxAzureDiskVolumeCount", "NodeVolumeLimits (in-tree volumes through CSI migration)"),
    ("MaxCinderVolumeCount", "NodeVolumeLimits (in-tree volumes through CSI migration)"),
    ("MaxCSIVolumeCountPred", "NodeVolumeLimits"),
    ("CheckVolumeBinding", "VolumeBinding"),
    ("NoVolumeZoneConflict", "VolumeZone"),
    ("CheckNodeMemoryPressure", "— (removed: a node.kubernetes.io/memory-pressure taint; TaintToleration)"),
    ("CheckNodeDiskPressure", "— (removed: a node.kubernetes.io/disk-pressure taint; TaintToleration)"),
    ("CheckNodePIDPressure", "— (removed: a node.kubernetes.io/pid-pressure taint; TaintToleration)"),
    ("MatchInterPodAffinity", "InterPodAffinity"),
    ("EvenPodsSpread", "PodTopologySpread"),
]

# Every v1.16 priority function -> the v1.35 score plugin and its default weight.
PRIORITIES = [
    ("SelectorSpreadPriority", 1, "— (SelectorSpread removed: PodTopologySpread's default constraints)", 2),
    ("ServiceSpreadingPriority", 1, "— (removed)", None),
    ("InterPodAffinityPriority", 1, "InterPodAffinity", 2),
    ("LeastRequestedPriority", 1, "NodeResourcesFit (LeastAllocated, the default strategy)", 1),
    ("MostRequestedPriority", 1, "NodeResourcesFit (MostAllocated strategy)", 1),
    ("RequestedToCapacityRatioPriority", 1, "NodeResourcesFit (RequestedToCapacityRatio strategy)", 1),
    ("BalancedResourceAllocation", 1, "NodeResourcesBalancedAllocation", 1),
    ("NodePreferAvoidPodsPriority", 10000, "— (NodePreferAvoidPods removed in v1.24)", None),
    ("NodeAffinityPriority", 1, "NodeAffinity", 2),
    ("TaintTolerationPriority", 1, "TaintToleration", 3),
    ("ImageLocalityPriority", 1, "ImageLocality", 1),
    ("EvenPodsSpreadPriority", 1, "PodTopologySpread", 2),
    ("ResourceLimitsPriority", 1, "— (removed)", None),
    ("EqualPriority", 1, "— (removed)", None),
]

SECTIONS = ("predicates", "priorities")


def grouped() -> list[dict[str, object]]:
    """The articles in order, each with its entries grouped by section (article order)."""
    out = []
    for article in ARTICLES:
        sections: dict[str, list[Entry]] = {}
        for entry in ENTRIES:
            if entry.article == article.key:
                sections.setdefault(entry.section, []).append(entry)
        out.append({"article": article, "sections": list(sections.items())})
    return out

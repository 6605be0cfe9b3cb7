from scheduler_core.backend.workloadmanager.workload_manager import PodGroupInfo, WorkloadManager

__all__ = ["PodGroupInfo", "WorkloadManager"]

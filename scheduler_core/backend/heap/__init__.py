"""Keyed heap used by the scheduling queue (upstream backend/heap)."""

from scheduler_core.backend.heap.heap import Heap

__all__ = ["Heap"]

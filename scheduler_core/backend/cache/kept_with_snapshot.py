"""What the snapshot's kept counts share: they are derived state, rebuilt, never stored."""

from __future__ import annotations


class KeptWithSnapshot:
    """A structure kept current with the scheduler's snapshot (its `generation` says which one
    it describes). A checkpoint stores none of it: a restored one starts empty (`generation`
    -1) and is rebuilt from the restored snapshot on its first use."""

    generation: int

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()  # type: ignore[misc]

    def follows(self, generation: int) -> bool:
        """Whether it describes the snapshot of `generation` (and so must follow it)."""
        return self.generation == generation

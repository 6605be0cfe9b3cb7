"""How much input a load may bring: settings, not constants.

The engine itself has no hard ceiling; these bound what one request may cost. The library
default is conservative (what a shared web server should accept from anyone); the command line
admits far more (`CLI_LIMITS`), and the web app builds its own from settings. A refusal names
the limit and how to raise it in the caller's terms (`hints`: a CLI flag, a setting name).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Limits", "DEFAULT_LIMITS", "CLI_LIMITS", "CLI_HINTS", "SETTINGS_HINTS"]

MIB = 1024 * 1024

CLI_HINTS = {"max_nodes": "--max-nodes", "max_pods": "--max-pods", "max_bytes": "--max-bytes",
             "max_claims": "--max-claims"}
SETTINGS_HINTS = {"max_nodes": "the PLAYGROUND_MAX_NODES setting",
                  "max_pods": "the PLAYGROUND_MAX_PODS setting",
                  "max_bytes": "the PLAYGROUND_MAX_BYTES setting",
                  "max_claims": "the PLAYGROUND_MAX_CLAIMS setting"}


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one scenario: nodes and pods (documents plus timeline additions), the
    input's size in bytes (UTF-8), and the claims controllers create from templates (a
    StatefulSet's volumeClaimTemplates, ephemeral volumes, ResourceClaimTemplates: pods x
    templates, so a pod limit alone does not bound them)."""

    max_nodes: int = 5000
    max_pods: int = 20000
    max_bytes: int = 5 * MIB
    max_claims: int = 20000
    # limit name -> how the user raises it, e.g. {"max_nodes": "--max-nodes"}.
    hints: dict[str, str] = field(default_factory=dict, compare=False)

    def refusal(self, limit: str, what: str) -> str:
        """`what` (e.g. "too many nodes (15,001)") plus the limit and how to raise it."""
        value = getattr(self, limit)
        how = self.hints.get(limit) or f"Limits.{limit}"
        unit = " bytes" if limit == "max_bytes" else ""
        return f"{what}; the limit is {value:,}{unit} (raise it with {how})"


DEFAULT_LIMITS = Limits()
# The command line admits the Kubernetes envelope and the largest managed clusters: 65,000 nodes
# (GKE's limit), 150,000 pods (the published envelope), and the bytes a cluster dump of that
# size takes (~70 MiB for 150,000 listed pods). Each is a flag (CLI_HINTS).
CLI_LIMITS = Limits(max_nodes=65_000, max_pods=150_000, max_bytes=256 * MIB, max_claims=150_000,
                    hints=CLI_HINTS)

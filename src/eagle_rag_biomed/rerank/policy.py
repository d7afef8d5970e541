"""Which Tier-2 reranker a plugin's requests get: the domain one, the core's general one, or none.

:func:`resolve_rerank_policy`, in this order (docs/biomed.md, "Rerank policy"):

1. ``plugins.options.<plugin>.rerank_policy`` when set (``domain`` / ``general`` / ``none``);
2. unset and ``use_general_rerank`` true -> ``general``; unset and false -> ``domain``;
3. ``domain`` but no RERANK_MERGED implementation other than the core's -> ``general``.

``domain`` runs the plugin's ``post_rrf_rerank``; ``general`` leaves the request to the core's
cross-encoder rerank (mode ``full`` only); ``none`` keeps the merged order (the caller cuts top k).
Every path writes a decision: ``rerank_t2_domain``, ``rerank_t2_general`` or ``rerank_t2_passthrough``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

__all__ = ["DECISION_CATEGORY", "RerankPolicy", "resolve_rerank_policy"]

CORE_PLUGIN = "core_defaults"


class RerankPolicy(StrEnum):
    DOMAIN = "domain"
    GENERAL = "general"
    NONE = "none"

    @classmethod
    def from_str(cls, value: str) -> RerankPolicy:
        """Parse a policy name; ValueError listing the valid names."""
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(f"unknown rerank_policy {value!r}; valid: {', '.join(p.value for p in cls)}") from None


DECISION_CATEGORY: dict[RerankPolicy, str] = {
    RerankPolicy.DOMAIN: "rerank_t2_domain",
    RerankPolicy.GENERAL: "rerank_t2_general",
    RerankPolicy.NONE: "rerank_t2_passthrough",
}


def _has_domain_reranker(pm: Any) -> bool:
    if pm is None:
        return True
    impls = pm.hook.eagle_rerank_merged.get_hookimpls()
    return any(impl.plugin_name != CORE_PLUGIN for impl in impls)


def resolve_rerank_policy(options: Mapping[str, Any], pm: Any = None) -> tuple[RerankPolicy, str]:
    """(policy, why) for a plugin's raw options block and the plugin manager (see the module docstring).

    Raises ValueError for an unknown ``rerank_policy`` value.
    """
    raw = options.get("rerank_policy")
    if raw not in (None, ""):
        return RerankPolicy.from_str(str(raw)), "rerank_policy option"
    if str(options.get("use_general_rerank", False)).strip().lower() in ("1", "true", "yes", "on"):
        return RerankPolicy.GENERAL, "use_general_rerank option"
    if not _has_domain_reranker(pm):
        return RerankPolicy.GENERAL, "no domain RERANK_MERGED implementation"
    return RerankPolicy.DOMAIN, "default"

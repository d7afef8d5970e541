"""A minimal plugin: it answers two hooks, and only inside its own namespace.

Copy this package, rename it, and register it under the ``eagle_rag.plugins`` entry-point group.
Every hook receives keyword arguments; take only the ones you need.
"""

from __future__ import annotations

from eagle_rag.plugin_api import ExpandedQuery, HookContext, SearchRequest, hookimpl

NAMESPACE = "example"


@hookimpl
def eagle_query_assemble(ctx: HookContext, request: SearchRequest) -> str | None:
    """Append a word to every query of the plugin's namespace (None elsewhere: abstain)."""
    if ctx.namespace != NAMESPACE:
        return None
    return ctx.plugin_options("example").get("suffix", "")


@hookimpl
def eagle_query_dense_expand(ctx: HookContext, query: str) -> ExpandedQuery | None:
    """Give the dense channel a rewritten query; None means "not mine, ask the next plugin"."""
    if ctx.namespace != NAMESPACE:
        return None
    return ExpandedQuery(dense_query=f"{query} (example)", sparse_terms=("example",))

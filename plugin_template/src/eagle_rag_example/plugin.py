"""A minimal plugin: it declares its options and answers two hooks, only inside its own namespace.

Copy this package, rename it, and register it under the ``eagle_rag.plugins`` entry-point group.
Every hook receives keyword arguments; take only the ones you need.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from eagle_rag.plugin_api import ExpandedQuery, HookContext, SearchRequest, hookimpl

NAMESPACE = "example"


class ExampleOptions(BaseModel):
    """``plugins.options.example``: checked when the engine starts, listed by ``eagle-rag config show``."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is an error naming the nearest valid one

    suffix: str = Field("", description="word appended to every query of the example namespace")


@hookimpl
def eagle_options_model() -> type[ExampleOptions]:
    """The model of this plugin's options block."""
    return ExampleOptions


@hookimpl
def eagle_query_assemble(ctx: HookContext, request: SearchRequest) -> str | None:
    """Append a word to every query of the plugin's namespace (None elsewhere: abstain)."""
    if ctx.namespace != NAMESPACE:
        return None
    return ExampleOptions.model_validate(ctx.plugin_options("example")).suffix


@hookimpl
def eagle_query_dense_expand(ctx: HookContext, query: str) -> ExpandedQuery | None:
    """Give the dense channel a rewritten query; None means "not mine, ask the next plugin"."""
    if ctx.namespace != NAMESPACE:
        return None
    return ExpandedQuery(dense_query=f"{query} (example)", sparse_terms=("example",))

"""What a plugin's own commands, routes and tools call: the service's Backend (this process's engine
or a server), the request field types, the tool error shape, the progress display and the
demo corpus. Nothing here is a front end: the front ends hand their own pieces to the registration
hooks (``eagle_api_register`` passes ``error_responses``).

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.ops.progress import CommandProgress
from eagle_rag.service.backend import Target, open_backend, open_remote, resolve_target
from eagle_rag.service.requests import FilterValue, PlainText, parse_mode
from eagle_rag.service.tools import tool_error
from eagle_rag.settings import effective_settings, load_settings

__all__ = [
    "CommandProgress",
    "Engine",
    "FilterValue",
    "PlainText",
    "Target",
    "effective_settings",
    "load_settings",
    "open_backend",
    "open_remote",
    "parse_mode",
    "resolve_target",
    "sample_dir",
    "tool_error",
]

"""Plugin options: each plugin's ``plugins.options.<name>`` block checked against its model, and listed.

A plugin declares the pydantic model of its options block with the hook ``eagle_options_model``
(unknown keys refused: ``extra="forbid"``). :func:`check_plugin_options` validates every enabled
plugin's block when the plugin manager is built, so a typo stops the engine, the server and the
CLI at start-up with one message that names the key and the nearest valid name
(``plugins.options.biomed.rerank_polcy: unknown option 'rerank_polcy'; did you mean
'rerank_policy'?``). A block that names no installed plugin is a warning. :func:`setting_rows` is
what ``eagle-rag config show`` and ``GET /config`` print: every core setting and every option of
every enabled plugin, with its value, help text and source (``default``, ``profile:NAME``,
``file:PATH``, ``env:VAR`` or ``override``).

An option that changes what the ingest writes (an encoder, a routing threshold) is declared with
``json_schema_extra=WRITES_INDEX``; :func:`index_options` lists those options' values, which key an
evaluation index (``eagle-rag eval beir``) so that one written under other options is never reused.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pluggy
from pydantic import BaseModel, ValidationError

from eagle_rag.settings import Settings, SettingsError, describe_fields, flatten, unknown_name_message

HOOK = "eagle_options_model"
WRITES_INDEX: dict[str, Any] = {"writes_index": True}
"""``json_schema_extra`` of an option that changes what the ingest writes."""
OPTIONS_PREFIX = "plugins.options"
log = logging.getLogger(__name__)


class PluginOptionsError(SettingsError):
    """A plugin's options block is invalid; the message names each bad key."""


@dataclass(frozen=True)
class SettingRow:
    """One line of ``config show``: a dotted key, its value, where the value came from and what it does."""

    key: str
    value: Any
    source: str
    help: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "source": self.source, "help": self.help}


def _submodel(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _model_at(model: type[BaseModel], path: Iterable[Any]) -> type[BaseModel] | None:
    """The nested model a validation error's location points into (None past a non-model field)."""
    current: type[BaseModel] | None = model
    for part in path:
        field = current.model_fields.get(str(part)) if current is not None else None
        current = _submodel(field.annotation) if field is not None else None
    return current


def _problem(plugin: str, model: type[BaseModel], error: Mapping[str, Any]) -> str:
    loc = [str(p) for p in error["loc"]]
    dotted = ".".join([OPTIONS_PREFIX, plugin, *loc])
    if error["type"] == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        known = list(parent.model_fields) if parent is not None else []
        return f"{dotted}: {unknown_name_message('option', loc[-1], known)}"
    return f"{dotted}: {error['msg']}"


def validate_plugin_options(plugin: str, model: type[BaseModel], raw: Mapping[str, Any]) -> BaseModel:
    """``raw`` (the ``plugins.options.<plugin>`` block) as ``model``.

    Raises :class:`PluginOptionsError` naming every bad key; an unknown key comes with its nearest
    valid name (or the list of valid names).
    """
    try:
        return model.model_validate(dict(raw))
    except ValidationError as exc:
        problems = "; ".join(_problem(plugin, model, e) for e in exc.errors())
        raise PluginOptionsError(f"invalid plugin options: {problems}") from exc


def options_models(pm: pluggy.PluginManager) -> dict[str, type[BaseModel]]:
    """Registered plugin name -> the model of its options block, for each plugin that declares one."""
    hook = getattr(pm.hook, HOOK)
    out: dict[str, type[BaseModel]] = {}
    for impl in hook.get_hookimpls():
        others = [p for p in pm.get_plugins() if p is not impl.plugin]
        answers = pm.subset_hook_caller(HOOK, remove_plugins=others)()  # pluggy's call loop, one plugin asked
        if answers:
            out[impl.plugin_name] = answers[0]
    return out


def index_options(pm: pluggy.PluginManager, settings: Settings) -> dict[str, Any]:
    """``plugins.options.<plugin>.<option> -> value`` of every option declared ``WRITES_INDEX``, defaults
    included (a nested model's value is its whole dump). Raises :class:`PluginOptionsError` for an invalid block."""
    out: dict[str, Any] = {}
    for name, model in sorted(options_models(pm).items()):
        values = validate_plugin_options(name, model, settings.plugin_options(name)).model_dump(mode="json")
        for option, field in model.model_fields.items():
            extra = field.json_schema_extra
            if isinstance(extra, dict) and extra.get("writes_index"):
                out[f"{OPTIONS_PREFIX}.{name}.{option}"] = values[option]
    return out


def check_plugin_options(pm: pluggy.PluginManager, settings: Settings, installed: Iterable[str] = ()) -> None:
    """Validate the options block of every registered plugin that declares a model.

    Raises :class:`PluginOptionsError`. A block named after no registered or ``installed`` plugin is
    logged as a warning with the nearest plugin name.
    """
    registered = {name for name, _ in pm.list_name_plugin() if name}
    for name, model in options_models(pm).items():
        validate_plugin_options(name, model, settings.plugin_options(name))
    known = registered | set(installed)
    for block in settings.plugins.options:
        if block not in known:
            log.warning("%s.%s is ignored: %s", OPTIONS_PREFIX, block,
                        unknown_name_message("plugin", block, known - {"core_defaults"}))


def _leaves(model: type[BaseModel], value: Mapping[str, Any], prefix: str) -> Iterable[tuple[str, Any, str]]:
    """(dotted key, value, help) of every field of ``model``, nested models walked."""
    for name, field in model.model_fields.items():
        key = f"{prefix}.{name}"
        sub = _submodel(field.annotation)
        if sub is not None:
            yield from _leaves(sub, value.get(name) or {}, key)
        else:
            yield key, value.get(name), field.description or ""


def _source(key: str, sources: Mapping[str, str]) -> str:
    """Where ``key`` came from: its own entry, else that of a key under it (a mapping-valued option)."""
    if key in sources:
        return sources[key]
    return next((source for k, source in sources.items() if k.startswith(f"{key}.")), "default")


def plugin_option_rows(pm: pluggy.PluginManager, settings: Settings, sources: Mapping[str, str]) -> list[SettingRow]:
    """One row per option of each plugin with an options model; raw rows for a block without one."""
    rows: list[SettingRow] = []
    models = options_models(pm)
    for name, model in models.items():
        options = validate_plugin_options(name, model, settings.plugin_options(name)).model_dump(mode="json")
        rows.extend(SettingRow(key, value, _source(key, sources), help_text)
                    for key, value, help_text in _leaves(model, options, f"{OPTIONS_PREFIX}.{name}"))
    for name, block in settings.plugins.options.items():
        if name not in models:
            key = f"{OPTIONS_PREFIX}.{name}"
            rows.append(SettingRow(key, block, _source(key, sources),
                                   "options of a plugin that is not enabled or declares no options model"))
    return rows


def setting_rows(settings: Settings, sources: Mapping[str, str], pm: pluggy.PluginManager) -> list[SettingRow]:
    """Every core setting, then every plugin option (see the module docstring)."""
    helps = describe_fields()
    core = [SettingRow(key, value, sources.get(key, "default"), helps.get(key, ""))
            for key, value in flatten(settings).items() if key != OPTIONS_PREFIX]
    return core + plugin_option_rows(pm, settings, sources)

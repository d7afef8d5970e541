"""The names of section and document-type filter values: what people write -> what chunks carry.

Plugins that label chunks with sections or document types say which names mean which stored value
(hook ``eagle_filter_vocabulary``: ``"Dosage and Administration"`` -> ``dosage``, ``label`` ->
``drug_label``). A search turns each requested value into every name of its stored value, so the
filters accept display names, singular and plural and any case; values no plugin knows (a record's
own ``section`` or ``doc_type``) are compared as they are, after :func:`eagle_rag.types.filter_fold`.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eagle_rag.types import DOC_TYPE_KEYS, SECTION_KEYS, NodeWithScore, SearchRequest, attribute_values, filter_fold

FIELDS: Mapping[str, tuple[str, ...]] = {"sections": SECTION_KEYS, "doc_types": DOC_TYPE_KEYS}
"""The filters whose values have names, with the chunk metadata keys each reads."""


def _forms(folded: str) -> tuple[str, ...]:
    """``folded`` with its plural or singular: ``warning`` -> (``warning``, ``warnings``)."""
    other = folded[:-1] if folded.endswith("s") else folded + "s"
    return (folded, other) if other else (folded,)


@dataclass(frozen=True)
class FilterVocabulary:
    """For each filter of :data:`FIELDS`: folded name -> the stored (canonical) value it means."""

    names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def merged(cls, answers: Iterable[Mapping[str, Mapping[str, str]]]) -> FilterVocabulary:
        """One vocabulary from the plugins' answers (the first plugin to name a value wins)."""
        names: dict[str, dict[str, str]] = {name: {} for name in FIELDS}
        for answer in answers:
            for name, table in answer.items():
                if name not in FIELDS:
                    continue
                for alias, canonical in table.items():
                    names[name].setdefault(filter_fold(alias), canonical)
                    names[name].setdefault(filter_fold(canonical), canonical)
        return cls(names)

    def canonical(self, name: str, value: str) -> str | None:
        """The stored value that ``value`` names in filter ``name``, or None when no plugin knows it."""
        table = self.names.get(name, {})
        return next((table[f] for f in _forms(filter_fold(value)) if f in table), None)

    def values(self, name: str) -> tuple[str, ...]:
        """The stored values of filter ``name`` that the plugins know, sorted."""
        return tuple(sorted(set(self.names.get(name, {}).values())))

    def expand(self, name: str, values: Iterable[str]) -> tuple[str, ...]:
        """Every name that means what one of ``values`` means (each value itself, its plural or
        singular, and every name of its stored value), folded."""
        table = self.names.get(name, {})
        out: dict[str, None] = {}
        for value in values:
            out.update(dict.fromkeys(_forms(filter_fold(value))))
            canonical = self.canonical(name, value)
            if canonical is not None:
                out.update(dict.fromkeys(alias for alias, c in table.items() if c == canonical))
        return tuple(out)


_CACHE: weakref.WeakKeyDictionary[Any, FilterVocabulary] = weakref.WeakKeyDictionary()


def vocabulary(engine: Any) -> FilterVocabulary:
    """The merged ``eagle_filter_vocabulary`` answers of the engine's plugins (asked once per plugin manager)."""
    found = _CACHE.get(engine.pm)
    if found is None:
        found = FilterVocabulary.merged(engine.pm.hook.eagle_filter_vocabulary(ctx=engine.ctx))
        _CACHE[engine.pm] = found
    return found


def expanded(engine: Any, request: SearchRequest) -> SearchRequest:
    """``request`` with its section and document-type values turned into every name of what they mean."""
    if not (request.sections or request.doc_types):
        return request
    words = vocabulary(engine)
    return dataclasses.replace(request, sections=words.expand("sections", request.sections),
                               doc_types=words.expand("doc_types", request.doc_types))


def present_values(nodes: Iterable[NodeWithScore], names: Iterable[str]) -> dict[str, list[str]]:
    """The values of each filter of ``names`` (of :data:`FIELDS`) that ``nodes`` carry, sorted."""
    found: dict[str, set[str]] = {name: set() for name in names if name in FIELDS}
    for n in nodes:
        for name, seen in found.items():
            seen.update(attribute_values(n.node.metadata, FIELDS[name]))
    return {name: sorted(seen) for name, seen in found.items()}

"""The rules of the synonym file, as code: :func:`validate_synonym_doc` lists every violation.

1. At least ``MIN_GROUPS`` groups, each with an id, a kind, a source and two or more terms.
2. No hypernyms (``BANNED_HYPERNYMS``): a term that would match most of the catalog.
3. No ambiguous abbreviations (``BANNED_ABBREVIATIONS``); any other abbreviation (a word in capitals)
   must be listed under ``abbreviations`` with the reason it is unambiguous here.
4. A term belongs to one group only (compared by normalised word sequence).
5. English terms hold no Chinese, Chinese terms only Chinese; at least ``MIN_CROSS_LINGUAL``
   groups hold both languages.
6. Specialty and disease-class groups generated from the vocabularies (MeSH, Disease Ontology).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from eagle_rag.plugin_api.text import cjk_ratio, normalize

KINDS = frozenset({"task", "topic", "language", "specialty", "disease-class", "condition"})
BANNED_HYPERNYMS = frozenset({
    "medicine", "medical", "biomedical", "health", "healthcare", "disease", "diseases", "disorder",
    "clinical", "biology", "science", "data", "dataset", "corpus", "text", "model", "language",
    "医学", "医疗", "生物医学", "健康", "疾病", "临床", "生物", "科学", "数据", "数据集", "语料", "文本", "模型",
})
BANNED_ABBREVIATIONS = frozenset({
    "KG", "GB", "CT", "MS", "PD", "RA", "AD", "ED", "PE", "MI", "CA", "ER", "IR", "RE", "NLP", "ENT",
})
MIN_GROUPS = 29
MIN_CROSS_LINGUAL = 20


def _phrase_keys(term: str) -> set[tuple[str, ...]]:
    from eagle_rag_datasets.catalog.synonyms import phrase_keys

    return phrase_keys(term)


def _is_abbreviation(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _check_group(group: Any, problems: list[str], abbreviations: Mapping[str, Any]) -> list[str]:
    gid = group.get("id") if isinstance(group, Mapping) else None
    if not isinstance(group, Mapping) or not isinstance(gid, str) or not re.fullmatch(r"[a-z0-9-]+", gid):
        problems.append(f"group {group!r}: needs an id of lower-case letters, digits and hyphens")
        return []
    if group.get("kind") not in KINDS:
        problems.append(f"{gid}: kind must be one of {sorted(KINDS)}")
    if not str(group.get("source") or "").strip():
        problems.append(f"{gid}: every group names its source")
    if group.get("origin", "curated") not in {"curated", "vocabulary"}:
        problems.append(f"{gid}: origin must be curated or vocabulary")
    en, zh = list(group.get("en") or []), list(group.get("zh") or [])
    if len(en) + len(zh) < 2:
        problems.append(f"{gid}: a group needs at least two terms")
    for term in en + zh:
        if not isinstance(term, str) or not term.strip():
            problems.append(f"{gid}: empty or non-string term {term!r}")
            return []
    problems.extend(f"{gid}: English term {t!r} holds Chinese" for t in en if cjk_ratio(t) > 0)
    problems.extend(f"{gid}: Chinese term {t!r} is not all Chinese" for t in zh if cjk_ratio(t) < 1)
    for term in en + zh:
        if normalize(term) in BANNED_HYPERNYMS:
            problems.append(f"{gid}: {term!r} is a hypernym (banned)")
        for word in re.split(r"[\s/]+", term):
            if word.upper() in BANNED_ABBREVIATIONS and _is_abbreviation(word):
                problems.append(f"{gid}: {word!r} is an ambiguous abbreviation (banned)")
            elif _is_abbreviation(word) and word not in abbreviations:
                problems.append(f"{gid}: abbreviation {word!r} is not listed under `abbreviations`")
    return [normalize(t) if cjk_ratio(t) else "|".join(sorted(map("/".join, _phrase_keys(t)))) for t in en + zh]


def validate_synonym_doc(doc: Any) -> list[str]:
    """Every rule the synonym file must keep; returns the problems (empty when the file is valid)."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("groups"), list):
        return ["the file must be a mapping with a `groups` list"]
    problems: list[str] = []
    if not str(doc.get("version") or "").strip():
        problems.append("the file needs a `version`")
    abbreviations = doc.get("abbreviations") or {}
    problems.extend(f"abbreviation {k!r} needs a reason" for k, v in abbreviations.items() if not str(v).strip())
    groups = doc["groups"]
    if len(groups) < MIN_GROUPS:
        problems.append(f"at least {MIN_GROUPS} groups are required, found {len(groups)}")
    owner: dict[str, str] = {}
    ids: set[str] = set()
    for group in groups:
        keys = _check_group(group, problems, abbreviations)
        gid = str(group.get("id")) if isinstance(group, Mapping) else "?"
        if gid in ids:
            problems.append(f"{gid}: duplicate group id")
        ids.add(gid)
        for key in keys:
            if key in owner and owner[key] != gid:
                problems.append(f"{gid}: term {key!r} already belongs to {owner[key]}")
            owner[key] = gid
    bilingual = sum(1 for g in groups if isinstance(g, Mapping) and g.get("en") and g.get("zh"))
    if bilingual < MIN_CROSS_LINGUAL:
        problems.append(f"at least {MIN_CROSS_LINGUAL} groups must hold English and Chinese, found {bilingual}")
    for kind in ("specialty", "disease-class"):
        vocab = [g for g in groups if isinstance(g, Mapping) and g.get("kind") == kind
                 and g.get("origin") == "vocabulary" and re.search(r"MeSH|Disease Ontology", str(g.get("source")))]
        if not vocab:
            problems.append(f"no {kind} groups from the vocabularies (MeSH, Disease Ontology)")
    return problems

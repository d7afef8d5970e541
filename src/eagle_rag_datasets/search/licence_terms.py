"""Licences named in a request's text ("only Apache 2.0", "CC0 or public domain", "任何版本的 GPL"): a constraint.

A licence is read only where the request says it is one: a licence family with its version or the word licence
("Apache 2.0", "Apache license", "MIT-licensed", "CC BY-NC-SA 4.0", "CC0", "GPL", "GFDL", "ODbL", "public
domain"), never a bare word that names something else ("APACHE scores", "MIT" the institute). Every licence a
request asks for is an alternative of one constraint (a card has one licence: "GPL or GFDL"); a card satisfies
it when its licence id is one of them or a version of one (:func:`..catalog.facets.license_matches`). A licence
after a negation ("not CC BY-NC") is excluded: satisfied by the cards under any other licence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from eagle_rag_datasets.search.constraints import NEGATION, Constraint, ConstraintKind
from eagle_rag_datasets.search.proximity import fold

_VERSION = r"(?: v(?:ersion)?)? ?(\d)(?: (\d))?"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r" apache(?: (?:license|licence|licensed|software license))?" + _VERSION + r"(?= )"
                r"| apache (?:license|licence|licensed)(?= )"), "apache"),
    (re.compile(r" mit (?:license|licence|licensed)(?= )"), "mit"),
    (re.compile(r" (?:cc0|cc zero|creative commons zero)(?= )"), "cc0"),
    (re.compile(r" public domain(?= )"), "public-domain"),
    (re.compile(r" (?:cc by|creative commons attribution)"
                r"((?: (?:nc|sa|nd|non ?commercial|share ?alike|no ?derivatives))*)(?: (\d) (\d))?(?= )"), "cc-by"),
    (re.compile(r" (?:gpl|gnu general public licen[cs]e)(?: ?v?(\d)(?: (\d))?)?(?= )"), "gpl"),
    (re.compile(r" (?:gfdl|gnu free documentation licen[cs]e)(?= )"), "gfdl"),
    (re.compile(r" (?:odc by|odbl|open database licen[cs]e)(?= )"), "odc"),
)
_CC_PARTS = {"nc": "nc", "noncommercial": "nc", "non commercial": "nc", "sa": "sa", "sharealike": "sa",
             "share alike": "sa", "nd": "nd", "noderivatives": "nd", "no derivatives": "nd"}
PUBLIC_DOMAIN = ("cc0", "pdm", "public-domain")
"""The licence ids a request for public-domain data accepts."""
LICENCE_NAME = re.compile(r"cc0|cc-by(?:-[a-z]+)*|gpl(?:v?\d)?|gfdl|odbl", re.IGNORECASE)
"""Licence words that look like dataset names ("CC0", "CC-BY-SA"): a licence, never a name constraint."""


def _licence_id(family: str, match: re.Match[str]) -> str:
    groups = [g for g in match.groups() if g is not None]
    if family == "cc-by":
        parts = ["cc", "by"]
        for word in re.findall(r"non ?commercial|share ?alike|no ?derivatives|nc|sa|nd", match.group(1) or ""):
            if (code := _CC_PARTS[word]) not in parts:
                parts.append(code)
        version = match.group(2), match.group(3)
        return "-".join(parts) + (f"-{version[0]}.{version[1]}" if version[0] else "")
    if family == "apache" and groups:  # "Apache 2" is apache-2.0
        return f"apache-{groups[0]}.{groups[1] if len(groups) > 1 else 0}"
    return family  # a GPL of any version: the cards' ids add "-only" or "-or-later" to it


def licence_constraints(query: str, licensed: Callable[[str], frozenset[int]],
                        everyone: frozenset[int]) -> list[Constraint]:
    """The licence constraints of ``query``: one for the licences it asks for (alternatives), one per licence it
    rules out. ``licensed(id)``: the cards under that licence or a version of it; ``everyone``: every card."""
    folded = fold(query)
    asked: dict[str, frozenset[int]] = {}
    excluded: list[Constraint] = []
    for pattern, family in _PATTERNS:
        for match in pattern.finditer(folded):
            lid = _licence_id(family, match)
            wanted = PUBLIC_DOMAIN if lid == "public-domain" else (lid,)
            cards = frozenset().union(*(licensed(one) for one in wanted))
            if NEGATION.search(folded[:match.start() + 1]):
                excluded.append(Constraint(ConstraintKind.LICENSE, lid, f"a licence other than {lid}",
                                           everyone - cards, excluded=True))
            else:
                asked.setdefault(lid, cards)
    found = [Constraint(ConstraintKind.LICENSE, " or ".join(asked), " or ".join(asked),
                        frozenset().union(*asked.values()), alternatives=tuple(asked))] if asked else []
    return found + excluded

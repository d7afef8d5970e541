"""Validation and escaping of filter values before they reach a Milvus boolean expression.

Milvus cannot bind filter values as parameters (templated ``filter_params`` do not parse on Milvus
Lite), so every value is validated and written as an escaped double-quoted string literal. The
literal grammar (Milvus ``Plan.g4``) allows any character except ``"``, ``\\`` and raw line breaks;
escape sequences ``\\\\ \\" \\n \\r \\t`` are decoded back to the original character. Values are
therefore escaped, never concatenated raw, and a hostile value can only ever match itself.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Iterable

from eagle_rag.protocols import StoreFilter

KB_NAME_MAX_LEN = 64
VALUE_MAX_LEN = 256
KEY_MAX_LEN = KB_NAME_MAX_LEN + 1 + VALUE_MAX_LEN
"""A document key ``<kb>/<id>`` (:func:`eagle_rag.types.document_key`) of a filter value's id."""

_KB_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+")
_DATE_BOUND_RE = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class InvalidFilterError(ValueError):
    """A filter value that cannot be used safely (bad kb name, control character, too long...)."""


def validate_kb_name(name: str) -> str:
    """Check that ``name`` is a usable knowledge-base name and return it unchanged.

    A kb name is 1 to 64 characters among ASCII letters, digits, ``_``, ``-`` and ``.``.

    Raises:
        InvalidFilterError: when ``name`` is not a string, is empty, is too long, or contains
            any other character.
    """
    if not isinstance(name, str):
        raise InvalidFilterError(f"kb name must be a string, got {type(name).__name__}")
    if not name:
        raise InvalidFilterError("kb name must not be empty")
    if len(name) > KB_NAME_MAX_LEN:
        raise InvalidFilterError(
            f"kb name is {len(name)} characters long; the limit is {KB_NAME_MAX_LEN}"
        )
    if not _KB_NAME_RE.fullmatch(name):
        bad = sorted({c for c in name if not _KB_NAME_RE.fullmatch(c)})
        raise InvalidFilterError(
            f"kb name {name!r} contains {''.join(bad)!r}; only letters, digits, '_', '-' and '.' "
            "are allowed"
        )
    if not name.strip("."):
        raise InvalidFilterError(f"kb name {name!r} must contain a letter, digit, '_' or '-'")
    return name


def escape_milvus_string(value: str, max_len: int = VALUE_MAX_LEN) -> str:
    """Escape ``value`` for use inside a double-quoted Milvus string literal (quotes not added).

    Backslash and double quote are escaped, and so are newline, carriage return and tab (a raw
    line break would end the literal). Returns the escaped text.

    Raises:
        InvalidFilterError: when ``value`` is not a string, is longer than ``max_len`` characters,
            or contains NUL, another control character (Unicode category Cc other than ``\\n``,
            ``\\r``, ``\\t``) or a lone surrogate.
    """
    if not isinstance(value, str):
        raise InvalidFilterError(f"filter value must be a string, got {type(value).__name__}")
    if len(value) > max_len:
        raise InvalidFilterError(
            f"filter value is {len(value)} characters long; the limit is {max_len}"
        )
    out: list[str] = []
    for char in value:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
            continue
        category = unicodedata.category(char)
        if category == "Cc":
            raise InvalidFilterError(
                f"filter value contains the control character U+{ord(char):04X}"
            )
        if category == "Cs":
            raise InvalidFilterError(f"filter value contains a lone surrogate U+{ord(char):04X}")
        out.append(char)
    return "".join(out)


def milvus_string_literal(value: str, max_len: int = VALUE_MAX_LEN) -> str:
    """Return ``value`` as a complete double-quoted Milvus string literal.

    Raises:
        InvalidFilterError: as :func:`escape_milvus_string`.
    """
    return f'"{escape_milvus_string(value, max_len)}"'


def _in_clause(field: str, values: Iterable[str], max_len: int) -> str:
    literals = ",".join(milvus_string_literal(v, max_len) for v in dict.fromkeys(values))
    return f"{field} in [{literals}]"


def validate_date_bound(value: str) -> str:
    """Return a date bound (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, a month 01-12 and a day that month
    has: ``2020-02-30`` is refused, ``2020-02-29`` is not) unchanged.

    Raises:
        InvalidFilterError: for anything else.
    """
    if not isinstance(value, str) or not _DATE_BOUND_RE.fullmatch(value):
        raise InvalidFilterError(f"invalid date {value!r}: use YYYY, YYYY-MM or YYYY-MM-DD")
    parts = value.split("-")
    if len(parts) > 1 and not 1 <= int(parts[1]) <= 12:
        raise InvalidFilterError(f"invalid date {value!r}: month {parts[1]} is not 01-12")
    if len(parts) > 2:
        last = calendar.monthrange(int(parts[0]), int(parts[1]))[1]
        if not 1 <= int(parts[2]) <= last:
            raise InvalidFilterError(f"invalid date {value!r}: day {parts[2]} is not 01-{last} "
                                     f"({calendar.month_name[int(parts[1])]} {parts[0]} has {last} days)")
    return value


def build_milvus_filter(flt: StoreFilter | None) -> str:
    """Build the Milvus boolean expression for a :class:`StoreFilter`.

    Returns ``""`` (no restriction) for ``None`` or an empty filter, otherwise clauses joined by
    ``and``, e.g. ``kb_name in ["a","b"] and document_id in ["x"]``. Duplicate values are dropped.
    Of the metadata filters, ``source_types`` becomes a clause on the ``source_type`` field; the
    others are checked on each hit by the retrieval channels.

    Raises:
        InvalidFilterError: when a kb name fails :func:`validate_kb_name` or a document id,
            chunk type or source type cannot be escaped (see :func:`escape_milvus_string`).
    """
    if flt is None:
        return ""
    clauses: list[str] = []
    if flt.kb_names:
        for name in flt.kb_names:
            validate_kb_name(name)
        clauses.append(_in_clause("kb_name", flt.kb_names, KB_NAME_MAX_LEN))
    if flt.document_ids:
        clauses.append(_in_clause("document_id", flt.document_ids, KEY_MAX_LEN))
    if flt.chunk_types:
        clauses.append(_in_clause("chunk_type", flt.chunk_types, VALUE_MAX_LEN))
    if flt.metadata is not None and flt.metadata.source_types:
        clauses.append(_in_clause("source_type", flt.metadata.source_types, VALUE_MAX_LEN))
    return " and ".join(clauses)

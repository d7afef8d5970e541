"""Filter validation and escaping: unit tests, property tests and proof on a real Milvus Lite."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pymilvus import DataType, MilvusClient

from eagle_rag.protocols import StoreFilter
from eagle_rag.stores.filters import (
    InvalidFilterError,
    build_milvus_filter,
    escape_milvus_string,
    milvus_string_literal,
    validate_kb_name,
)
from eagle_rag.stores.milvus import MilvusVectorStore

HOSTILE = [
    '" or 1==1 or "',
    '" || kb_name != "',
    'a"]) or id != "',
    "||",
    "&&",
    "\\",
    '\\"',
    '\\" or 1==1 or \\"',
    "x\ny",
    "line\r\nbreak",
    "tab\there",
    "it's",
    "' or '1'=='1",
    "%",
    "{kb}",
    "é中文🧬 Ünïcödé",
    "\u2028sep",
    " ",
    "",
]

# Text that may contain every character an escaper must handle, but no control characters
# other than \n \r \t (those are rejected by design) and no surrogates.
_ALLOWED = st.characters(blacklist_categories=("Cc", "Cs")) | st.sampled_from(
    ['"', "\\", "'", "\n", "\r", "\t", "[", "]", "(", ")", "|", "&", "=", "%", "$", "{", "}"]
)


def _unescape(escaped: str) -> str:
    """Decode a Milvus double-quoted literal body the way the expression parser does."""
    mapping = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
    out: list[str] = []
    chars = iter(escaped)
    for char in chars:
        if char == "\\":
            out.append(mapping[next(chars)])
        else:
            assert char not in '"\n\r', f"unescaped {char!r} in {escaped!r}"
            out.append(char)
    return "".join(out)


# ----------------------------------------------------------------------------- unit


@pytest.mark.unit
@pytest.mark.parametrize("name", ["default", "kb-1", "KB_2.v3", "a", "x" * 64])
def test_validate_kb_name_accepts(name: str) -> None:
    assert validate_kb_name(name) == name


@pytest.mark.unit
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "must not be empty"),
        ("x" * 65, "65 characters long; the limit is 64"),
        ("a b", "only letters, digits"),
        ('a"b', "only letters, digits"),
        ("é", "only letters, digits"),
        ("a\nb", "only letters, digits"),
        ('" or 1==1 or "', "only letters, digits"),
    ],
)
def test_validate_kb_name_rejects(name: str, message: str) -> None:
    with pytest.raises(InvalidFilterError, match=message):
        validate_kb_name(name)


@pytest.mark.unit
def test_invalid_filter_error_is_value_error() -> None:
    assert issubclass(InvalidFilterError, ValueError)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("plain", "plain"),
        ('a"b', 'a\\"b'),
        ("a\\b", "a\\\\b"),
        ('" or 1==1 or "', '\\" or 1==1 or \\"'),
        ("x\ny\tz\r", "x\\ny\\tz\\r"),
        ("é中🧬", "é中🧬"),
    ],
)
def test_escape_milvus_string(value: str, escaped: str) -> None:
    assert escape_milvus_string(value) == escaped


@pytest.mark.unit
@pytest.mark.parametrize("value", ["\x00", "a\x00b", "\x01", "\x1b[0m", "\x7f", "\x85", "\ud800"])
def test_escape_rejects_control_characters_and_surrogates(value: str) -> None:
    with pytest.raises(InvalidFilterError, match="control character|surrogate"):
        escape_milvus_string(value)


@pytest.mark.unit
def test_escape_length_limit() -> None:
    assert escape_milvus_string("d" * 256) == "d" * 256
    with pytest.raises(InvalidFilterError, match="257 characters long"):
        escape_milvus_string("d" * 257)


@pytest.mark.unit
def test_build_milvus_filter() -> None:
    assert build_milvus_filter(None) == ""
    assert build_milvus_filter(StoreFilter()) == ""
    flt = StoreFilter(kb_names=("a", "b", "a"), document_ids=("x",))
    assert build_milvus_filter(flt) == 'kb_name in ["a","b"] and document_id in ["x"]'
    flt = StoreFilter(document_ids=('d" or 1==1 or "',), chunk_types=("table",))
    assert build_milvus_filter(flt) == (
        'document_id in ["d\\" or 1==1 or \\""] and chunk_type in ["table"]'
    )


@pytest.mark.unit
@pytest.mark.parametrize("bad", ['" or 1==1 or "', "", "a b", "x" * 65])
def test_build_milvus_filter_rejects_bad_kb_names(bad: str) -> None:
    with pytest.raises(InvalidFilterError):
        build_milvus_filter(StoreFilter(kb_names=("ok", bad)))


@pytest.mark.unit
@settings(max_examples=300)
@given(st.text(_ALLOWED, max_size=256))
def test_escape_round_trips(value: str) -> None:
    escaped = escape_milvus_string(value)
    assert _unescape(escaped) == value
    literal = milvus_string_literal(value)
    assert literal.startswith('"') and literal.endswith('"')
    assert _unescape(literal[1:-1]) == value


# ----------------------------------------------------------------------------- real Milvus Lite


@pytest.fixture(scope="module")
def hostile_collection(milvus_lite_store: MilvusVectorStore) -> Iterator[tuple[MilvusClient, str]]:
    """A raw collection whose kb_name and document_id hold the hostile strings."""
    client = milvus_lite_store.client
    name = "filters_hostile"
    if client.has_collection(name):
        client.drop_collection(name)
    schema = MilvusClient.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, max_length=64, is_primary=True)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("kb_name", DataType.VARCHAR, max_length=2048)
    schema.add_field("document_id", DataType.VARCHAR, max_length=2048)
    schema.add_field("chunk_type", DataType.VARCHAR, max_length=2048)
    index = client.prepare_index_params()
    index.add_index(field_name="vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection(name, schema=schema, index_params=index)
    rows = [_row(v) for v in HOSTILE]
    rows += [_row(f"benign-{i}") for i in range(5)]
    client.insert(name, rows)
    yield client, name
    client.drop_collection(name)


def _row_id(value: str) -> str:
    return hashlib.sha1(value.encode("utf-8")).hexdigest()


def _row(value: str) -> dict[str, object]:
    return {"id": _row_id(value), "vector": [1.0, 0.5], "kb_name": value, "document_id": value,
            "chunk_type": value}


def _ids(client: MilvusClient, name: str, expr: str) -> set[str]:
    return {row["id"] for row in client.query(name, filter=expr, output_fields=["id"], limit=1000)}


@pytest.mark.integration
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_value_matches_only_its_own_row(
    hostile_collection: tuple[MilvusClient, str], value: str
) -> None:
    client, name = hostile_collection
    expected = {_row_id(value)}
    assert _ids(client, name, f"kb_name == {milvus_string_literal(value)}") == expected
    expr = build_milvus_filter(StoreFilter(document_ids=(value,)))
    assert _ids(client, name, expr) == expected
    expr = build_milvus_filter(StoreFilter(document_ids=(value,), chunk_types=(value,)))
    assert _ids(client, name, expr) == expected
    hits = client.search(name, data=[[1.0, 0.5]], limit=100, filter=expr, output_fields=["id"])
    assert {h["id"] for h in hits[0]} == expected


@pytest.mark.integration
@pytest.mark.parametrize("value", ['" or 1==1 or "', '") or (1==1', "\\", '" || "', "a\nb"])
def test_absent_hostile_value_matches_nothing(
    hostile_collection: tuple[MilvusClient, str], value: str
) -> None:
    client, name = hostile_collection
    probe = f"zz-not-stored {value}"
    expr = build_milvus_filter(StoreFilter(document_ids=(probe,)))
    assert _ids(client, name, expr) == set()
    assert _ids(client, name, f"kb_name == {milvus_string_literal(probe)}") == set()


@pytest.mark.integration
def test_multi_value_filter_matches_exactly_those_rows(
    hostile_collection: tuple[MilvusClient, str],
) -> None:
    client, name = hostile_collection
    values = ('" or 1==1 or "', "\\", "benign-1")
    expr = build_milvus_filter(StoreFilter(document_ids=values))
    assert _ids(client, name, expr) == {_row_id(v) for v in values}
    assert len(_ids(client, name, "")) == len(HOSTILE) + 5


@pytest.mark.integration
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(_ALLOWED, min_size=0, max_size=64))
def test_property_hostile_kb_name_round_trips_in_milvus(
    hostile_collection: tuple[MilvusClient, str], value: str
) -> None:
    client, name = hostile_collection
    client.upsert(name, [_row(value)])
    try:
        got = client.query(name, filter=f"kb_name == {milvus_string_literal(value)}",
                           output_fields=["id", "kb_name"], limit=1000)
        assert [(r["id"], r["kb_name"]) for r in got] == [(_row_id(value), value)]
        expr = build_milvus_filter(StoreFilter(document_ids=(value, "benign-0")))
        assert _ids(client, name, expr) == {_row_id(value), _row_id("benign-0")}
    finally:
        if value not in HOSTILE and not value.startswith("benign-"):
            client.delete(name, ids=[_row_id(value)])

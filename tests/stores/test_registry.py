"""The shared DocumentRegistry suite: SQLite and PostgreSQL (one fresh schema per test)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from eagle_rag.protocols import DocumentRecord, DocumentRegistry
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.stores.registry import SqlDocumentRegistry, escape_like, source_file_name
from eagle_rag.types import DocumentStatus

pytestmark = pytest.mark.integration
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlDocumentRegistry]:
    """Every backend, empty; PostgreSQL gets a uniquely named schema, dropped afterwards."""
    if request.param == "sqlite":
        reg = SqlDocumentRegistry(f"sqlite:///{tmp_path / 'sub' / 'registry.db'}")
        yield reg
        reg.close()
        return
    url = request.getfixturevalue("postgres_url")
    schema = f"eagle_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(CreateSchema(schema))
    reg = SqlDocumentRegistry(url, connect_args={"options": f"-csearch_path={schema}"})
    try:
        yield reg
    finally:
        reg.close()
        with admin.begin() as conn:
            conn.execute(DropSchema(schema, cascade=True))
        admin.dispose()


def _record(doc_id: str, name: str = "", kb: str = "kb1", status: DocumentStatus =
            DocumentStatus.COMPLETE, tags: tuple[str, ...] = (), namespace: str = "biomed",
            source_uri: str = "") -> DocumentRecord:
    return DocumentRecord(
        id=doc_id, kb_name=kb, name=name or f"Document {doc_id}",
        source_uri=source_uri or f"/data/{doc_id}.pdf", content_hash=f"sha256:{doc_id}",
        status=status, chunk_count=3, tags=tags, namespace=namespace, created_at=T0,
        updated_at=T0 + timedelta(minutes=1),
    )


def test_implements_protocol(registry: DocumentRegistry) -> None:
    assert isinstance(registry, DocumentRegistry)


def test_round_trip_is_exact(registry: DocumentRegistry) -> None:
    record = _record("d1", name="Ärzte-Studie 'quoted' \"x\"", tags=("zeta", "alpha", "zeta"))
    registry.upsert(record)
    got = registry.get("d1")
    assert got is not None
    assert got == DocumentRecord(**{**record.__dict__, "tags": ("zeta", "alpha")})
    assert got.created_at.tzinfo is not None and got.created_at.utcoffset() == timedelta(0)
    assert registry.get("missing") is None


def test_non_utc_times_are_stored_as_utc(registry: DocumentRegistry) -> None:
    plus2 = timezone(timedelta(hours=2))
    record = DocumentRecord(**{**_record("d1").__dict__,
                               "created_at": datetime(2024, 5, 1, 14, 0, tzinfo=plus2)})
    registry.upsert(record)
    got = registry.get("d1")
    assert got is not None and got.created_at == T0 and got.created_at.tzinfo == UTC


def test_invalid_records_are_rejected(registry: DocumentRegistry) -> None:
    with pytest.raises(ValueError, match="is a naive datetime"):
        registry.upsert(DocumentRecord(**{**_record("d1").__dict__,
                                          "created_at": datetime(2024, 1, 1)}))
    with pytest.raises(InvalidFilterError):
        registry.upsert(_record("d2", kb="bad kb"))
    with pytest.raises(ValueError, match="must not be empty"):
        registry.upsert(_record(""))
    assert registry.count() == 0


def test_upsert_replaces_and_keeps_created_at(registry: DocumentRegistry) -> None:
    registry.upsert(_record("d1", tags=("a", "b")))
    later = T0 + timedelta(days=1)
    changed = DocumentRecord(**{**_record("d1", name="Renamed", tags=("c",)).__dict__,
                                "created_at": later, "updated_at": later})
    registry.upsert(changed)
    got = registry.get("d1")
    assert got is not None
    assert (got.name, got.tags, got.created_at, got.updated_at) == ("Renamed", ("c",), T0, later)
    assert registry.count() == 1
    assert registry.document_ids_with_tags(["a", "b"]) == set()


def test_set_status(registry: DocumentRegistry) -> None:
    registry.upsert(_record("d1", status=DocumentStatus.PENDING))
    registry.set_status("d1", DocumentStatus.FAILED, error="parse error: bad PDF")
    got = registry.get("d1")
    assert got is not None
    assert (got.status, got.error, got.chunk_count) == (DocumentStatus.FAILED,
                                                        "parse error: bad PDF", 3)
    assert got.updated_at > T0 + timedelta(minutes=1) and got.created_at == T0
    registry.set_status("d1", DocumentStatus.COMPLETE, chunk_count=17)
    got = registry.get("d1")
    assert got is not None and (got.status, got.error, got.chunk_count) == (
        DocumentStatus.COMPLETE, "", 17)
    with pytest.raises(KeyError, match="unknown document"):
        registry.set_status("nope", DocumentStatus.COMPLETE)


def test_delete(registry: DocumentRegistry) -> None:
    registry.upsert(_record("d1", tags=("t",)))
    registry.upsert(_record("d2", tags=("t",)))
    assert registry.delete("d1") is True
    assert registry.delete("d1") is False
    assert registry.delete("d2' OR '1'='1") is False
    assert registry.get("d1") is None and registry.count() == 1
    assert registry.document_ids_with_tags(["t"]) == {"d2"}


def test_list_count_and_kb_names(registry: DocumentRegistry) -> None:
    for i in (5, 3, 9, 1, 7):
        kb = "kb1" if i < 6 else "kb2"
        status = DocumentStatus.PENDING if i == 3 else DocumentStatus.COMPLETE
        registry.upsert(_record(f"d{i}", kb=kb, status=status))
    assert [r.id for r in registry.list()] == ["d1", "d3", "d5", "d7", "d9"]
    assert [r.id for r in registry.list(limit=2, offset=1)] == ["d3", "d5"]
    assert [r.id for r in registry.list(kb_name="kb2")] == ["d7", "d9"]
    assert [r.id for r in registry.list(status=DocumentStatus.PENDING)] == ["d3"]
    assert [r.id for r in registry.list(kb_name="kb1", status=DocumentStatus.COMPLETE)] == [
        "d1", "d5"]
    assert registry.list(kb_name="kb1' OR '1'='1") == []
    assert registry.count() == 5
    assert registry.count(kb_name="kb1") == 3
    assert registry.count(kb_name="kb1", status=DocumentStatus.COMPLETE) == 2
    assert registry.count(status=DocumentStatus.FAILED) == 0
    assert registry.kb_names() == {"kb1", "kb2"}


def test_lookup_by_name_terms(registry: DocumentRegistry) -> None:
    registry.upsert(_record("d1", name="KEYNOTE-006 Trial Report"))
    registry.upsert(_record("d2", name="Metformin label", source_uri="file:///x/DailyMed%20Label.XML"))
    registry.upsert(_record("d3", name="100% response_rate", kb="kb2"))
    registry.upsert(_record("d4", name="path\\to\\file", namespace="other"))
    registry.upsert(_record("d5", name="Ärzte Übersicht"))
    assert registry.lookup_document_ids_by_name_terms(["keynote"]) == ["d1"]
    assert registry.lookup_document_ids_by_name_terms(["TRIAL", "metformin"]) == ["d1", "d2"]
    assert registry.lookup_document_ids_by_name_terms(["dailymed label"]) == ["d2"]
    assert registry.lookup_document_ids_by_name_terms(["%"]) == ["d3"]
    assert registry.lookup_document_ids_by_name_terms(["_"]) == ["d3"]
    assert registry.lookup_document_ids_by_name_terms(["l_r"]) == []  # "trial report" if "_" were a wildcard
    assert registry.lookup_document_ids_by_name_terms(["\\"]) == ["d4"]
    assert registry.lookup_document_ids_by_name_terms(["ärzte"]) == ["d5"]
    assert registry.lookup_document_ids_by_name_terms(["' OR 1=1 --"]) == []
    assert registry.lookup_document_ids_by_name_terms(["", "  "]) == []
    assert registry.lookup_document_ids_by_name_terms(["d"], kb_name="kb2") == ["d3"]
    assert registry.lookup_document_ids_by_name_terms(["path"], namespace="biomed") == []
    assert registry.lookup_document_ids_by_name_terms(["path"], namespace="other") == ["d4"]


def test_document_ids_with_tags(registry: DocumentRegistry) -> None:
    registry.upsert(_record("d1", tags=("oncology", "review")))
    registry.upsert(_record("d2", tags=("oncology",)))
    registry.upsert(_record("d3", tags=("it's \"quoted\"", "%")))
    assert registry.document_ids_with_tags(["oncology"]) == {"d1", "d2"}
    assert registry.document_ids_with_tags(["review", "it's \"quoted\""]) == {"d1", "d3"}
    assert registry.document_ids_with_tags(["Oncology"]) == set()
    assert registry.document_ids_with_tags(["%"]) == {"d3"}
    assert registry.document_ids_with_tags(["x' OR '1'='1"]) == set()
    assert registry.document_ids_with_tags([]) == set()


def test_concurrent_upserts(registry: DocumentRegistry) -> None:
    def work(i: int) -> None:
        registry.upsert(_record(f"d{i:02d}", tags=(f"t{i % 3}",)))
        registry.set_status(f"d{i:02d}", DocumentStatus.COMPLETE, chunk_count=i)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(work, range(24)))
    assert registry.count() == 24
    assert len(registry.document_ids_with_tags(["t0"])) == 8
    assert sum(r.chunk_count for r in registry.list()) == sum(range(24))


def test_sqlite_file_persists(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first = SqlDocumentRegistry(url)
    first.upsert(_record("d1", tags=("x",)))
    first.close()
    second = SqlDocumentRegistry(url)
    got = second.get("d1")
    assert got is not None and got.tags == ("x",) and got.created_at == T0
    second.close()


def test_sqlite_in_memory() -> None:
    reg = SqlDocumentRegistry("sqlite://")
    reg.upsert(_record("d1"))
    assert reg.count() == 1
    reg.close()


@pytest.mark.unit
def test_helpers() -> None:
    assert escape_like("100%_a\\b") == "100\\%\\_a\\\\b"
    assert source_file_name("file:///data/My%20Doc.PDF") == "My Doc.PDF"
    assert source_file_name("s3://bucket/a/b.txt?x=1") == "b.txt"
    assert source_file_name("C:\\data\\x.pdf") == "x.pdf"
    assert source_file_name("/data/dir/") == "dir"


def test_upsert_many_is_one_transaction(registry: DocumentRegistry) -> None:
    registry.upsert_many([_record("d1", tags=("a",)), _record("d2", status=DocumentStatus.PENDING)])
    assert registry.count() == 2 and registry.get("d1").tags == ("a",)  # type: ignore[union-attr]
    bad = DocumentRecord(**{**_record("d4").__dict__, "kb_name": "bad kb!"})
    with pytest.raises(ValueError):
        registry.upsert_many([_record("d3"), bad])
    assert registry.get("d3") is None  # nothing of a refused batch is stored
    registry.upsert_many([])


def test_complete_versions(registry: DocumentRegistry) -> None:
    registry.upsert_many([_record("d1"), _record("d2", status=DocumentStatus.PENDING), _record("d3")])
    assert registry.complete_versions(["d1", "d2", "d3", "nope", "d1"]) == {"d1": "sha256:d1", "d3": "sha256:d3"}
    assert registry.complete_versions([]) == {}


def test_unreachable_database_is_one_clear_error() -> None:
    from eagle_rag.errors import StoreUnavailable

    reg = SqlDocumentRegistry("postgresql+psycopg://app:secret@127.0.0.1:1/none")  # nothing listens on port 1
    with pytest.raises(StoreUnavailable) as info:
        reg.count()
    message = info.value.message
    assert "\n" not in message and "secret" not in message and "127.0.0.1" in message
    assert "unreachable" in message and "refused" in message.lower()
    reg.close()

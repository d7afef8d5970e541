"""The shared :class:`~eagle_rag.protocols.DocumentRegistry` suite.

Subclass :class:`DocumentRegistrySuite` and override its ``registry`` fixture with one that yields
an empty registry (and cleans up afterwards); every test method then runs against it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone

import pytest

from eagle_rag.protocols import DocumentRecord, DocumentRegistry
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.testing.fixtures import missing_fixture
from eagle_rag.types import DocumentStatus, document_key

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
"""``created_at`` of every :func:`make_record` (``updated_at`` is one minute later)."""


def make_record(doc_id: str, name: str = "", kb: str = "kb1", status: DocumentStatus = DocumentStatus.COMPLETE,
                tags: tuple[str, ...] = (), namespace: str = "biomed", source_uri: str = "") -> DocumentRecord:
    """A complete record with three chunks, content hash ``sha256:<doc_id>``, created at :data:`T0`."""
    return DocumentRecord(
        id=doc_id, kb_name=kb, name=name or f"Document {doc_id}",
        source_uri=source_uri or f"/data/{doc_id}.pdf", content_hash=f"sha256:{doc_id}",
        status=status, chunk_count=3, tags=tags, namespace=namespace, created_at=T0,
        updated_at=T0 + timedelta(minutes=1),
    )


class DocumentRegistrySuite:
    """Every :class:`DocumentRegistry` passes these tests. Override the ``registry`` fixture."""

    @pytest.fixture
    def registry(self) -> DocumentRegistry:
        """An empty registry, closed and removed after the test. Abstract: a subclass overrides it."""
        missing_fixture(self, DocumentRegistrySuite, "registry", "an empty DocumentRegistry")

    def test_implements_protocol(self, registry: DocumentRegistry) -> None:
        assert isinstance(registry, DocumentRegistry)

    def test_round_trip_is_exact(self, registry: DocumentRegistry) -> None:
        record = make_record("d1", name="Ärzte-Studie 'quoted' \"x\"", tags=("zeta", "alpha", "zeta"))
        registry.upsert(record)
        got = registry.get("d1")
        assert got is not None
        assert got == DocumentRecord(**{**record.__dict__, "tags": ("zeta", "alpha")})
        assert got.created_at.tzinfo is not None and got.created_at.utcoffset() == timedelta(0)
        assert registry.get("missing") is None

    def test_the_same_id_in_two_kbs_is_two_documents(self, registry: DocumentRegistry) -> None:
        """Documents are stored under ``document_key(kb, id)``: one id in two kbs is two rows, each
        with its own tags, and deleting one leaves the other."""
        left, right = document_key("kb1", "abs-008"), document_key("kb2", "abs-008")
        registry.upsert_many([make_record(left, kb="kb1", tags=("x",)), make_record(right, kb="kb2", tags=("y",))])
        assert registry.count() == 2 and registry.document_ids_with_tags(["x"]) == {left}
        assert registry.complete_ids([left, right, "abs-008"]) == {left, right}
        assert registry.delete(left) and registry.get(left) is None
        got = registry.get(right)
        assert got is not None and (got.kb_name, got.tags) == ("kb2", ("y",))

    def test_non_utc_times_are_stored_as_utc(self, registry: DocumentRegistry) -> None:
        plus2 = timezone(timedelta(hours=2))
        record = DocumentRecord(**{**make_record("d1").__dict__,
                                   "created_at": datetime(2024, 5, 1, 14, 0, tzinfo=plus2)})
        registry.upsert(record)
        got = registry.get("d1")
        assert got is not None and got.created_at == T0 and got.created_at.tzinfo == UTC

    def test_invalid_records_are_rejected(self, registry: DocumentRegistry) -> None:
        with pytest.raises(ValueError, match="is a naive datetime"):
            registry.upsert(DocumentRecord(**{**make_record("d1").__dict__,
                                              "created_at": datetime(2024, 1, 1)}))
        with pytest.raises(InvalidFilterError):
            registry.upsert(make_record("d2", kb="bad kb"))
        with pytest.raises(ValueError, match="must not be empty"):
            registry.upsert(make_record(""))
        assert registry.count() == 0

    def test_upsert_replaces_and_keeps_created_at(self, registry: DocumentRegistry) -> None:
        registry.upsert(make_record("d1", tags=("a", "b")))
        later = T0 + timedelta(days=1)
        changed = DocumentRecord(**{**make_record("d1", name="Renamed", tags=("c",)).__dict__,
                                    "created_at": later, "updated_at": later})
        registry.upsert(changed)
        got = registry.get("d1")
        assert got is not None
        assert (got.name, got.tags, got.created_at, got.updated_at) == ("Renamed", ("c",), T0, later)
        assert registry.count() == 1
        assert registry.document_ids_with_tags(["a", "b"]) == set()

    def test_set_status(self, registry: DocumentRegistry) -> None:
        registry.upsert(make_record("d1", status=DocumentStatus.PENDING))
        registry.set_status("d1", DocumentStatus.FAILED, error="parse error: bad PDF")
        got = registry.get("d1")
        assert got is not None
        assert (got.status, got.error, got.chunk_count) == (DocumentStatus.FAILED, "parse error: bad PDF", 3)
        assert got.updated_at > T0 + timedelta(minutes=1) and got.created_at == T0
        registry.set_status("d1", DocumentStatus.COMPLETE, chunk_count=17)
        got = registry.get("d1")
        assert got is not None and (got.status, got.error, got.chunk_count) == (DocumentStatus.COMPLETE, "", 17)
        with pytest.raises(KeyError, match="unknown document"):
            registry.set_status("nope", DocumentStatus.COMPLETE)

    def test_delete(self, registry: DocumentRegistry) -> None:
        registry.upsert(make_record("d1", tags=("t",)))
        registry.upsert(make_record("d2", tags=("t",)))
        assert registry.delete("d1") is True
        assert registry.delete("d1") is False
        assert registry.delete("d2' OR '1'='1") is False
        assert registry.get("d1") is None and registry.count() == 1
        assert registry.document_ids_with_tags(["t"]) == {"d2"}

    def test_list_count_and_kb_names(self, registry: DocumentRegistry) -> None:
        for i in (5, 3, 9, 1, 7):
            kb = "kb1" if i < 6 else "kb2"
            status = DocumentStatus.PENDING if i == 3 else DocumentStatus.COMPLETE
            registry.upsert(make_record(f"d{i}", kb=kb, status=status))
        assert [r.id for r in registry.list()] == ["d1", "d3", "d5", "d7", "d9"]
        assert [r.id for r in registry.list(limit=2, offset=1)] == ["d3", "d5"]
        assert [r.id for r in registry.list(kb_name="kb2")] == ["d7", "d9"]
        assert [r.id for r in registry.list(status=DocumentStatus.PENDING)] == ["d3"]
        assert [r.id for r in registry.list(kb_name="kb1", status=DocumentStatus.COMPLETE)] == ["d1", "d5"]
        assert registry.list(kb_name="kb1' OR '1'='1") == []
        assert registry.count() == 5
        assert registry.count(kb_name="kb1") == 3
        assert registry.count(kb_name="kb1", status=DocumentStatus.COMPLETE) == 2
        assert registry.count(status=DocumentStatus.FAILED) == 0
        assert registry.kb_names() == {"kb1", "kb2"}

    def test_lookup_by_name_terms(self, registry: DocumentRegistry) -> None:
        lookup = registry.lookup_document_ids_by_name_terms
        registry.upsert(make_record("d1", name="KEYNOTE-006 Trial Report"))
        registry.upsert(make_record("d2", name="Metformin label", source_uri="file:///x/DailyMed%20Label.XML"))
        registry.upsert(make_record("d3", name="100% response_rate", kb="kb2"))
        registry.upsert(make_record("d4", name="path\\to\\file", namespace="other"))
        registry.upsert(make_record("d5", name="Ärzte Übersicht"))
        assert lookup(["keynote"]) == ["d1"]
        assert lookup(["TRIAL", "metformin"]) == ["d1", "d2"]
        assert lookup(["dailymed label"]) == ["d2"]
        assert lookup(["%"]) == ["d3"]
        assert lookup(["_"]) == ["d3"]
        assert lookup(["l_r"]) == []  # "trial report" if "_" were a wildcard
        assert lookup(["\\"]) == ["d4"]
        assert lookup(["ärzte"]) == ["d5"]
        assert lookup(["' OR 1=1 --"]) == []
        assert lookup(["", "  "]) == []
        assert lookup(["d"], kb_name="kb2") == ["d3"]
        assert lookup(["path"], namespace="biomed") == []
        assert lookup(["path"], namespace="other") == ["d4"]

    def test_document_ids_with_tags(self, registry: DocumentRegistry) -> None:
        registry.upsert(make_record("d1", tags=("oncology", "review")))
        registry.upsert(make_record("d2", tags=("oncology",)))
        registry.upsert(make_record("d3", tags=("it's \"quoted\"", "%")))
        assert registry.document_ids_with_tags(["oncology"]) == {"d1", "d2"}
        assert registry.document_ids_with_tags(["review", "it's \"quoted\""]) == {"d1", "d3"}
        assert registry.document_ids_with_tags(["Oncology"]) == set()
        assert registry.document_ids_with_tags(["%"]) == {"d3"}
        assert registry.document_ids_with_tags(["x' OR '1'='1"]) == set()
        assert registry.document_ids_with_tags([]) == set()

    def test_concurrent_upserts(self, registry: DocumentRegistry) -> None:
        def work(i: int) -> None:
            registry.upsert(make_record(f"d{i:02d}", tags=(f"t{i % 3}",)))
            registry.set_status(f"d{i:02d}", DocumentStatus.COMPLETE, chunk_count=i)

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(work, range(24)))
        assert registry.count() == 24
        assert len(registry.document_ids_with_tags(["t0"])) == 8
        assert sum(r.chunk_count for r in registry.list()) == sum(range(24))

    def test_upsert_many_is_one_transaction(self, registry: DocumentRegistry) -> None:
        registry.upsert_many([make_record("d1", tags=("a",)), make_record("d2", status=DocumentStatus.PENDING)])
        first = registry.get("d1")
        assert registry.count() == 2 and first is not None and first.tags == ("a",)
        bad = DocumentRecord(**{**make_record("d4").__dict__, "kb_name": "bad kb!"})
        with pytest.raises(ValueError):
            registry.upsert_many([make_record("d3"), bad])
        assert registry.get("d3") is None  # nothing of a refused batch is stored
        registry.upsert_many([])

    def test_complete_versions(self, registry: DocumentRegistry) -> None:
        registry.upsert_many([make_record("d1"), make_record("d2", status=DocumentStatus.PENDING),
                              make_record("d3")])
        assert registry.complete_versions(["d1", "d2", "d3", "nope", "d1"]) == {"d1": "sha256:d1",
                                                                                "d3": "sha256:d3"}
        assert registry.complete_versions([]) == {}

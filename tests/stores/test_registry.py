"""The DocumentRegistry suite on SQLite and PostgreSQL (one fresh schema per test), then what is
particular to :class:`SqlDocumentRegistry`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.schema import CreateSchema, DropSchema

from eagle_rag.stores.registry import SqlDocumentRegistry, escape_like, source_file_name
from eagle_rag.testing import DocumentRegistrySuite
from eagle_rag.testing.registry_suite import T0, make_record

pytestmark = pytest.mark.integration


class TestSqliteRegistry(DocumentRegistrySuite):
    @pytest.fixture
    def registry(self, tmp_path: Path) -> Iterator[SqlDocumentRegistry]:
        """An empty SQLite file registry in a folder that does not exist yet."""
        reg = SqlDocumentRegistry(f"sqlite:///{tmp_path / 'sub' / 'registry.db'}")
        yield reg
        reg.close()


@pytest.mark.postgres
class TestPostgresRegistry(DocumentRegistrySuite):
    @pytest.fixture
    def registry(self, postgres_url: str) -> Iterator[SqlDocumentRegistry]:
        """An empty registry in a uniquely named PostgreSQL schema, dropped afterwards."""
        schema = f"eagle_test_{uuid.uuid4().hex[:12]}"
        admin = create_engine(postgres_url)
        with admin.begin() as conn:
            conn.execute(CreateSchema(schema))
        reg = SqlDocumentRegistry(postgres_url, connect_args={"options": f"-csearch_path={schema}"})
        try:
            yield reg
        finally:
            reg.close()
            with admin.begin() as conn:
                conn.execute(DropSchema(schema, cascade=True))
            admin.dispose()


def test_sqlite_file_persists(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    first = SqlDocumentRegistry(url)
    first.upsert(make_record("d1", tags=("x",)))
    first.close()
    second = SqlDocumentRegistry(url)
    got = second.get("d1")
    assert got is not None and got.tags == ("x",) and got.created_at == T0
    second.close()


def test_sqlite_in_memory() -> None:
    reg = SqlDocumentRegistry("sqlite://")
    reg.upsert(make_record("d1"))
    assert reg.count() == 1
    reg.close()


@pytest.mark.unit
def test_helpers() -> None:
    assert escape_like("100%_a\\b") == "100\\%\\_a\\\\b"
    assert source_file_name("file:///data/My%20Doc.PDF") == "My Doc.PDF"
    assert source_file_name("s3://bucket/a/b.txt?x=1") == "b.txt"
    assert source_file_name("C:\\data\\x.pdf") == "x.pdf"
    assert source_file_name("/data/dir/") == "dir"


def test_unreachable_database_is_one_clear_error() -> None:
    from eagle_rag.errors import StoreUnavailable

    reg = SqlDocumentRegistry("postgresql+psycopg://app:secret@127.0.0.1:1/none")  # nothing listens on port 1
    with pytest.raises(StoreUnavailable) as info:
        reg.count()
    message = info.value.message
    assert "\n" not in message and "secret" not in message and "127.0.0.1" in message
    assert "unreachable" in message and "refused" in message.lower()
    reg.close()

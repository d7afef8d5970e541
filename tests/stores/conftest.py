"""Shared fixtures of the store suites: one Milvus Lite file per session, PostgreSQL per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.milvus_servers import postgres_database  # noqa: F401 - pytest finds fixtures by name

from eagle_rag.stores.milvus import MilvusVectorStore

POSTGRES_URL = os.environ.get(
    "EAGLE_RAG_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(scope="session")
def milvus_lite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One Milvus Lite file for the session (starting Milvus Lite takes a second or two)."""
    return tmp_path_factory.mktemp("milvus") / "milvus.db"


@pytest.fixture(scope="session")
def milvus_lite_store(milvus_lite_path: Path) -> Iterator[MilvusVectorStore]:
    store = MilvusVectorStore(milvus_lite_path)
    yield store
    store.close()


@pytest.fixture
def collection_name() -> str:
    """A fresh collection name per test."""
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test PostgreSQL URL; skips (with the reason) only when the server is unreachable."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(POSTGRES_URL)
    try:
        conn = psycopg.connect(
            host=url.host, port=url.port or 5432, user=url.username, password=url.password,
            dbname=url.database, connect_timeout=3,
        )
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at {url.host}:{url.port} is unreachable: {exc}")
    conn.close()
    return POSTGRES_URL

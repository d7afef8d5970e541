"""Compound structure search on replicas: with the vectors on a Milvus server (the milvus-lite gRPC
server) and a PostgreSQL registry, an engine with its own data folder finds the compounds another
engine ingested, and stops finding one that was deleted (its folder's fingerprint index is a cache of
the shared chemical collection)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from eagle_rag_biomed.chem.store import biomed_retrieve_compounds
from tests.milvus_servers import _start, milvus_lite_server

pytestmark = [pytest.mark.integration, pytest.mark.postgres]
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[str]:
    """A milvus-lite server of this test's own: the session's server stays as the store suites expect it."""
    (tmp_path / "milvus").mkdir()
    process = _start(milvus_lite_server(tmp_path / "milvus"), "the milvus-lite server")
    yield process.uri
    process.stop()


@pytest.fixture
def replica(tmp_path: Path, own_server: str, postgres_database: str) -> Callable[[str], Engine]:
    def make(name: str) -> Engine:
        return Engine(load_settings(environ={}, overrides={
            "profile": "biomed", "data_dir": str(tmp_path / name), "encoders": {"mode": "deterministic"},
            "plugins": {"options": {"biomed": {"encoder_mode": "deterministic"}}},
            "milvus": {"uri": own_server}, "registry": {"url": postgres_database},
            "lexical": {"backend": "milvus"},
            "ingest": {"sentence_collections": [], "token_vector_collections": []}}))
    return make


def test_a_replica_finds_the_compounds_another_one_ingested(replica: Callable[[str], Engine]) -> None:
    corpus = sample_dir() / "compounds"
    with replica("a") as a:
        report = a.ingest([corpus], kb_name="chem")
        assert not report.failures and report.documents == 18
        own = biomed_retrieve_compounds(a, ASPIRIN, top_k=3)
    with replica("b") as b:
        seen = biomed_retrieve_compounds(b, ASPIRIN, top_k=3)
        assert seen.total_indexed == own.total_indexed == 18  # every compound of the sample file
        assert [h.compound_id for h in seen.hits] == [h.compound_id for h in own.hits]
        assert seen.hits[0].compound_id == "cmp-aspirin" and seen.hits[0].similarity == 1.0
        key = next(r.id for r in b.registry.list(kb_name="chem") if r.id.endswith("cmp-aspirin"))
        assert b.ingestor.delete_document(b.request_context(), key)
    with replica("a") as a:  # a's folder still lists aspirin: the shared collection no longer does
        after = biomed_retrieve_compounds(a, ASPIRIN, top_k=3)
        assert after.total_indexed == 17 and "cmp-aspirin" not in [h.compound_id for h in after.hits]

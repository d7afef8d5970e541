"""Chunk-attribute filters: the source_type clause sent to Milvus is escaped (a hostile value only
ever matches itself, on a real Milvus Lite collection), date bounds are validated, and
:class:`MetadataFilter` compares dates at the coarser precision. Milvus server credentials: the token
given to ``MilvusClient`` and the one-line error of a refused login."""

from __future__ import annotations

import pytest
from pymilvus.exceptions import MilvusException
from tests.profiles import GENERAL

from eagle_rag.errors import StoreUnavailable
from eagle_rag.protocols import StoreFilter
from eagle_rag.settings import load_settings
from eagle_rag.stores.filters import InvalidFilterError, build_milvus_filter, validate_date_bound
from eagle_rag.stores.milvus import MilvusVectorStore, is_login_refused, login_refused
from eagle_rag.types import Chunk, MetadataFilter

HOSTILE = 'jsonl" or source_type != "'


@pytest.mark.unit
def test_source_types_become_an_escaped_clause() -> None:
    flt = StoreFilter(kb_names=("a",), metadata=MetadataFilter(source_types=(HOSTILE, "jsonl")))
    assert build_milvus_filter(flt) == ('kb_name in ["a"] and source_type in ["jsonl\\" or source_type != \\"",'
                                        '"jsonl"]')
    assert build_milvus_filter(StoreFilter(metadata=MetadataFilter(sections=("dosage",)))) == ""


@pytest.mark.integration
def test_a_hostile_source_type_matches_nothing_on_milvus_lite(milvus_lite_store: MilvusVectorStore,
                                                               collection_name: str) -> None:
    chunks = [Chunk(id=f"c{i}", text=f"text {i}", document_id=f"d{i}", source_type=kind)
              for i, kind in enumerate(("jsonl", "markdown"))]
    milvus_lite_store.ensure_collection(collection_name, 2)
    milvus_lite_store.upsert(collection_name, chunks, [[1.0, 0.0], [0.0, 1.0]])
    only = StoreFilter(metadata=MetadataFilter(source_types=("jsonl",)))
    hostile = StoreFilter(metadata=MetadataFilter(source_types=(HOSTILE,)))
    assert [h.id for h in milvus_lite_store.search(collection_name, [1.0, 0.0], 10, only)] == ["c0"]
    assert milvus_lite_store.search(collection_name, [1.0, 0.0], 10, hostile) == []


@pytest.mark.unit
@pytest.mark.parametrize("good", ["2019", "2019-06", "2019-06-30"])
def test_valid_date_bounds(good: str) -> None:
    assert validate_date_bound(good) == good


@pytest.mark.unit
@pytest.mark.parametrize("bad", ["19", "2019-6", "2019-13", "2019-06-32", "2019-00", "2019/06", "2019-06-01T00",
                                 '2019" or 1==1'])
def test_invalid_date_bounds(bad: str) -> None:
    with pytest.raises(InvalidFilterError):
        validate_date_bound(bad)


@pytest.mark.unit
def test_metadata_filter_rules() -> None:
    def chunk(**metadata: object) -> Chunk:
        return Chunk(id="c", text="t", document_id="d", source_type="jsonl", metadata=metadata)

    in_2019 = MetadataFilter(published_from="2019-06", published_to="2019-12-31")
    assert in_2019.matches(chunk(published="2019-07-04T10:00:00"))
    assert in_2019.matches(chunk(year=2019))  # a year-only date is within a range inside that year
    assert in_2019.failing(chunk(published="2019-05-31")) == ("published",)
    assert in_2019.failing(chunk()) == ("published",)  # undated: outside any range
    assert MetadataFilter(sections=("Dosage",)).matches(chunk(biomed_section="dosage"))
    both = MetadataFilter(source_types=("markdown",), doc_types=("trial",))
    assert both.failing(chunk(doc_type="review")) == ("source_types", "doc_types")
    assert MetadataFilter().empty and not both.empty


@pytest.mark.unit
def test_milvus_credentials_from_settings() -> None:
    def creds(**milvus: str) -> str:
        return load_settings(environ=GENERAL, overrides={"milvus": milvus}).milvus.credentials()

    assert creds() == ""
    assert creds(user="reader", password="s3cret") == "reader:s3cret"
    assert creds(token="api-key", user="reader", password="x") == "api-key"
    env = load_settings(environ={"EAGLE_RAG_MILVUS__TOKEN": "from-env"}).milvus
    assert env.credentials() == "from-env" and "from-env" not in repr(env)


@pytest.mark.unit
def test_a_refused_login_is_one_clear_line_without_the_secret() -> None:
    refused = MilvusException(code=1800, message="auth check failure, please check username and password")
    assert is_login_refused(refused)
    assert not is_login_refused(MilvusException(code=2, message="Fail connecting to server on host:19530"))
    error = login_refused("http://milvus:19530", had_token=True)
    assert isinstance(error, StoreUnavailable) and error.details["reason"] == "login_refused"
    assert "milvus.token" in error.message and "\n" not in error.message

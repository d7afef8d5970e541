"""Schema of the Milvus BM25 collections used by :mod:`eagle_rag.stores.milvus_lexical`.

A VARCHAR ``terms`` field with an analyzer feeds a server-side BM25 function that fills the
SPARSE_FLOAT_VECTOR ``sparse`` field, indexed SPARSE_INVERTED_INDEX / BM25 (k1 1.2, b 0.75); the
chunk fields of the vector store follow, for filters and exact round trips.
"""

from __future__ import annotations

from typing import Any

from pymilvus import DataType, Function, FunctionType, MilvusClient

from eagle_rag.stores import milvus_schema as ms

BM25_PARAMS = {"bm25_k1": 1.2, "bm25_b": 0.75}
ANALYZER = {"tokenizer": "standard"}
TERMS_MAX_BYTES = 65535


def create_bm25_collection(client: MilvusClient, name: str, dim: int = 0, metric: str = "COSINE") -> None:
    """Create the lexical collection ``name`` with its BM25 function and indexes, and check them.

    ``dim`` > 0 adds a dense ``vector`` field (HNSW, ``metric``): a collection for
    :func:`hybrid_search`. Raises RuntimeError when the server did not keep the BM25 parameters.
    """
    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, max_length=ms.ID_LIMITS["id"], is_primary=True)
    schema.add_field("terms", DataType.VARCHAR, max_length=TERMS_MAX_BYTES, enable_analyzer=True,
                     analyzer_params=dict(ANALYZER))
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    if dim > 0:
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("text", DataType.VARCHAR, max_length=ms.TEXT_MAX_BYTES)
    for field in ("document_id", "kb_name", "chunk_type", "source_type", "source_chunk_id"):
        schema.add_field(field, DataType.VARCHAR, max_length=ms.ID_LIMITS[field])
    schema.add_field("path", DataType.VARCHAR, max_length=ms.PATH_MAX_BYTES)
    schema.add_field("ordinal", DataType.INT64)
    schema.add_field("metadata", DataType.VARCHAR, max_length=ms.METADATA_MAX_BYTES)
    schema.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["terms"],
                                 output_field_names=["sparse"]))
    index_params = client.prepare_index_params()
    # with pymilvus 3.0.2 the parameters must be nested, or they are silently dropped (k1 1.5)
    index_params.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                           params={"params": dict(BM25_PARAMS)})
    if dim > 0:
        index_params.add_index(field_name="vector", index_type="HNSW", metric_type=ms.check_metric(metric),
                               params={"params": dict(ms.HNSW_PARAMS)})
    for field in ("document_id", "kb_name", "chunk_type"):
        index_params.add_index(field_name=field, index_type="INVERTED")
    # Strong: a search through any replica sees every write acknowledged before it (a server's default,
    # Bounded, hides writes for a few seconds; Milvus Lite is always strong)
    client.create_collection(name, schema=schema, consistency_level="Strong")
    # sync=False: the collection is empty, and waiting polls every 0.5 s per index on Lite
    client.create_index(name, index_params, sync=False)
    client.load_collection(name)
    check_bm25_index(client, name)


def check_bm25_index(client: MilvusClient, name: str) -> dict[str, Any]:
    """Return ``describe_index`` of the sparse field. Raises RuntimeError unless k1/b are ours."""
    desc = client.describe_index(name, "sparse")
    params = desc.get("params", desc)
    got = {key: float(params.get(key, desc.get(key, "nan"))) for key in BM25_PARAMS}
    if got != BM25_PARAMS or str(desc.get("metric_type", "")).upper() != "BM25":
        raise RuntimeError(f"lexical collection {name!r}: BM25 index has {got} ({desc.get('metric_type')}); "
                           f"expected {BM25_PARAMS} (BM25)")
    return dict(desc)

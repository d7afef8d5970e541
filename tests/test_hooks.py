"""Every hook of the hookspecs module, answered by a test plugin inside a real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from eagle_rag.encoders.registry import CollectionProfile
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.retrieve.fusion import inject_supplement_candidates
from eagle_rag.settings import load_settings
from eagle_rag.types import (
    Chunk,
    ChunkClassification,
    CollectionQueryPlan,
    ExpandedQuery,
    NodeWithScore,
    ParsedDocument,
    QueryRouteDecision,
    SearchRequest,
    Section,
)

pytestmark = pytest.mark.integration
NS = "testns"


class Recorder:
    """A plugin that answers every hook inside its namespace and records the calls."""

    def __init__(self) -> None:
        self.calls: dict[str, list[Any]] = {}

    def _log(self, hook: str, value: Any = None) -> None:
        self.calls.setdefault(hook, []).append(value)

    @hookimpl
    def eagle_register(self, ctx, encoders):
        encoders.register_collection(CollectionProfile("test_extra", 384, "bge-small", hybrid_enabled=True))
        self._log("eagle_register")

    @hookimpl
    def eagle_cli_register(self, cli, eval_cli):
        @cli.command("hello")
        def hello() -> None:
            print("hello from plugin")

    @hookimpl
    def eagle_api_register(self, api, engine):
        api.append("route")

    @hookimpl
    def eagle_mcp_tools(self, engine):
        return ["tool"]

    @hookimpl
    def eagle_ingest_route_selector(self, path: Path):
        return "note" if path.suffix == ".note" else None

    @hookimpl
    def eagle_parse(self, path: Path, route: str, data: bytes, kb_name: str):
        if route != "note":
            return None
        text = data.decode()
        return [ParsedDocument("note-1", "Note", str(path), (Section(("Note",), text),), kb_name=kb_name)]

    @hookimpl
    def eagle_chunk_enrich(self, ctx, document, chunks):
        self._log("eagle_chunk_enrich", document.document_id)
        return [{"enriched": True, "text": "rewritten", "id": "x"} for _ in chunks]

    @hookimpl
    def eagle_classify_chunk(self, ctx, chunk: Chunk):
        if "ROUTE-ME" in chunk.text:
            return ChunkClassification("test_extra", "bge-small", "special", rule="test")
        return None

    @hookimpl
    def eagle_classify_visual(self, ctx, chunk):
        return ChunkClassification("visual", "clip", "image")

    @hookimpl
    def eagle_embed_text(self, ctx, encoder, texts, kind):
        self._log("eagle_embed_text", (encoder, kind, len(texts)))
        return None

    @hookimpl
    def eagle_embed_visual(self, ctx, encoder, images):
        return [[1.0] for _ in images]

    @hookimpl
    def eagle_upsert_vectors(self, ctx, collection, chunks, vectors):
        self._log("eagle_upsert_vectors", collection)
        return None

    @hookimpl
    def eagle_query_assemble(self, ctx, request):
        return "kinase" if ctx.namespace == NS else None

    @hookimpl
    def eagle_classify_query(self, ctx, request, query):
        if ctx.namespace != NS:
            return None
        plan = CollectionQueryPlan("test_extra", "bge-small", 10, reason="test")
        return QueryRouteDecision(plans=(plan,), retrieval_hints={"parent_doc_retrieval": False},
                                  reason="test route", classifier="recorder")

    @hookimpl
    def eagle_query_dense_expand(self, ctx, query, plan):
        if ctx.namespace != NS:
            return None
        self._log("eagle_query_dense_expand", None if plan is None else plan.collection)
        return ExpandedQuery(dense_query=query, sparse_terms=("imatinib",))

    @hookimpl
    def eagle_rerank(self, ctx, query, plan, nodes):
        if ctx.namespace != NS:
            return None
        self._log("eagle_rerank", [n.node_id for n in nodes])
        return list(reversed(nodes))

    @hookimpl
    def eagle_retrieve_supplement(self, ctx, query, request, plans):
        if ctx.namespace != NS:
            return None
        chunk = Chunk(id="supp-1", text="supplement", document_id="note-1")
        return [NodeWithScore(chunk, 0.5, "test_extra")]

    @hookimpl
    def eagle_rrf_post_merge(self, ctx, query, merged, supplement):
        if ctx.namespace != NS:
            return None
        return inject_supplement_candidates(merged, supplement, min_new=2)

    @hookimpl
    def eagle_rerank_merged(self, ctx, query, nodes, top_k):
        if ctx.namespace == NS:
            raise RuntimeError("cross-encoder exploded")
        return None


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    (root / "a.note").write_text("ROUTE-ME imatinib kinase inhibitor note", encoding="utf-8")
    (root / "b.md").write_text("# Other\n\nWarfarin bleeding warnings.", encoding="utf-8")
    recorder = Recorder()
    settings = load_settings(environ={}, overrides={"data_dir": str(tmp_path_factory.mktemp("d")),
                                                   "plugins": {"enabled": []}})
    with Engine(settings, extra_plugins=[("recorder", recorder)]) as engine:
        report = engine.ingest([root], kb_name="k")
        assert report.failures == [] and report.documents == 2
        yield engine, recorder


def test_ingest_hooks(setup):
    engine, rec = setup
    assert rec.calls["eagle_register"] == [None]
    assert engine.encoders.collection("test_extra").dim == 384
    assert "note-1" in rec.calls["eagle_chunk_enrich"]
    assert ("bge-small", "passage", 1) in rec.calls["eagle_embed_text"]
    assert set(rec.calls["eagle_upsert_vectors"]) == {"test_extra", "eagle_text"}
    ids = engine.lexical_for("test_extra").chunk_ids_for_document("note-1")
    assert len(ids) == 1
    hits = engine.search(SearchRequest(query="imatinib", namespace=NS, top_k=5)).hits
    [hit] = [h for h in hits if h.id != "supp-1"]
    assert hit.text == "ROUTE-ME imatinib kinase inhibitor note"  # enrich cannot rewrite text
    assert hit.metadata["enriched"] is True and hit.id != "x" and hit.metadata["chunk_type"] == "special"


def test_query_hooks_and_failure_isolation(setup):
    engine, rec = setup
    response = engine.search(SearchRequest(query="imatinib", namespace=NS, top_k=5, explain=True))
    assert response.route["query"] == "imatinib kinase"
    assert response.route["plans"] == ["test_extra"]
    assert rec.calls["eagle_query_dense_expand"][-2:] == [None, "test_extra"]
    assert rec.calls["eagle_rerank"]
    # the supplement chunk was injected on top with +100
    assert response.hits[0].id == "supp-1" and response.hits[0].score == pytest.approx(100.5)
    # the failing RERANK_MERGED was logged and skipped
    failures = [d for d in engine.audit.ring.recent(200) if d.category == "hook_failure"]
    assert failures and failures[-1].plugin == "recorder" and "exploded" in failures[-1].summary


def test_default_namespace_uses_core_defaults(setup):
    engine, _ = setup
    response = engine.search(SearchRequest(query="warfarin bleeding", top_k=1))
    assert response.route["plans"] == ["eagle_text"] and response.hits[0].path == "Other"


def test_visual_and_surface_hooks(setup):
    engine, _ = setup
    pm, ctx = engine.pm, engine.request_context()
    chunk = Chunk(id="i", text="", document_id="d", chunk_type="image")
    assert pm.hook.eagle_classify_visual(ctx=ctx, chunk=chunk).collection == "visual"
    assert pm.hook.eagle_embed_visual(ctx=ctx, encoder="clip", images=[b"x"]) == [[1.0]]
    routes: list[str] = []
    pm.hook.eagle_api_register(api=routes, engine=engine)
    assert routes == ["route"]
    assert ["tool"] in pm.hook.eagle_mcp_tools(engine=engine)
    cli, eval_cli = typer.Typer(), typer.Typer()

    @cli.command("noop")
    def noop() -> None:
        """A second command so that typer keeps sub-command names."""

    pm.hook.eagle_cli_register(cli=cli, eval_cli=eval_cli)
    result = CliRunner().invoke(cli, ["hello"])
    assert result.exit_code == 0 and "hello from plugin" in result.output

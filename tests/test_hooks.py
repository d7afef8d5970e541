"""Every hook of the hookspecs module, answered by a test plugin inside a real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from eagle_rag.encoders.registry import CollectionProfile
from eagle_rag.engine import Engine
from eagle_rag.errors import PluginUnavailable
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
    document_key,
)
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
NS = "testns"


class Recorder:
    """A plugin that answers every hook inside its namespace and records the calls."""

    def __init__(self) -> None:
        self.calls: dict[str, list[Any]] = {}
        self.explode: type[Exception] | None = None  # what RERANK_MERGED raises, when set

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
    def eagle_warm_up(self, ctx):
        self._log("eagle_warm_up", ctx.namespace)
        return ["test model"] if ctx.namespace == NS else None

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
        chunk = Chunk(id="supp-1", text="supplement", document_id=document_key("k", "note-1"), kb_name="k")
        return [NodeWithScore(chunk, 0.5, "test_extra")]

    @hookimpl
    def eagle_rrf_post_merge(self, ctx, query, merged, supplement):
        if ctx.namespace != NS:
            return None
        return inject_supplement_candidates(merged, supplement, min_new=2)

    @hookimpl
    def eagle_rerank_merged(self, ctx, query, nodes, top_k):
        if ctx.namespace == NS and self.explode is not None:
            raise self.explode("cross-encoder exploded")
        return None


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    (root / "a.note").write_text("ROUTE-ME imatinib kinase inhibitor note", encoding="utf-8")
    (root / "b.md").write_text("# Other\n\nWarfarin bleeding warnings.", encoding="utf-8")
    recorder = Recorder()
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path_factory.mktemp("d")),
                                                        "plugins": {"enabled": []}})
    with Engine(settings, extra_plugins=[("recorder", recorder)]) as engine:
        report = engine.ingest([root], kb_name="k")
        assert report.failures == [] and report.documents == 2
        yield engine, recorder


def _search(engine, query="imatinib", namespace=NS, **kw):
    return engine.search(SearchRequest(query=query, namespace=namespace, top_k=5, **kw))


def test_hook_eagle_register(setup):
    engine, rec = setup
    assert rec.calls["eagle_register"] == [None]
    assert engine.encoders.collection("test_extra").dim == 384


def test_hook_eagle_cli_register(setup):
    engine, _ = setup
    cli, eval_cli = typer.Typer(), typer.Typer()

    @cli.command("noop")
    def noop() -> None:
        """A second command so that typer keeps sub-command names."""

    engine.pm.hook.eagle_cli_register(cli=cli, eval_cli=eval_cli)
    result = CliRunner().invoke(cli, ["hello"])
    assert result.exit_code == 0 and "hello from plugin" in result.output


def test_hook_eagle_api_register(setup):
    engine, _ = setup
    routes: list[str] = []
    engine.pm.hook.eagle_api_register(api=routes, engine=engine, error_responses={})
    assert routes == ["route"]


def test_hook_eagle_mcp_tools(setup):
    engine, _ = setup
    assert ["tool"] in engine.pm.hook.eagle_mcp_tools(engine=engine)


def test_hook_eagle_warm_up(setup):
    engine, rec = setup
    ctx = engine.request_context(NS)
    assert ["test model"] in engine.pm.hook.eagle_warm_up(ctx=ctx)
    report = engine.warm_up()  # the default namespace: the recorder abstains, the core loads its models
    assert rec.calls["eagle_warm_up"][-1] == "default" and "test model" not in report.loaded
    assert "cross-encoder minilm-rerank" in report.loaded and engine.encoders.is_loaded("minilm-rerank")
    assert "query encoder bge-small" in report.loaded and engine.encoders.is_loaded("bge-small")


def test_hook_eagle_ingest_route_selector(setup):
    engine, _ = setup
    pm, ctx = engine.pm, engine.request_context()
    assert pm.hook.eagle_ingest_route_selector(ctx=ctx, path=Path("x.note"), suffix=".note") == "note"
    # not the plugin's file: the next implementation (the core default) answers
    assert pm.hook.eagle_ingest_route_selector(ctx=ctx, path=Path("x.md"), suffix=".md") not in (None, "note")


def test_hook_eagle_parse(setup):
    engine, _ = setup
    record = engine.registry.get(document_key("k", "note-1"))
    assert record is not None and record.name == "Note" and record.kb_name == "k"


def test_hook_eagle_chunk_enrich(setup):
    engine, rec = setup
    assert "k/note-1" in rec.calls["eagle_chunk_enrich"]  # plugins see the storage key (kb and id)
    [hit] = [h for h in _search(engine).hits if h.id != "supp-1"]
    assert hit.metadata["enriched"] is True
    # enrich only: the plugin's "text" and "id" keys cannot rewrite the chunk
    assert hit.text == "ROUTE-ME imatinib kinase inhibitor note" and hit.id != "x"


def test_hook_eagle_classify_chunk(setup):
    engine, _ = setup
    assert len(engine.lexical_for("test_extra").chunk_ids_for_document(document_key("k", "note-1"))) == 1
    [hit] = [h for h in _search(engine).hits if h.id != "supp-1"]
    assert hit.metadata["chunk_type"] == "special"


def test_hook_eagle_classify_visual(setup):
    engine, _ = setup
    chunk = Chunk(id="i", text="", document_id="d", chunk_type="image")
    assert engine.pm.hook.eagle_classify_visual(ctx=engine.request_context(), chunk=chunk).collection == "visual"


def test_hook_eagle_embed_text(setup):
    _, rec = setup
    # the recorder saw the call and returned None, so the core default embedded the passage
    assert ("bge-small", "passage", 1) in rec.calls["eagle_embed_text"]


def test_hook_eagle_embed_visual(setup):
    engine, _ = setup
    assert engine.pm.hook.eagle_embed_visual(ctx=engine.request_context(), encoder="clip", images=[b"x"]) == [[1.0]]


def test_hook_eagle_upsert_vectors(setup):
    _, rec = setup
    assert set(rec.calls["eagle_upsert_vectors"]) == {"test_extra", "eagle_text"}


def test_hook_eagle_query_assemble(setup):
    engine, _ = setup
    assert _search(engine, explain=True).route["query"] == "imatinib kinase"
    assert _search(engine, "warfarin", namespace=None).route["query"] == "warfarin"


def test_hook_eagle_classify_query(setup):
    engine, _ = setup
    assert _search(engine, explain=True).route["plans"] == ["test_extra"]
    # outside the plugin's namespace the core default routes to the text collection
    response = engine.search(SearchRequest(query="warfarin bleeding", top_k=1))
    assert response.route["plans"] == ["eagle_text"] and response.hits[0].path == "Other"


def test_hook_eagle_query_dense_expand(setup):
    engine, rec = setup
    _search(engine)
    # once request-wide (plan None), then once per plan
    assert rec.calls["eagle_query_dense_expand"][-2:] == [None, "test_extra"]


def test_hook_eagle_rerank(setup):
    engine, rec = setup
    before = len(rec.calls.get("eagle_rerank", []))
    _search(engine)
    assert len(rec.calls["eagle_rerank"]) == before + 1


def test_hook_eagle_retrieve_supplement(setup):
    engine, _ = setup
    assert "supp-1" in [h.id for h in _search(engine).hits]


def test_hook_eagle_rrf_post_merge(setup):
    engine, _ = setup
    # the supplement chunk was injected on top: its 0.5 plus the injection offset of 100
    top = _search(engine).hits[0]
    assert top.id == "supp-1" and top.score == pytest.approx(0.5 + 100)


def test_a_plugins_hits_keep_to_the_requests_filters(setup):
    """The supplement chunk (kb k, chunk type text, no section) is injected on top of any search; a filter
    it fails keeps it out, as the stores keep their own rows out, and the answer counts it as filtered."""
    engine, _ = setup
    for filters in ({"sections": ["Dosage"]}, {"chunk_types": ["table"]}, {"source_types": ["jsonl"]}):
        response = _search(engine, **filters)
        assert "supp-1" not in [h.id for h in response.hits], filters
        assert response.dropped.get("filters", 0) >= 1, filters
    assert _search(engine, chunk_types=["text"]).hits[0].id == "supp-1"  # a filter it passes keeps it


def test_hook_eagle_rerank_merged(setup):
    engine, rec = setup
    plain = _search(engine)
    assert plain.warnings == () and not engine.audit.degraded_plugins()


@pytest.fixture
def exploding(setup, monkeypatch):
    engine, rec = setup
    monkeypatch.setattr(rec, "explode", RuntimeError)
    before = dict(engine.audit.hook_failures)
    yield engine, rec, monkeypatch
    engine.audit.hook_failures.clear()
    engine.audit.hook_failures.update(before)


def test_an_unexpected_plugin_failure_propagates_under_strict_hooks(exploding):
    engine, _, monkeypatch = exploding
    monkeypatch.setenv("EAGLE_RAG_STRICT_HOOKS", "1")
    with pytest.raises(RuntimeError, match="exploded"):
        _search(engine)


def test_an_unexpected_plugin_failure_skips_the_stage_and_says_so(exploding):
    engine, _, monkeypatch = exploding
    monkeypatch.setenv("EAGLE_RAG_STRICT_HOOKS", "0")
    response = _search(engine)
    assert response.hits  # the answer still comes, in the order before Tier-2
    assert response.warnings == ("stage rerank_merged skipped: recorder raised RuntimeError: cross-encoder exploded",)
    failures = [d for d in engine.audit.ring.recent(200) if d.category == "hook_failure"]
    assert failures[-1].plugin == "recorder" and failures[-1].data["expected"] is False
    assert engine.audit.degraded_plugins()["recorder"]["failures"] == {"eagle_rerank_merged": 1}


def test_an_expected_plugin_failure_hands_the_stage_to_the_next_plugin(exploding):
    engine, rec, monkeypatch = exploding
    monkeypatch.setattr(rec, "explode", PluginUnavailable)
    monkeypatch.setenv("EAGLE_RAG_STRICT_HOOKS", "1")  # declared failures are isolated even in strict mode
    response = _search(engine)
    assert response.hits
    assert response.warnings == ("plugin recorder left out of stage rerank_merged: cross-encoder exploded",)
    assert not engine.audit.degraded_plugins()  # expected: counted for /metrics, not a degraded plugin
    assert engine.audit.hook_failures[("recorder", "eagle_rerank_merged", True)] == 1

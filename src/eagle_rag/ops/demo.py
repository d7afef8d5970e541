"""``eagle-rag demo``: ingest the bundled sample corpus (first run) and run representative queries.

Under the biomed profile (the default) each query shows what the biomedical stages did: the route
(the query's workflow, the entities and section cues it names, the collections searched and why)
and each hit's section and document type; under ``general`` the route of the core.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.markup import escape

from eagle_rag.types import SearchRequest

DEMO_KB = "demo"


def sample_dir() -> Path:
    """The folder of the bundled sample corpus."""
    return Path(str(files("eagle_rag") / "data" / "sample"))


def demo_queries() -> list[dict[str, str]]:
    loaded = yaml.safe_load((sample_dir() / "demo_queries.yaml").read_text(encoding="utf-8"))
    return [q for q in loaded if isinstance(q, dict) and q.get("query")]


PROFILE_NOTES = {"biomed": "the biomedical pipeline: entities, sections, routing, two-tier rerank; "
                          "EAGLE_RAG_PROFILE=general for the core alone",
                 "general": "the core pipeline, for non-biomedical corpora; unset EAGLE_RAG_PROFILE for biomed"}
SECTION_KEYS = ("biomed_section", "section")
DOC_TYPE_KEYS = ("biomed_doc_type", "doc_type")


def hit_summary(hit: Any) -> str:
    """``exact; bm25 rank 3, dense rank 1; section dosage, drug_label``: how a hit matched, where each
    channel ranked it, and the section and document type the ingest gave its chunk (when it has them)."""
    bm25 = next((e.rank for e in hit.trail if e.stage == "bm25"), None)
    dense = next((e.rank for e in hit.trail if e.stage == "dense"), None)
    parts = [hit.match.value, f"bm25 rank {bm25 or '-'}, dense rank {dense or '-'}"]
    section = next((hit.metadata[k] for k in SECTION_KEYS if hit.metadata.get(k)), None)
    doc_type = next((hit.metadata[k] for k in DOC_TYPE_KEYS if hit.metadata.get(k)), None)
    if section or doc_type:
        parts.append(", ".join(x for x in (f"section {section}" if section else "", str(doc_type or "")) if x))
    return "; ".join(parts)


def show_query(engine: Any, console: Console, item: dict[str, str]) -> None:
    """Run one demo query (top 3 of kb ``demo``) and print its route and hits (see the module docstring)."""
    response = engine.search(SearchRequest(query=item["query"], top_k=3, kb_names=(DEMO_KB,), explain=True))
    console.rule(f"[bold]{escape(item['query'])}[/]  [dim]{escape(item.get('note', ''))}[/]")
    console.print(f"[dim]route[/]: {escape(str(response.route.get('reason', '')))}", soft_wrap=True)
    if not response.hits:
        console.print(f"[yellow]no results[/]: {response.empty_reason}")
    for rank, hit in enumerate(response.hits, start=1):
        where = hit.path or str(hit.metadata.get("document_name", hit.document_id))
        console.print(f"{rank}. [cyan]{escape(where)}[/]  ({hit_summary(hit)})")
        console.print(f"   {escape(' '.join(hit.text.split())[:150])}")


def run_demo(engine: Any, console: Console, ingest: Callable[[Any, list[Path], str], Any],
             queries: list[dict[str, str]] | None = None) -> Any:
    """Ingest the sample corpus into kb ``demo``, then run the demo queries (``queries``, default
    :func:`demo_queries`). Returns the ingest report; the queries run only when every file and record of
    the corpus was ingested."""
    started = time.perf_counter()
    console.print(f"[bold]profile[/]: {engine.settings.profile} ({PROFILE_NOTES.get(engine.settings.profile, '')})")
    corpus = [p for p in sorted(sample_dir().iterdir()) if p.is_dir()]
    report = ingest(engine, corpus, DEMO_KB)
    console.print(f"[bold]sample corpus[/]: {report.documents} documents indexed, "
                  f"{report.skipped_unchanged} already up to date, {len(report.failures)} failed "
                  f"({time.perf_counter() - started:.1f}s)")
    if report.any_failed:
        return report
    for item in demo_queries() if queries is None else queries:
        show_query(engine, console, item)
    console.print(f"[bold]done[/] in {time.perf_counter() - started:.1f}s")
    return report

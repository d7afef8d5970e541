"""``eagle-rag demo``: ingest the bundled sample corpus (first run) and run representative queries."""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from eagle_rag.types import SearchRequest

DEMO_KB = "demo"


def sample_dir() -> Path:
    """The folder of the bundled sample corpus."""
    return Path(str(files("eagle_rag") / "data" / "sample"))


def demo_queries() -> list[dict[str, str]]:
    loaded = yaml.safe_load((sample_dir() / "demo_queries.yaml").read_text(encoding="utf-8"))
    return [q for q in loaded if isinstance(q, dict) and q.get("query")]


def run_demo(engine: Any, console: Console, ingest: Callable[[Any, list[Path], str], Any]) -> Any:
    """Ingest the sample corpus into kb ``demo``, then run the demo queries. Returns the ingest report;
    the queries run only when every file and record of the corpus was ingested."""
    started = time.perf_counter()
    corpus = [p for p in sorted(sample_dir().iterdir()) if p.is_dir()]
    report = ingest(engine, corpus, DEMO_KB)
    console.print(f"[bold]sample corpus[/]: {report.documents} documents indexed, "
                  f"{report.skipped_unchanged} already up to date, {len(report.failures)} failed "
                  f"({time.perf_counter() - started:.1f}s)")
    if report.any_failed:
        return report
    for item in demo_queries():
        response = engine.search(SearchRequest(query=item["query"], top_k=3, kb_names=(DEMO_KB,), explain=True))
        console.rule(f"[bold]{item['query']}[/]  [dim]{item.get('note', '')}[/]")
        if not response.hits:
            console.print(f"[yellow]no results[/]: {response.empty_reason}")
        for rank, hit in enumerate(response.hits, start=1):
            bm25 = next((e.rank for e in hit.trail if e.stage == "bm25"), None)
            dense = next((e.rank for e in hit.trail if e.stage == "dense"), None)
            why = f"{hit.match.value}; bm25 rank {bm25 or '-'}, dense rank {dense or '-'}"
            where = hit.path or str(hit.metadata.get("document_name", hit.document_id))
            console.print(f"{rank}. [cyan]{where}[/]  ({why})")
            console.print(f"   {' '.join(hit.text.split())[:150]}")
    console.print(f"[bold]done[/] in {time.perf_counter() - started:.1f}s")
    return report

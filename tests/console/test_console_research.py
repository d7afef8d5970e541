"""The console as a researcher uses it (issue 34 item 10), in a real headless Chromium against a real
``eagle-rag serve`` (see conftest): the sentence that answers is highlighted and the query terms are
marked, a hit opens its document, the chunk-attribute filters, readable tables, structured health
values and a similarity cut-off for compounds. Each test saves screenshots under its tmp dir."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

try:
    from playwright.sync_api import expect
    expect.set_options(timeout=60_000)
except ImportError:  # the chromium_path fixture skips these tests (fails them in CI) and says why
    expect = None

from tests.console.conftest import Server

pytestmark = pytest.mark.integration


def search(page: Any, url: str, query: str, kb: str = "demo") -> Any:
    page.goto(url + "/")
    expect(page.locator(f"#kb option[value={kb}]")).to_have_count(1)
    page.select_option("#kb", kb)
    page.fill("#q", query)
    page.press("#q", "Enter")
    first = page.locator("li.hit").first
    first.wait_for()
    return first


def posted_search(page: Any, url: str, query: str, fields: dict[str, str]) -> dict[str, Any]:
    """Open the console, fill ``fields`` (input selector -> value) and the query, search; returns the
    body the page posted to ``/search``."""
    page.goto(url + "/")
    for selector, value in fields.items():
        page.fill(selector, value)
    page.fill("#q", query)
    with page.expect_request(lambda r: r.url.endswith("/search") and r.method == "POST") as sent:
        page.press("#q", "Enter")
    body: dict[str, Any] = json.loads(sent.value.post_data)
    return body


def test_the_best_sentence_answers_and_the_query_terms_are_marked(page: Any, server: Server, tmp_path: Path) -> None:
    imatinib = search(page, server.url, "imatinib dosage").get_attribute("data-document-id")
    # in the imatinib label, the heading line "Dosage and Administration" holds both query terms and the
    # sentence that answers one ("the usual imatinib dosage is 400 mg"): the sentence is the best one
    page.fill("#doc-ids", imatinib)
    page.fill("#q", "dosage and administration")
    page.press("#q", "Enter")
    first = page.locator("li.hit").first
    # the first query's list also starts with that heading: wait until the new answer has replaced it
    expect(first.locator("mark.term", has_text=re.compile(r"^imatinib$", re.IGNORECASE))).to_have_count(0)
    expect(page.locator("li.hit .hit-path").first).to_contain_text("Dosage and Administration")
    heading = first.locator(".hit-path").text_content().split(" > ")[-1]
    assert heading == "Dosage and Administration"
    best = first.locator("mark.best").text_content().strip()
    assert best.startswith("For adults with chronic myeloid leukemia") and "dosage" in best.lower()
    terms = first.locator("mark.term").all_text_contents()
    assert terms and {t.lower() for t in terms} <= {"dosage", "dosages", "administration", "administered"}
    assert first.locator("mark.best mark.term").count() >= 1  # terms are marked inside the best sentence too
    page.screenshot(path=str(tmp_path / "best_sentence.png"))


def test_a_hit_opens_its_document(page: Any, server: Server, tmp_path: Path) -> None:
    first = search(page, server.url, "imatinib dosage for chronic myeloid leukemia")
    document_id = first.get_attribute("data-document-id")
    title = first.locator(".hit-title a").text_content()
    assert first.locator(".hit-path a").get_attribute("href") == first.locator(".hit-title a").get_attribute("href")
    first.locator(".hit-title a").click()
    expect(page.locator("#tab-documents")).to_be_visible()
    expect(page.locator("#doc-detail h2")).to_have_text(title)
    assert document_id in page.locator("#doc-detail table").text_content()
    assert page.locator("#doc-detail").evaluate("d => d.getBoundingClientRect().top < window.innerHeight")
    assert page.url.endswith(f"#document/demo/{document_id}")
    page.screenshot(path=str(tmp_path / "document_view.png"))
    page.goto(page.url)  # the document's address opens it again
    expect(page.locator("#doc-detail h2")).to_have_text(title)


def test_source_type_document_type_section_and_date_filters(page: Any, server: Server, tmp_path: Path) -> None:
    body = posted_search(page, server.url, "osimertinib resistance", {
        "#source-types": "jsonl", "#doc-types": "abstract, trial", "#sections": "Results", "#date-from": "2019",
        "#date-to": "2023-06"})
    assert body["source_types"] == ["jsonl"] and body["doc_types"] == ["abstract", "trial"]
    assert body["sections"] == ["Results"] and body["published_from"] == "2019" and body["published_to"] == "2023-06"
    page.locator("#search-empty .empty-reason, li.hit").first.wait_for()
    params = parse_qs(urlparse(page.url).query)
    assert params["source"] == ["jsonl"] and params["type"] == ["abstract,trial"] and params["section"] == ["Results"]
    assert params["from"] == ["2019"] and params["to"] == ["2023-06"]
    page.goto(page.url)  # the filters come back from the address (once the page's script has read it)
    expect(page.locator("#date-to")).to_have_value("2023-06", timeout=30_000)
    assert page.input_value("#doc-types") == "abstract,trial" and page.input_value("#date-to") == "2023-06"
    page.fill("#doc-types", "")
    page.fill("#sections", "")
    page.fill("#date-from", "")
    page.fill("#date-to", "")
    page.press("#q", "Enter")
    page.locator("li.hit").first.wait_for()
    shown = page.locator("li.hit").evaluate_all("ls => ls.map(l => l.dataset.documentId)")
    assert shown and all(d.startswith(("abs-", "cmp-")) for d in shown)  # only the JSONL records
    page.screenshot(path=str(tmp_path / "filters.png"), full_page=True)


def test_facets_narrow_the_search_and_the_result_options_are_sent(page: Any, server: Server, tmp_path: Path) -> None:
    body = posted_search(page, server.url, "osimertinib resistance",
                         {"#recency": "365", "#max-per-doc": "1", "#diversity": "0.5"})
    assert body["recency"] == 365 and body["max_per_document"] == 1 and body["diversity"] == 0.5
    assert body["facets"] == ["source_type", "doc_type", "section", "year", "kb"]
    jsonl = page.locator('#facets [data-facet=source_type] button[data-value="jsonl"]')
    jsonl.wait_for()
    assert page.locator("#facets [data-facet=kb] button").count() >= 1
    params = parse_qs(urlparse(page.url).query)
    assert params["recency"] == ["365"] and params["per_doc"] == ["1"] and params["diversity"] == ["0.5"]
    with page.expect_request(lambda r: r.url.endswith("/search") and r.method == "POST") as narrowed:
        jsonl.click()
    assert json.loads(narrowed.value.post_data)["source_types"] == ["jsonl"]
    expect(page.locator('#facets [data-facet=source_type] button[data-value="jsonl"]')).to_have_class(
        "facet-value active")
    assert page.input_value("#source-types") == "jsonl"
    shown = page.locator("li.hit").evaluate_all("ls => ls.map(l => l.dataset.documentId)")
    assert shown and all(d.startswith(("abs-", "cmp-")) for d in shown)  # only the JSONL records
    assert len(shown) == len(set(shown))  # one chunk a document
    page.screenshot(path=str(tmp_path / "facets.png"), full_page=True)


def test_documents_table_keeps_words_whole_and_open_scrolls_to_the_detail(page: Any, server: Server,
                                                                          tmp_path: Path) -> None:
    page.set_viewport_size({"width": 760, "height": 700})
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=documents]")
    rows = page.locator("#docs-rows tr")
    rows.first.wait_for()
    lines = rows.evaluate_all("""rs => rs.flatMap(r => [2, 3, 4, 5].map(i => {
        const range = document.createRange(); range.selectNodeContents(r.cells[i]);
        return [r.cells[i].textContent, range.getClientRects().length]; }))""")
    broken = [text for text, count in lines if count != 1]
    assert not broken, f"words broken across lines: {broken[:5]}"
    page.screenshot(path=str(tmp_path / "documents_narrow.png"))
    rows.last.locator("button.open").click()
    page.locator("#doc-detail h2").wait_for()
    top = page.locator("#doc-detail").evaluate("d => d.getBoundingClientRect().top")
    assert 0 <= top < 700, top
    page.screenshot(path=str(tmp_path / "documents_open.png"))


def test_health_values_are_structured_not_raw_json(page: Any, server: Server, tmp_path: Path) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=health]")
    page.locator("#health-stores table").wait_for()
    page.locator("#health-decisions tbody tr").first.wait_for()
    cells = page.locator("#tab-health td").all_text_contents()
    raw = [c for c in cells if c.strip().startswith(("{", "[{", '["'))]
    assert not raw, f"raw JSON in the Health tab: {raw[:3]}"
    assert page.locator("#health-stores td ul.values li").count() >= 1  # a store's info as key: value lines
    page.screenshot(path=str(tmp_path / "health.png"), full_page=True)


def test_weak_compound_neighbours_are_cut_off(page: Any, biomed_server: Server, tmp_path: Path) -> None:
    with biomed_server.client() as client:
        every = client.post("/biomed/compounds", json={"query": "aspirin", "top_k": 10}).json()["hits"]
    weak = [h for h in every if h["similarity"] < 0.2]
    assert weak, "the test needs weak neighbours of aspirin among the sample compounds"
    page.goto(biomed_server.url + "/")
    page.click("#tabs button[data-tab=biomed]")
    page.fill("#compound-q", "aspirin")
    page.press("#compound-q", "Enter")
    page.locator("#compound-result tbody tr").first.wait_for()
    scores = [float(t) for t in page.locator("#compound-result td.tanimoto").all_text_contents()]
    assert scores and min(scores) >= 0.2 and len(scores) == len(every) - len(weak)
    expect(page.locator("#compound-result .summary")).to_contain_text(f"{len(weak)} more under Tanimoto 0.20")
    page.screenshot(path=str(tmp_path / "compounds.png"))


def test_dataset_advice_names_the_cards_field(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=datasets]")
    page.fill("#ds-top-k", "1")
    page.fill("#ds-q", "cancer")
    page.press("#ds-q", "Enter")
    expect(page.locator("#ds-summary")).to_contain_text("Raise Cards (at most 100) or add filters")

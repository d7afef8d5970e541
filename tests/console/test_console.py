"""The web console in a real headless Chromium against a real ``eagle-rag serve`` (see conftest)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

try:
    from playwright.sync_api import expect
    expect.set_options(timeout=60_000)  # a first call may load a model or the vocabulary (2-core machines)
except ImportError:  # the chromium_path fixture skips these tests (fails them in CI) and says why
    expect = None

from tests.console.conftest import API_KEY, Server

pytestmark = pytest.mark.integration
IMATINIB_QUERY = "imatinib dosage for chronic myeloid leukemia"


def search(page: Any, query: str) -> None:
    page.fill("#q", query)
    page.press("#q", "Enter")


def test_search_shows_dosage_section_first_with_best_sentence_and_trail(page: Any, server: Server,
                                                                        tmp_path: Path) -> None:
    page.goto(server.url + "/")
    expect(page.locator("#kb option[value=demo]")).to_have_count(1)
    page.select_option("#kb", "demo")
    search(page, IMATINIB_QUERY)
    first = page.locator("li.hit").first
    first.wait_for()
    assert first.get_attribute("data-document-id").startswith("label_imatinib-")
    assert first.locator(".hit-path").text_content() == (
        "Imatinib (Gleevec) prescribing information > Dosage and Administration")
    assert first.locator(".badge.match").text_content() in {"exact", "partial"}
    best = first.locator("mark.best")
    assert best.count() == 1
    assert best.text_content().startswith("For adults with chronic myeloid leukemia (CML) in chronic phase, "
                                          "the usual imatinib dosage is 400 mg once daily")
    stages = first.locator("svg.trail g").evaluate_all("gs => gs.map(g => g.dataset.stage)")
    assert {"bm25", "dense", "hybrid_rrf"} <= set(stages)
    widths = first.locator("svg.trail rect.trail-bar").evaluate_all(
        "rs => rs.map(r => parseFloat(r.getAttribute('width')))")
    assert len(widths) == len(stages) and max(widths) == 150.0  # rank 1 in some stage: a full bar
    params = parse_qs(urlparse(page.url).query)
    assert params["q"] == [IMATINIB_QUERY] and params["kb"] == ["demo"]
    page.screenshot(path=str(tmp_path / "console.png"))  # the first screen (docs/console.png)

    page.goto(page.url)  # the query in the URL runs on load: a search can be linked
    page.locator("li.hit").first.wait_for()
    assert page.locator("li.hit").first.get_attribute("data-document-id").startswith("label_imatinib-")
    assert page.input_value("#q") == IMATINIB_QUERY


def test_next_page_continues_the_ranking(page: Any, server: Server) -> None:
    with server.client() as client:
        ranking = client.post("/search", json={"query": IMATINIB_QUERY, "kb_names": ["demo"], "top_k": 6}).json()
    expected = [h["document_id"] for h in ranking["hits"]][3:6]
    page.goto(server.url + "/?" + "q=" + IMATINIB_QUERY.replace(" ", "+") + "&kb=demo&k=3")
    page.locator("li.hit").first.wait_for()
    page.click("#next-page")
    expect(page.locator("#page-label")).to_have_text("page 2")
    expect(page.locator("#hits li .rank").first).to_have_text("4.")
    shown = page.locator("li.hit").evaluate_all("ls => ls.map(l => l.dataset.documentId)")
    assert shown == expected
    assert "page=2" in page.url


def test_no_match_shows_the_empty_reason_and_filter_counts(page: Any, server: Server) -> None:
    page.goto(server.url + "/?q=zzqxv+flurbogast")
    page.locator("#search-empty .empty-reason").wait_for()
    assert page.locator("#search-empty .empty-reason").text_content() == (
        "No results: no indexed text matched the query")
    assert page.locator("li.hit").count() == 0

    with server.client() as client:
        complete = client.get("/documents", params={"status": "complete", "limit": 1}).json()["total"]
        answer = client.post("/search", json={"query": "imatinib", "tags": ["no-such-tag"]}).json()
    excluded = answer["excluded_by_filter"]["tags"]  # the documents the query matches, not every document
    assert 0 < excluded < complete
    page.goto(server.url + "/?q=imatinib&tags=no-such-tag")
    page.locator("#search-empty .exclusions li").wait_for()
    assert "no document carries the requested tags" in page.locator("#search-empty").text_content()
    assert page.locator("#search-empty .exclusions li").all_text_contents() == [
        f"the tags filter alone excludes {excluded} documents"]


def test_a_complete_list_says_so(page: Any, server: Server) -> None:
    page.goto(server.url + "/?q=D-001234&mode=bm25&kb=demo")
    page.locator("li.hit").first.wait_for()
    assert page.locator("li.hit").count() == 1
    assert "This is the complete list" in page.locator("#search-summary").text_content()
    assert page.locator("#next-page").is_disabled()


def test_markup_in_a_hit_stays_text(page: Any, server: Server) -> None:
    page.goto(server.url + "/?q=flurbotide+marker+note&kb=unsafe")
    page.locator("li.hit").first.wait_for()
    text = page.locator("li.hit .hit-text").first.text_content()
    assert "<script>window.__pwned = 1</script>" in text
    assert '<img src=x onerror="window.__pwned = 2">' in text
    assert page.locator("#hits script, #hits img").count() == 0
    assert page.evaluate("window.__pwned === undefined")


def test_datasets_tab_finds_bc5cdr_and_checks_ids(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=datasets]")
    page.fill("#ds-q", "BC5-CDR")
    page.press("#ds-q", "Enter")
    card = page.locator("article.card[data-card-id='bigbio/bc5cdr']")
    card.wait_for()
    assert page.locator("article.card").first.get_attribute("data-card-id") == "bigbio/bc5cdr"
    assert card.locator("h3").text_content() == "BC5CDR"
    assert card.locator(".badge.match").text_content() == "exact"
    assert "complete list" in page.locator("#ds-summary").text_content()

    page.fill("#check-ids", "bc5cdr\nno-such-dataset-xyz")
    page.click("#check-form button[type=submit]")
    page.locator("#check-result tbody tr").first.wait_for()
    rows = page.locator("#check-result tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert ["bc5cdr", "resolved", "bigbio/bc5cdr"] in rows
    assert ["no-such-dataset-xyz", "unknown", ""] in rows


def test_upload_a_markdown_file_then_find_it(page: Any, server: Server, tmp_path: Path) -> None:
    note = tmp_path / "zorblax_trial_note.md"
    note.write_text("# Zorblaxine trial\n\n## Dosing\n\nZorblaxine was given at 25 mg twice daily for "
                    "twelve weeks in the pilot cohort.\n", encoding="utf-8")
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=documents]")
    page.fill("#upload-kb", "uploads")
    page.set_input_files("#upload-files", [str(note), str(bad)])
    page.click("#upload-form button[type=submit]")
    ok = page.locator("li.upload[data-file='zorblax_trial_note.md'] .upload-status.ok")
    ok.wait_for()
    assert ok.text_content().startswith("ingested into uploads: 1 document(s)")
    failed = page.locator("li.upload[data-file='broken.json'] .upload-status.error-text")
    failed.wait_for()
    assert failed.text_content().startswith("failed:")
    assert page.locator("li.upload[data-file='zorblax_trial_note.md'] progress").evaluate("p => p.value") == 1

    page.click("#tabs button[data-tab=search]")
    page.select_option("#kb", "uploads")
    search(page, "zorblaxine dosing")
    first = page.locator("li.hit").first
    first.wait_for()
    assert first.get_attribute("data-document-id").startswith("zorblax_trial_note-")
    assert first.locator(".hit-path").text_content() == "Zorblaxine trial > Dosing"
    assert first.locator("mark.best").text_content().startswith("Zorblaxine was given")  # not the heading


def test_documents_list_open_and_delete(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=documents]")
    page.select_option("#docs-kb", "demo")
    page.fill("#docs-type", "md")
    page.click("#docs-filter button[type=submit]")
    row = page.locator("#docs-rows tr[data-document-id^='label_imatinib-']")
    # the knowledge base's unfiltered list (its jsonl documents too) may be drawn first, and it holds the imatinib
    # label as well: wait for the filtered list to replace it (a loaded machine drew the earlier one at the check)
    page.wait_for_function("""() => {
        const cells = [...document.querySelectorAll('#docs-rows tr td:nth-child(4)')];
        return cells.length > 0 && cells.every(cell => cell.textContent.trim() === 'md');
    }""")
    row.wait_for()
    assert set(page.locator("#docs-rows tr td:nth-child(4)").all_text_contents()) == {"md"}
    row.locator("button.open").click()
    detail = page.locator("#doc-detail")
    detail.locator("ol.sections li").first.wait_for()
    sections = detail.locator("ol.sections li").all_text_contents()
    assert "Imatinib (Gleevec) prescribing information > Dosage and Administration" in sections
    assert detail.locator("li.chunk").count() == 7
    assert "collection eagle_text · encoder " in detail.locator("li.chunk .muted").first.text_content()

    page.select_option("#docs-kb", "scratch")
    page.fill("#docs-type", "")
    page.click("#docs-filter button[type=submit]")
    scratch = page.locator("#docs-rows tr[data-document-id^='scratch_note-']")
    scratch.wait_for()
    doc_id = scratch.get_attribute("data-document-id")
    page.once("dialog", lambda dialog: dialog.dismiss())
    scratch.locator("button.delete").click()
    page.wait_for_timeout(300)
    assert scratch.count() == 1  # dismissed: nothing deleted
    page.once("dialog", lambda dialog: dialog.accept())
    scratch.locator("button.delete").click()
    expect(scratch).to_have_count(0)
    expect(page.locator("#docs-kb option[value=scratch]")).to_have_count(0)  # its only document is gone
    with server.client() as client:
        assert client.get(f"/documents/{doc_id}").status_code == 404


def test_health_tab_shows_stores_plugins_decisions_and_settings(page: Any, server: Server) -> None:
    page.goto(server.url + "/?q=imatinib")  # one search, so the audit ring holds decisions
    page.locator("li.hit").first.wait_for()
    page.click("#tabs button[data-tab=health]")
    page.locator("#health-stores table").wait_for()
    assert page.locator("#health-stores .state-ok").text_content() == "ok"
    stores = page.locator("#health-stores tbody tr td:first-child").all_text_contents()
    assert {"registry", "vectors", "lexical"} <= set(stores)
    page.locator("#health-plugins table").first.wait_for()
    assert "datasets" in page.locator("#health-plugins").text_content()
    assert page.locator("#health-decisions tbody tr").count() >= 1
    page.locator("#health-config tbody tr").first.wait_for()
    page.fill("#config-filter", "router.rrf_k")
    rows = page.locator("#health-config tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert rows[0][:3] == ["router.rrf_k", "60", "default"]


def test_compounds_tab_says_when_the_biomed_routes_are_not_served(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=biomed]")
    expect(page.locator("#biomed-status")).to_contain_text("does not serve the biomedical routes")
    assert not page.locator("#biomed-forms").is_visible()


def test_compounds_and_entities_tab(page: Any, biomed_server: Server) -> None:
    page.goto(biomed_server.url + "/")
    page.click("#tabs button[data-tab=biomed]")
    expect(page.locator("#biomed-forms")).to_be_visible()
    page.fill("#compound-min", "0")  # every hit, however weak (the cut-off: test_console_research.py)
    page.fill("#compound-q", "CC(=O)Oc1ccccc1C(=O)O")
    page.press("#compound-q", "Enter")
    rows = page.locator("#compound-result tbody tr")
    rows.first.wait_for()
    assert rows.first.get_attribute("data-compound-id") == "cmp-aspirin"
    assert rows.first.locator("td").nth(1).text_content() == "Aspirin"
    scores = [float(t) for t in page.locator("#compound-result td.tanimoto").all_text_contents()]
    assert scores[0] == 1.0 and scores == sorted(scores, reverse=True) and len(scores) == 10
    page.fill("#entity-q", "imatinib")
    page.press("#entity-q", "Enter")
    expect(page.locator("#entity-result h3")).to_have_text(re.compile("imatinib", re.IGNORECASE))
    table = page.locator("#entity-result table").text_content()
    assert "Gleevec" in table and "dasatinib" in table
    page.fill("#entity-q", "imatinbi")
    page.press("#entity-q", "Enter")
    expect(page.locator("#entity-result .empty")).to_contain_text(re.compile("Close names: imatinib", re.IGNORECASE))


def test_the_page_asks_for_the_api_key_and_sends_it(page: Any, keyed_server: Server) -> None:
    sent: list[str | None] = []
    page.on("request", lambda r: sent.append(r.headers.get("x-api-key")) if r.url.endswith("/search") else None)
    page.goto(keyed_server.url + "/?q=vorbexolide+tablets")
    page.locator("#key-form").wait_for(state="visible")
    page.fill("#key-input", "wrong-key")
    page.click("#key-form button[type=submit]")
    page.locator("#key-message", has_text="the key was refused").wait_for()
    assert page.locator("#key-form").is_visible()
    page.fill("#key-input", API_KEY)
    page.click("#key-form button[type=submit]")
    first = page.locator("li.hit").first
    first.wait_for()
    assert first.get_attribute("data-document-id").startswith("keyed_note-")
    assert not page.locator("#key-form").is_visible()
    assert sent[-1] == API_KEY
    page.click("#tabs button[data-tab=health]")
    page.locator("#health-config tbody tr").first.wait_for()
    page.fill("#config-filter", "api.api_key")
    row = page.locator("#health-config tbody tr").first.evaluate("r => [...r.cells].map(c => c.textContent)")
    assert row[:3] == ["api.api_key", "**********", "env:EAGLE_RAG_API__API_KEY"]
    assert API_KEY not in page.content()


XML_NAMESPACES = re.compile(r"http://www\.w3\.org/(2000/svg|1999/xhtml|1999/xlink|1998/Math/MathML|XML/1998/"
                            r"namespace|2000/xmlns/)")
ANY_URL = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'`)<>]*")
LOADING_URL = re.compile(r"(?:\bsrc\s*[:=]\s*|url\(\s*|@import\s+|fetch\(\s*|importScripts\(\s*)[\"'`]?"
                         r"((?:https?:)?//[^\s\"'`)]+)")
CDN_HOSTS = re.compile(r"cdn\.jsdelivr\.net|unpkg\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|cdnjs\."
                       r"|cdn\.redoc\.ly|validator\.swagger\.io/validator/debug")


def _visit(page: Any, url: str, ready: str) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(url)
    page.locator(ready).first.wait_for()
    page.wait_for_load_state("networkidle")
    return urls


def test_no_page_or_asset_refers_to_another_host(page: Any, server: Server) -> None:
    loaded = (_visit(page, server.url + "/?q=imatinib", "li.hit")
              + _visit(page, server.url + "/docs", ".swagger-ui .info .title")
              + _visit(page, server.url + "/redoc", "h1"))
    own = (server.url + "/", "blob:" + server.url + "/", "data:")  # ReDoc starts a worker from a blob
    other = [u for u in loaded if not u.startswith(own)]
    assert not other, f"the browser loaded from other hosts: {other}"
    paths = {urlparse(u).path for u in loaded if u.startswith(server.url + "/")}
    assets = sorted(server.url + p for p in paths if p in ("/", "/docs", "/redoc") or p.startswith("/static/"))
    assert {f"{server.url}/static/vendor/swagger-ui/swagger-ui-bundle.js",
            f"{server.url}/static/vendor/redoc/redoc.standalone.js", f"{server.url}/static/js/main.js"} <= set(assets)
    with server.client() as client:
        for asset in assets:
            response = client.get(asset)
            assert response.status_code == 200, asset
            text = XML_NAMESPACES.sub("", response.text)
            if "/static/vendor/" in asset:  # third-party bundles: links in their docs strings are not loads
                assert not LOADING_URL.findall(text), asset
                assert not CDN_HOSTS.search(text), asset
            else:  # the pages and the console's own files: no other host at all
                assert not ANY_URL.findall(text), asset

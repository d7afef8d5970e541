"""EagleClient and AsyncEagleClient against a real ``eagle-rag serve`` on 127.0.0.1 (random port)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest

from eagle_rag.client.http import AsyncEagleClient, EagleClient
from eagle_rag.errors import (
    EagleError,
    InvalidRequest,
    NotFound,
    ServerUnreachable,
    StoreUnavailable,
)
from eagle_rag.types import MatchKind, SearchHit, SearchMode, SearchRequest, SearchResponse, TotalRelation
from tests.client.helpers import Served
from tests.servers import free_port

pytestmark = pytest.mark.integration
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def client(served: Served):
    with EagleClient(served.url, retries=0) as c:
        yield c


def ids(response: SearchResponse) -> list[str]:
    return [h.id for h in response.hits]


def test_search_answers_the_engine_dataclass(client):
    response = client.search("imatinib dosage chronic myeloid leukemia", top_k=3, kb_names=["demo"])
    assert isinstance(response, SearchResponse) and response.mode is SearchMode.HYBRID
    assert len(response.hits) == 3 and all(isinstance(h, SearchHit) for h in response.hits)
    assert response.hits[0].document_id.startswith("label_imatinib")
    assert isinstance(response.hits[0].match, MatchKind) and response.total_relation in set(TotalRelation)
    same = client.search(SearchRequest(query="imatinib dosage chronic myeloid leukemia", top_k=3,
                                       kb_names=("demo",)))
    assert ids(same) == ids(response)


def test_total_counts_every_match_not_the_page(client):
    one = client.search("warfarin bleeding", top_k=1, kb_names=["demo"])
    assert len(one.hits) == 1 and one.total > 1 and one.exhaustive is False
    everything = client.search("bleeding", top_k=100, kb_names=["tagged"])
    assert everything.total_relation is TotalRelation.EQ and everything.exhaustive is True
    assert everything.total == len(everything.hits) >= 1


def test_pages_are_disjoint_and_add_up_to_one_longer_list(client):
    pages = [client.search("kinase inhibitor", top_k=3, offset=offset, kb_names=["demo"]) for offset in (0, 3, 6)]
    longer = client.search("kinase inhibitor", top_k=9, kb_names=["demo"])
    seen = [i for page in pages for i in ids(page)]
    assert len(seen) == len(set(seen)) == 9
    assert seen == ids(longer)
    assert [p.offset for p in pages] == [0, 3, 6] and {p.total for p in pages} == {longer.total}
    with pytest.raises(InvalidRequest, match="max_window"):
        client.search("kinase inhibitor", top_k=50, offset=60)


def test_batch_answers_each_search_in_order(client):
    queries = ["warfarin bleeding", "imatinib dosage", "trastuzumab cardiotoxicity"]
    batch = client.search_many([SearchRequest(query=q, top_k=2) for q in queries])
    assert [r.query for r in batch] == queries
    assert [ids(r) for r in batch] == [ids(client.search(q, top_k=2)) for q in queries]
    with pytest.raises(InvalidRequest, match="max_batch"):
        client.search_many(["x"] * 33)
    with pytest.raises(NotFound) as info:
        client.search_many([SearchRequest(query="x"), SearchRequest(query="x", kb_names=("nope",))])
    assert info.value.details["index"] == 1


def test_batch_options_apply_to_every_query(client):
    """``search_many([...], top_k=2)`` was a TypeError: the options of ``search`` apply to each query."""
    queries = ["warfarin bleeding", "imatinib dosage"]
    batch = client.search_many(queries, top_k=2, kb_names=["demo"])
    assert [ids(r) for r in batch] == [ids(client.search(q, top_k=2, kb_names=["demo"])) for q in queries]
    assert all(len(r.hits) == 2 for r in batch)
    with pytest.raises(InvalidRequest, match="not both"):
        client.search_many([SearchRequest(query="x")], top_k=2)


def test_a_bad_mode_is_worded_as_python_and_the_cli_word_it(client, served):
    """pydantic's "Input should be 'bm25', ..." over HTTP; the engine's words everywhere now."""
    from eagle_rag.service.requests import parse_mode
    from tests.client.helpers import run_cli

    with pytest.raises(InvalidRequest) as expected:
        parse_mode("nope")
    with pytest.raises(InvalidRequest) as info:
        client.search("imatinib", mode="nope")
    assert info.value.message == expected.value.message == \
        "unknown SearchMode 'nope'; valid values: bm25, dense, hybrid, full"
    with pytest.raises(InvalidRequest) as batch:
        client.search_many(["imatinib", "warfarin"], mode="nope")
    assert batch.value.message == "searches[0]: " + expected.value.message + " (and 1 more)"
    with pytest.raises(InvalidRequest) as flag:
        client.search("imatinib", explain=0)
    assert flag.value.message == "explain must be true or false, got int"
    cli = run_cli(served.data_dir, "search", "imatinib", "--mode", "nope")
    assert cli.returncode == 2 and expected.value.message in cli.stderr


def test_metadata_filters_keep_only_matching_chunks(client):
    trials = client.search("statin therapy cholesterol", top_k=10, kb_names=["dated"], doc_types=["trial"])
    assert {h.document_id for h in trials.hits} == {"d-2019-trial", "d-2023-trial"}
    recent = client.search("statin therapy cholesterol", top_k=10, kb_names=["dated"], published_from="2019-01",
                           published_to="2020")
    assert [h.document_id for h in recent.hits] == ["d-2019-trial"] and recent.dropped["filters"] == 3
    sections = client.search("statin", top_k=10, kb_names=["dated"], sections=["ABSTRACT"])
    assert [h.document_id for h in sections.hits] == ["d-2015-review"]
    jsonl = client.search("bleeding", top_k=10, source_types=["jsonl"])
    assert jsonl.hits and all(h.metadata["kb_name"] in {"tagged", "dated"} for h in jsonl.hits)


def test_recency_and_facets_come_back_through_the_client_and_the_cli(client, served):
    """Half-life 365 days: the undated note is not decayed (counted in undated), then newest first; the
    facets count the whole matching set though one hit is asked."""
    from typer.testing import CliRunner

    from eagle_rag.cli.app import app

    fresh = client.search("statin therapy cholesterol", top_k=4, kb_names=["dated"], recency=365, explain=True)
    assert [h.document_id for h in fresh.hits] == ["d-undated-note", "d-2023-trial", "d-2019-trial",
                                                   "d-2015-review"]
    assert fresh.undated == 1 and fresh.hits[0].trail[-1].skipped == "undated"
    assert fresh.hits[1].trail[-1].stage == "recency" and 0 < fresh.hits[1].trail[-1].detail["decay"] < 0.5
    one = client.search("statin therapy cholesterol", top_k=1, kb_names=["dated"], facets=("year", "doc_type"),
                        max_per_document=1, diversity=0.5)
    assert one.facets == {"year": {"2015": 1, "2019": 1, "2023": 1},
                          "doc_type": {"trial": 2, "note": 1, "review": 1}} and len(one.hits) == 1
    cli = CliRunner().invoke(app, ["search", "statin therapy cholesterol", "--kb", "dated", "--recency", "365",
                                   "--facet", "year", "--max-per-document", "1", "--diversity", "0.5", "--json",
                                   "--url", served.url])
    assert cli.exit_code == 0, cli.output
    printed = json.loads(cli.stdout)
    assert printed["facets"] == {"year": {"2015": 1, "2019": 1, "2023": 1}} and printed["undated"] == 1
    for bad, option in ((["--diversity", "1.5"], "--diversity"), (["--recency", "-7"], "--recency"),
                        (["--facet", "colour"], "--facet"), (["--max-per-document", "0"], "--max-per-document")):
        refused = CliRunner().invoke(app, ["search", "statin", "--url", served.url, *bad])
        assert refused.exit_code == 2 and option in refused.output, refused.output  # a usage error


def test_the_result_options_are_sent_only_when_set():
    """A server older than the options still answers a request that does not use them."""
    from eagle_rag.client.http import search_body

    plain = search_body(SearchRequest(query="statin"))
    assert not {"recency", "max_per_document", "diversity", "facets"} & set(plain)
    shaped = search_body(SearchRequest(query="statin", recency=30, max_per_document=2, diversity=0.0, facets="year"))
    assert (shaped["recency"], shaped["max_per_document"], shaped["diversity"], shaped["facets"]) == (30, 2, 0.0,
                                                                                                    ["year"])


def test_filter_values_are_escaped_and_an_empty_answer_counts_what_each_filter_excluded(client):
    hostile = 'jsonl" or source_type != "'
    empty = client.search("statin therapy", kb_names=["dated"], source_types=[hostile], doc_types=["trial"])
    assert empty.hits == () and empty.total == 0
    assert empty.excluded_by_filter["source_types"] == 4 and empty.excluded_by_filter["doc_types"] == 2
    # the document types the matches carry come back too, in the reason and as filter_values
    assert empty.empty_reason == ("no document within the filters matched the query; the doc_types of the "
                                  "documents it matches: note, review, trial")
    assert empty.filter_values == {"doc_types": ["note", "review", "trial"]}
    with pytest.raises(InvalidRequest, match="published_from"):
        client.search("statin", published_from="2019-13")
    with pytest.raises(InvalidRequest):
        client.search("statin", sections=["a\x00b"])


def test_errors_come_back_as_the_in_process_classes(client, served):
    before = served.request_count("/search")
    with pytest.raises(InvalidRequest) as bad:
        client.search("x", top_k=0)
    assert bad.value.code == "invalid_request" and bad.value.http_status == 400
    with pytest.raises(NotFound):
        client.search("x", kb_names=["no-such-kb"])
    with pytest.raises(NotFound):
        client.get_document("no-such-document")
    retrying = EagleClient(served.url, retries=3, backoff=0.01)
    with pytest.raises(InvalidRequest):
        retrying.search("", top_k=1)
    retrying.close()
    assert served.request_count("/search") - before == 3  # a 400 or 404 is never retried


def test_connection_errors_are_retried_then_reported(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    started = time.perf_counter()
    with EagleClient(url, retries=2, backoff=0.05) as dead, pytest.raises(ServerUnreachable, match=url):
        dead.health()
    assert time.perf_counter() - started >= 0.05 + 0.10  # two waits: backoff, then twice as long


def test_a_503_is_retried_and_a_404_is_not():
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.url.path == "/health":
            body = {"error": {"code": "store_unavailable", "message": "the registry is down", "details": {}}}
            return httpx.Response(503, json=body)
        return httpx.Response(404, json={"error": {"code": "not_found", "message": "no", "details": {}}})

    with EagleClient("http://eagle.test", retries=2, backoff=0.0, transport=httpx.MockTransport(answer)) as c:
        with pytest.raises(StoreUnavailable, match="registry is down"):
            c.health()
        with pytest.raises(NotFound):
            c.get_document("x")
    assert calls == ["/health"] * 3 + ["/documents/x"]


def busy_then_ok(retry_after: str, busy: int) -> tuple[httpx.MockTransport, list[str]]:
    """A server that answers ``/health`` with ``busy`` 429s (``Retry-After: retry_after``), then 200."""
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) <= busy:
            body = {"error": {"code": "too_many_requests", "message": "busy", "details": {}}}
            return httpx.Response(429, json=body, headers={"Retry-After": retry_after})
        return httpx.Response(200, json={"status": "ok"})

    return httpx.MockTransport(answer), calls


@pytest.mark.unit
def test_a_busy_server_is_asked_again_after_its_retry_after(monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr("eagle_rag.client.http.time.sleep", waits.append)
    transport, calls = busy_then_ok("2", busy=2)
    with EagleClient("http://eagle.test", retries=3, backoff=0.5, transport=transport) as c:
        assert c.health() == {"status": "ok"}
    # backoff 0.5 then 1.0; Retry-After 2 is longer both times
    assert calls == ["/health"] * 3 and waits == [2.0, 2.0]
    # a backoff longer than Retry-After wins: 0.5 * 2**0 = 0.5 > 0.25, then 1.0
    waits.clear()
    transport, _ = busy_then_ok("0.25", busy=2)
    with EagleClient("http://eagle.test", retries=3, backoff=0.5, transport=transport) as c:
        c.health()
    assert waits == [0.5, 1.0]
    # an absurd Retry-After is capped at max_wait; a date (not seconds) falls back to the backoff
    waits.clear()
    transport, _ = busy_then_ok("3600", busy=1)
    with EagleClient("http://eagle.test", retries=1, backoff=0.5, max_wait=5.0, transport=transport) as c:
        c.health()
    transport, _ = busy_then_ok("Wed, 21 Oct 2026 07:28:00 GMT", busy=1)
    with EagleClient("http://eagle.test", retries=1, backoff=0.5, transport=transport) as c:
        c.health()
    assert waits == [5.0, 0.5]


@pytest.mark.unit
def test_a_server_busy_past_the_retries_raises_too_many_requests(monkeypatch):
    monkeypatch.setattr("eagle_rag.client.http.time.sleep", lambda s: None)
    transport, calls = busy_then_ok("1", busy=10)
    with EagleClient("http://eagle.test", retries=2, transport=transport) as c, pytest.raises(EagleError) as err:
        c.health()
    assert err.value.code == "too_many_requests" and err.value.http_status == 429 and len(calls) == 3


@pytest.mark.unit
def test_the_async_client_waits_as_the_sync_one(monkeypatch):
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("eagle_rag.client.http.asyncio.sleep", record)

    async def main() -> dict:
        answer = busy_then_ok("2", busy=2)[0].handle_request

        async def handle(request: httpx.Request) -> httpx.Response:
            return answer(request)

        async with AsyncEagleClient("http://eagle.test", retries=3, backoff=0.5,
                                    transport=httpx.MockTransport(handle)) as c:
            return await c.health()

    assert asyncio.run(main()) == {"status": "ok"} and waits == [2.0, 2.0]


def test_unknown_error_codes_keep_their_code():
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": {"code": "invalid_query", "message": "bad", "details": {}}})

    with EagleClient("http://eagle.test", transport=httpx.MockTransport(answer)) as c, \
            pytest.raises(EagleError) as info:
        c.datasets_search("x")
    assert (info.value.code, info.value.http_status, info.value.message) == ("invalid_query", 400, "bad")


def test_ingest_get_delete_round_trip(client, tmp_path):
    note = tmp_path / "zebrafish_note.md"
    note.write_text("# Zebrafish\n\nZebrafish fin regeneration depends on blastema formation.\n")
    report = client.ingest([note], kb_name="notes")
    assert (report.files, report.documents, report.failures) == (1, 1, [])
    hit = client.search("zebrafish fin regeneration", top_k=1, kb_names=["notes"]).hits[0]
    record = client.get_document(hit.document_id)
    assert record["kb_name"] == "notes" and record["status"] == "complete" and record["chunk_count"] == 1
    assert client.get_document(hit.document_id, kb_name=hit.kb_name) == record
    assert client.delete_document(hit.document_id, kb_name="notes") == {"document_id": hit.document_id,
                                                                        "kb_name": "notes", "deleted": True}
    with pytest.raises(NotFound):
        client.get_document(hit.document_id)
    after = client.search("zebrafish fin regeneration", top_k=5)
    assert hit.document_id not in {h.document_id for h in after.hits}
    bad = tmp_path / "broken.json"
    bad.write_text("{ not json")
    failed = client.ingest([bad], kb_name="notes")  # nothing ingested: the report says why, as in-process
    assert failed.documents == 0 and failed.any_failed and failed.record_failures[0].file == "broken.json"


def test_ingest_outcomes_are_the_same_in_process_and_through_the_client(client, tmp_path):
    from eagle_rag.engine import Engine
    from eagle_rag.settings import load_settings
    from tests.client.helpers import cli_env

    missing, empty, broken = tmp_path / "nope.jsonl", tmp_path / "empty.jsonl", tmp_path / "broken.json"
    empty.write_text("")
    broken.write_text("{ not json")

    def outcome(report):
        return (report.files, report.documents, [(Path(f.path).name, f.error) for f in report.failures],
                [(Path(r.file).name, r.reason) for r in report.record_failures])

    seen = []
    with Engine(load_settings(environ=cli_env(tmp_path / "engine"))) as engine:
        for ingest in (engine.ingest, client.ingest):
            # a path that does not exist: InvalidRequest before anything is read or sent
            with pytest.raises(InvalidRequest, match="no such file or folder") as refused:
                ingest([empty, missing], kb_name="same")
            assert refused.value.details["missing"] == [str(missing)]
            # a file that could not be ingested: a failure in the report, even when nothing was ingested
            seen.append([outcome(ingest([path], kb_name="same")) for path in (empty, broken)]
                        + [outcome(ingest([missing], kb_name="same", skip_missing=True))])
    in_process, through_client = seen
    assert in_process == through_client
    assert in_process[0] == (1, 0, [("empty.jsonl", "empty.jsonl: no records")], [])
    assert in_process[1][:3] == (1, 0, []) and in_process[1][3][0][1].startswith("invalid JSON")
    assert in_process[2] == (0, 0, [("nope.jsonl", "no such file or folder")], [])
    with pytest.raises(NotFound):  # nothing reached the server's kb
        client.get_document("anything", kb_name="same")


def test_a_record_id_that_is_no_document_id_is_reported_and_found_by_get_and_delete(client, served, tmp_path):
    corpus = tmp_path / "doi.jsonl"
    corpus.write_text('{"id": "doi/10.1000/xyz", "text": "zebrafish caudal fin blastema regrowth"}\n'
                      '{"id": "plain-2", "text": "warfarin bleeding risk"}\n')
    report = client.ingest([corpus], kb_name="sl")
    assert report.documents == 2 and not report.any_failed
    [warning] = report.warnings
    assert warning.path == "doi.jsonl" and warning.error.startswith("1 record id replaced by h-<hash>")
    hit = client.search("zebrafish caudal fin blastema regrowth", top_k=1, kb_names=["sl"]).hits[0]
    assert hit.document_id.startswith("h-") and hit.metadata["record_id"] == "doi/10.1000/xyz"
    record = client.get_document("doi/10.1000/xyz", kb_name="sl")  # sent as doi%2F10.1000%2Fxyz
    assert record["id"] == hit.document_id and record["kb_name"] == "sl"
    assert client.get_document("doi/10.1000/xyz") == record  # the alias without the kb
    chunks = httpx.get(f"{served.url}/kbs/sl/documents/{hit.document_id}/chunks", timeout=30).json()
    assert chunks["document"]["id"] == hit.document_id  # the chunks route still answers
    assert client.delete_document("doi/10.1000/xyz", kb_name="sl") == {"document_id": hit.document_id,
                                                                        "kb_name": "sl", "deleted": True}
    with pytest.raises(NotFound, match="doi/10.1000/xyz"):
        client.get_document("doi/10.1000/xyz", kb_name="sl")


def test_datasets_and_health(client):
    found = client.datasets_search("BC5CDR", top_k=3)
    assert found["hits"] and "exhaustive" in found
    health = client.health()
    assert health["status"] == "ok" and health["stores"]["registry"]["state"] == "ok"
    kbs = {kb["name"]: kb for kb in client.kbs()}
    assert kbs and all(kb["documents"] >= kb["complete"] >= 1 for kb in kbs.values())


def test_async_client_matches_the_sync_one(client, served):
    async def run() -> tuple[SearchResponse, list[SearchResponse], dict[str, object]]:
        async with AsyncEagleClient(served.url) as aclient:
            one = await aclient.search("warfarin bleeding", top_k=2, offset=1)
            many = await aclient.search_many(["warfarin bleeding", "imatinib dosage"])
            with pytest.raises(NotFound):
                await aclient.get_document("no-such-document")
            return one, many, await aclient.health()

    one, many, health = asyncio.run(run())
    assert ids(one) == ids(client.search("warfarin bleeding", top_k=2, offset=1)) and one.offset == 1
    assert [ids(r) for r in many] == [ids(client.search(q)) for q in ("warfarin bleeding", "imatinib dosage")]
    assert health["status"] == "ok"


def test_the_readme_client_example_runs(served, capsys):
    text = README.read_text()
    block = text.split("```python\nfrom eagle_rag.client import EagleClient", 1)[1].split("```", 1)[0]
    code = "from eagle_rag.client import EagleClient" + block
    assert len([line for line in code.splitlines() if line.strip()]) <= 6
    exec(compile(code.replace("http://127.0.0.1:8000", served.url), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and printed[0].split()[1].startswith("label_imatinib")


@pytest.mark.unit
def test_uploads_keep_their_names_and_only_files_that_share_one_send_their_paths(tmp_path):
    from eagle_rag.client.http import upload_batches

    for rel in ("a.md", "sub/x.md", "d1/note.md", "d2/note.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f"# {rel}\n\ntext\n")
    batches, failures = upload_batches([tmp_path, tmp_path / "a.md"])  # a.md met twice: sent once
    names = sorted(name for batch in batches for name, _ in batch)
    # a nested file keeps its own name, so the ids of documents uploaded before do not change
    assert names == ["a.md", "d1/note.md", "d2/note.md", "x.md"] and failures == []

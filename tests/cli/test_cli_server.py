"""The command line while ``eagle-rag serve`` owns the data folder: every command goes through the
server, prints no traceback, and a command that needs the folder to itself refuses in one line.

One server for the module, on a populated folder; the in-process engine of the parity test opens a
copy of that folder made before the server started (same settings, same content).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from eagle_rag.client.http import EagleClient
from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchRequest
from tests.client.helpers import Served, cli_env, populate, run_cli, server_json, start_server, stop

pytestmark = [pytest.mark.integration]
QUERY = "tyrosine kinase inhibitor resistance"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("cli")
    data = populate(base / "data")
    return data, Path(shutil.copytree(data, base / "copy"))


@pytest.fixture(scope="module")
def served(folders: tuple[Path, Path]) -> Iterator[Served]:
    server = start_server(folders[0])
    yield server
    stop(server)


def clean(result) -> str:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    return output


def test_engine_client_and_cli_give_the_same_hits_in_the_same_order(served, folders):
    request = SearchRequest(query=QUERY, top_k=8, kb_names=("demo",))
    with Engine(load_settings(environ=cli_env(folders[1]))) as engine:
        local = [h.id for h in engine.search(request).hits]
    with EagleClient(served.url) as client:
        remote = [h.id for h in client.search(request).hits]
    result = run_cli(served.data_dir, "search", QUERY, "--k", "8", "--kb", "demo", "--json")
    clean(result)
    printed = [h["id"] for h in json.loads(result.stdout)["hits"]]
    assert len(local) == 8 and local == remote == printed


def test_search_goes_through_the_server_and_says_how_many(served):
    before = served.request_count("/search")
    result = run_cli(served.data_dir, "search", "warfarin bleeding", "--k", "2", "--kb", "demo")
    output = clean(result)
    assert result.returncode == 0 and "label_warfarin" in output
    assert "hits 1-2 of " in output and "exhaustive: false" in output
    assert served.request_count("/search") == before + 1
    page = run_cli(served.data_dir, "search", "warfarin bleeding", "--k", "2", "--offset", "2", "--kb", "demo")
    assert "3. " in clean(page) and "hits 3-4 of " in page.stdout


def test_ingest_through_the_server_then_searchable(served, tmp_path):
    note = tmp_path / "axolotl.md"
    note.write_text("# Axolotl\n\nAxolotl limb regeneration after amputation.\n")
    result = run_cli(served.data_dir, "ingest", str(note), "--kb", "notes")
    assert result.returncode == 0 and "ingested 1 documents" in clean(result)
    found = run_cli(served.data_dir, "search", "axolotl limb regeneration", "--kb", "notes", "--json")
    hits = json.loads(found.stdout)["hits"]
    assert hits and hits[0]["text"].startswith("Axolotl")
    deleted = run_cli(served.data_dir, "delete", hits[0]["document_id"], "no-such-document")
    assert deleted.returncode == 1 and f"deleted {hits[0]['document_id']}" in clean(deleted)
    assert "not found: no-such-document" in deleted.stderr


def test_ingest_through_the_server_keeps_two_files_of_one_name(served, tmp_path):
    for folder, word in (("d1", "numbat"), ("d2", "quokka")):
        (tmp_path / "dd" / folder).mkdir(parents=True)
        (tmp_path / "dd" / folder / "note.md").write_text(f"# Note\n\nA {word} note.\n")
    result = run_cli(served.data_dir, "ingest", str(tmp_path / "dd"), "--kb", "dup")
    assert result.returncode == 0 and "ingested 2 documents" in clean(result)
    listed = httpx.get(f"{served.url}/documents", params={"kb_name": "dup"}, timeout=30).json()
    assert listed["total"] == 2 and len({d["id"] for d in listed["documents"]}) == 2
    files = [str(tmp_path / "dd" / folder / "note.md") for folder in ("d1", "d2")]
    again = run_cli(served.data_dir, "ingest", *files, "--kb", "dup")  # sent under the same names
    assert again.returncode == 0 and "ingested 0 documents" in clean(again) and "2 unchanged" in again.stdout


def test_ingest_through_the_server_skips_a_named_pipe(served, tmp_path):
    folder = tmp_path / "l3"
    folder.mkdir()
    (folder / "a.txt").write_text("numbat\n")
    os.mkfifo(folder / "fifo.txt")
    result = run_cli(served.data_dir, "ingest", str(folder), "--kb", "pipes", timeout=60)
    assert result.returncode == 1 and "ingested 1 documents" in clean(result)
    assert "fifo.txt: not a regular file" in result.stderr
    alone = run_cli(served.data_dir, "ingest", str(folder / "fifo.txt"), "--kb", "pipes", timeout=60)
    assert alone.returncode == 1 and "fifo.txt: not a regular file" in clean(alone)


def test_delete_takes_the_kb_of_an_id_that_two_kbs_hold(served, tmp_path):
    note = tmp_path / "records.jsonl"
    note.write_text(json.dumps({"id": "shared-7", "title": "Planarian", "text": "Planarian neoblasts."}) + "\n")
    for kb in ("left", "right"):
        assert run_cli(served.data_dir, "ingest", str(note), "--kb", kb).returncode == 0
    ambiguous = run_cli(served.data_dir, "delete", "shared-7")
    assert ambiguous.returncode == 1 and "ambiguous" in clean(ambiguous)
    assert "several kbs (left, right): pass --kb <name>" in ambiguous.stderr  # the CLI names them (GET /kbs)
    deleted = run_cli(served.data_dir, "delete", "shared-7", "--kb", "left")
    assert deleted.returncode == 0 and "deleted shared-7" in clean(deleted)
    with EagleClient(served.url) as client:
        assert client.get_document("shared-7")["kb_name"] == "right"  # the other kb's copy stays


def test_doctor_checks_through_the_server_and_repair_refuses_in_one_line(served):
    result = run_cli(served.data_dir, "doctor")
    assert result.returncode == 0 and "consistent" in clean(result)
    files = {p: p.stat().st_mtime_ns for p in served.data_dir.rglob("*") if p.is_file()}
    pid = server_json(served.data_dir)["pid"]
    refused = run_cli(served.data_dir, "doctor", "--repair")
    assert refused.returncode == 2 and refused.stdout == ""
    line = clean(refused).strip()
    assert "\n" not in line and f"PID {pid}" in line and served.url in line and "stop that server" in line
    assert {p: p.stat().st_mtime_ns for p in files} == files  # nothing written
    local = run_cli(served.data_dir, "search", "x", "--local")
    assert local.returncode == 2 and f"PID {pid}" in clean(local)


def test_snapshot_create_and_list_go_through_the_server(served):
    """The server takes the snapshot (under its ingest lock); the CLI only asks and prints."""
    made = run_cli(served.data_dir, "snapshot", "create", "through-server", "--json")
    assert made.returncode == 0, clean(made)
    manifest = json.loads(made.stdout)
    assert manifest["name"] == "through-server" and manifest["documents"]["complete"] > 0
    snapshot_dir = served.data_dir.with_name(f"{served.data_dir.name}-snapshots")
    assert (snapshot_dir / "through-server" / "manifest.json").is_file()


def test_datasets_commands_go_through_the_server(served):
    before = served.request_count("/datasets/search")
    result = run_cli(served.data_dir, "datasets", "search", "BC5-CDR", "--k", "3")
    assert result.returncode == 0 and "bigbio/bc5cdr" in clean(result).lower()
    assert served.request_count("/datasets/search") == before + 1
    checked = run_cli(served.data_dir, "datasets", "check", "bigbio/bc5cdr", "no-such-card", "--json")
    answer = json.loads(clean(checked))
    assert answer["known"] == ["bigbio/bc5cdr"] and answer["unknown"] == ["no-such-card"]
    assert served.request_count("/datasets/check") == 1
    local = run_cli(served.data_dir, "datasets", "search", "BC5-CDR", "--local", "--k", "1")
    assert local.returncode == 0 and served.request_count("/datasets/search") == before + 1


async def _mcp_search(served: Served) -> dict[str, object]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "eagle_rag.cli.app", "mcp"],
                                   env=cli_env(served.data_dir), cwd=str(served.data_dir))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("core_search", {"query": "warfarin bleeding", "kb_name": "demo",
                                                         "top_k": 2})
        assert result.is_error is False
        return dict(result.structured_content or {})


@pytest.mark.anyio
async def test_mcp_tools_answer_through_the_server(served):
    before = served.request_count(None)
    body = await _mcp_search(served)
    hits = body["hits"]
    assert isinstance(hits, list) and len(hits) == 2 and hits[0]["document_id"].startswith("label_warfarin")
    assert served.request_count(None) > before  # answered by the server, not by opening the folder


def test_a_killed_server_leaves_a_stale_file_that_the_next_command_ignores(served):
    pid = server_json(served.data_dir)["pid"]
    stop(served, signal.SIGKILL)
    assert server_json(served.data_dir)["pid"] == pid  # left behind by SIGKILL
    result = run_cli(served.data_dir, "search", "warfarin bleeding", "--k", "1", "--kb", "demo")
    assert result.returncode == 0 and "label_warfarin" in clean(result)
    again = start_server(served.data_dir)
    try:
        assert server_json(served.data_dir)["pid"] == again.process.pid != pid
    finally:
        stop(again)  # SIGTERM: uvicorn shuts down gracefully, then ends by the signal
    assert server_json(served.data_dir) is None  # removed on a clean exit


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

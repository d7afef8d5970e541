"""The console's upload list shows, per file, the records ingested / unchanged / bad and the first
reasons, from the /ingest answer (``files_detail``, ``record_failures``), as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.console.conftest import Server

pytestmark = pytest.mark.integration
HOSTILE_ID = "<img src=x onerror=\"window.__pwned = 3\">"


def test_upload_shows_record_counts_and_reasons_per_file(page: Any, server: Server, tmp_path: Path) -> None:
    notes = tmp_path / "quorvane_notes.jsonl"
    rows = [json.dumps({"id": f"quorvane-{i}", "title": f"Quorvane note {i}", "text": "Quorvane dosing note."})
            for i in range(1, 4)]
    rows.insert(1, '{"id": "cut", "title": "no closing brace"')
    rows.append(json.dumps({"id": HOSTILE_ID, "title": "", "text": ""}))
    notes.write_text("\n".join(rows) + "\n", encoding="utf-8")
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=documents]")
    page.fill("#upload-kb", "records")
    page.set_input_files("#upload-files", [str(notes)])
    page.click("#upload-form button[type=submit]")
    item = page.locator("li.upload[data-file='quorvane_notes.jsonl']")
    item.locator(".record-report").wait_for()
    assert item.locator(".upload-status.ok").text_content() == \
        "ingested into records: 3 document(s), 3 chunks, 2 bad record(s)"
    assert item.locator(".file-counts").text_content() == \
        "quorvane_notes.jsonl: 5 record(s), 3 ingested, 0 unchanged, 2 bad"
    reasons = item.locator(".record-failures li").all_text_contents()
    assert len(reasons) == 2
    assert reasons[0].startswith("line 2: invalid JSON (")
    assert reasons[1] == f"line 5 (id {HOSTILE_ID}): record has neither 'title' nor 'text'"
    assert item.locator(".record-failures img").count() == 0
    assert page.evaluate("() => window.__pwned") is None

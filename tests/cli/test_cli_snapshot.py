"""``eagle-rag snapshot create|list|restore|delete`` on a data folder, and restore's refusal while a server
owns the folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag.cli.app import main
from eagle_rag.client.server_file import write_server_file
from eagle_rag.engine import Engine
from tests.api.helpers import make_settings

pytestmark = pytest.mark.integration


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_create_list_restore_delete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    for key, value in {"EAGLE_RAG_DATA_DIR": str(data), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                       "EAGLE_RAG_PLUGINS__ENABLED": "[]", "EAGLE_RAG_URL": ""}.items():
        monkeypatch.setenv(key, value)
    source = tmp_path / "a.jsonl"
    source.write_text(json.dumps({"id": "a-1", "text": "Imatinib inhibits BCR-ABL."}))
    with Engine(make_settings(data)) as engine:
        engine.ingest([source], kb_name="kb")
    code, out, _ = run(["snapshot", "create", "first", "--json"], capsys)
    assert code == 0 and json.loads(out)["documents"] == {"complete": 1}
    with Engine(make_settings(data)) as engine:
        engine.ingest([tmp_path / "a.jsonl"], kb_name="other")
    code, out, _ = run(["snapshot", "list", "--json"], capsys)
    assert code == 0 and [s["name"] for s in json.loads(out)] == ["first"]
    code, out, _ = run(["snapshot", "restore", "first"], capsys)
    assert code == 0 and "restored snapshot first" in out and "consistent" in out
    with Engine(make_settings(data)) as engine:
        assert [r.kb_name for r in engine.registry.list()] == ["kb"]
    write_server_file(data, "http://127.0.0.1:9")  # this process, alive: a server owns the folder
    code, _, err = run(["snapshot", "restore", "first"], capsys)
    assert code == 2 and "snapshot restore needs the data folder" in err and "stop that server" in err
    assert len(err.strip().splitlines()) == 1
    (data / "server.json").unlink()
    code, out, _ = run(["snapshot", "delete", "first"], capsys)
    assert code == 0 and not (tmp_path / "data-snapshots" / "first").exists()
    code, _, err = run(["snapshot", "create", "bad/name"], capsys)
    assert code == 2 and "invalid snapshot name" in err

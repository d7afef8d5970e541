"""The CLI calls one :class:`~eagle_rag.service.backend.Backend` and never asks whether it runs locally or
through a server (read with ``ast``), and both Backends answer a command with the same shapes."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.client.http import EagleClient
from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest
from eagle_rag.ingest.executors import Executor
from eagle_rag.service.backend import Backend
from eagle_rag.service.local_backend import LocalBackend
from eagle_rag.service.remote_backend import RemoteBackend
from tests.api.helpers import make_settings

CLI = Path(__file__).resolve().parents[2] / "src" / "eagle_rag" / "cli"
MAY_OPEN_AN_ENGINE = {"demo", "eval_beir", "calibrate", "serve"}
"""Commands that only ever run on the folder itself (each checks it with ``require_local``)."""
FORBIDDEN_CALLS = {"Engine", "EagleClient"}


def branching(source: str) -> list[str]:
    """``function: what`` for each reference to ``target.remote``, ``target.url`` or ``open_remote``, and
    each construction of an Engine or an EagleClient outside :data:`MAY_OPEN_AN_ENGINE`."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if (isinstance(node, ast.Attribute) and node.attr in {"remote", "url"}
                    and isinstance(node.value, ast.Name) and node.value.id == "target"):
                found.append(f"{function.name}: target.{node.attr}")
            elif isinstance(node, ast.Name) and node.id == "open_remote":
                found.append(f"{function.name}: open_remote")
            elif isinstance(node, ast.alias) and node.name == "open_remote":
                found.append(f"{function.name}: imports open_remote")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
                  and function.name not in MAY_OPEN_AN_ENGINE):
                found.append(f"{function.name}: {node.func.id}(...)")
    return found


@pytest.mark.unit
def test_no_cli_function_branches_on_local_or_remote() -> None:
    found = {path.name: branching(path.read_text(encoding="utf-8")) for path in sorted(CLI.glob("*.py"))}
    assert {name: hits for name, hits in found.items() if hits} == {}
    assert set(found) >= {"app.py", "doctor.py", "snapshot.py", "reindex.py"}


@pytest.mark.unit
def test_the_check_finds_each_kind_of_branch() -> None:
    source = ("def doctor(target):\n    if target.url is not None:\n        with open_remote(target) as c: pass\n"
              "    with Engine(settings) as engine: pass\n"
              "def delete(target):\n    return target.remote or EagleClient('http://x')\n"
              "def demo():\n    return Engine(settings)\n")
    assert sorted(branching(source)) == ["delete: EagleClient(...)", "delete: target.remote", "doctor: Engine(...)",
                                         "doctor: open_remote", "doctor: target.url"]


def _through(client: TestClient) -> httpx.MockTransport:
    """A transport that hands each request to the in-process app behind ``client``."""
    def answer(request: httpx.Request) -> httpx.Response:
        sent = {k: v for k, v in request.headers.items() if k.lower() not in {"content-length", "host"}}
        got = client.request(request.method, request.url.path, params=request.url.params, content=request.content,
                             headers=sent)
        headers = {k: v for k, v in got.headers.items() if k.lower() not in {"content-encoding", "content-length"}}
        return httpx.Response(got.status_code, headers=headers, content=got.content)

    return httpx.MockTransport(answer)


@pytest.fixture
def backends(tmp_path: Path) -> Iterator[tuple[Backend, Backend]]:
    source = tmp_path / "a.jsonl"
    source.write_text("\n".join(json.dumps({"id": f"a-{i}", "text": f"Imatinib inhibits BCR-ABL, note {i}."})
                                for i in range(3)))
    with Engine(make_settings(tmp_path / "data")) as engine:
        assert not engine.ingest([source], kb_name="kb").failures
        with TestClient(create_app(engine)) as app, \
                EagleClient("http://localhost", retries=0, transport=_through(app)) as client:
            yield LocalBackend(engine.settings, engine), RemoteBackend(client, engine.settings.profile)


@pytest.mark.integration
def test_doctor_snapshots_and_documents_have_one_shape_through_both_backends(
        backends: tuple[Backend, Backend]) -> None:
    local, remote = backends
    assert isinstance(local, Backend) and isinstance(remote, Backend)
    assert local.doctor().to_dict() == remote.doctor().to_dict()
    assert local.doctor().ok and local.doctor().documents == {"complete": 3}
    made = local.create_snapshot("first")
    assert remote.snapshots() == local.snapshots() and [s["name"] for s in local.snapshots()] == ["first"]
    assert set(remote.create_snapshot("second")) == set(made)
    assert local.kb_names() == remote.kb_names() == ["kb"]
    assert local.get_document("a-1", "kb") == remote.get_document("a-1", "kb")
    assert remote.delete_snapshot("second") == local.delete_snapshot("first") | {"name": "second"}
    assert local.snapshots() == remote.snapshots() == []


@pytest.mark.integration
def test_the_remote_backend_refuses_what_needs_the_folder(backends: tuple[Backend, Backend]) -> None:
    _, remote = backends
    with pytest.raises(InvalidRequest, match="--executor ray writes the data folder itself, but the server at "
                                             "http://localhost owns it"):
        remote.ingest([Path("a.jsonl")], "kb", executor=Executor.RAY)
    with pytest.raises(InvalidRequest, match="doctor --repair works on the data folder itself"):
        remote.doctor(repair=True)

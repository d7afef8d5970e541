"""Item 6: overload and slow clients, against a real ``eagle-rag serve`` with the bundled models: ``mode=full``
searches beyond ``api.max_concurrent_rerank`` + ``api.rerank_queue`` are answered at once with 429 and
``Retry-After``, and a client that stops sending its body gets a 408 within ``api.body_timeout_s``."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration
PARAGRAPHS = 30
TEXT = "# Anticoagulants\n\n" + "\n\n".join(
    f"## Part {i}\n\n" + f"Warfarin bleeding risk with aspirin, part {i}: monitor the INR and adjust the dose. " * 12
    for i in range(PARAGRAPHS))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("overload") / "data"
    settings = {"EAGLE_RAG_ENCODERS__MODE": "require_native", "EAGLE_RAG_API__MAX_CONCURRENT_RERANK": "1",
                "EAGLE_RAG_API__RERANK_QUEUE": "1", "EAGLE_RAG_API__RETRY_AFTER_S": "3",
                "EAGLE_RAG_API__BODY_TIMEOUT_S": "1"}
    with serve(data, settings) as running:
        with running.client() as client:
            assert upload(client, "demo", "anticoagulants.md", TEXT).json()["chunks"] >= PARAGRAPHS
            warm = client.post("/search", json={"query": "warfarin bleeding", "mode": "full"})
            assert warm.status_code == 200, warm.text
        yield running


def test_full_searches_beyond_the_queue_get_429(server: Server) -> None:
    def one(_: int) -> httpx.Response:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            return client.post("/search", json={"query": "warfarin bleeding aspirin INR", "mode": "full",
                                                "top_k": 10})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(one, range(8)))
    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) == {200, 429} and statuses.count(200) >= 2, statuses  # one running, one queued at least
    refused = next(a for a in answers if a.status_code == 429)
    error = error_of(refused, 429, "too_many_requests")
    assert refused.headers["Retry-After"] == "3" and error["details"]["retry_after_s"] == 3  # type: ignore[index]
    with server.client() as client:  # other modes are not bounded, and the gate is free again
        assert client.post("/search", json={"query": "warfarin", "mode": "hybrid"}).status_code == 200
        assert client.post("/search", json={"query": "warfarin", "mode": "full"}).status_code == 200


def test_a_body_that_stops_arriving_gets_408(server: Server) -> None:
    head = (f"POST /search HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        started = time.monotonic()
        sock.sendall(head + b'{"query": "w')  # 13 of the 100 bytes
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"code":"request_timeout"' in answer
    assert 0.9 <= waited < 5, waited

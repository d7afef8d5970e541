"""Item 2: a web page may not write into a local server (cross-site POST/DELETE, DNS rebinding), against a
real ``eagle-rag serve``. Programs that send no ``Origin`` and callers with the API key are not affected
(the key case is in ``test_exposure.py``, whose server has a key)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration
NOTE = "# Warfarin note\n\nWarfarin bleeding risk rises with aspirin.\n"
EVIL = "https://evil.example"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("cross-site") / "data"
    with serve(data, {"EAGLE_RAG_API__ALLOWED_ORIGINS": "https://app.example"}) as running:
        with running.client() as client:
            assert upload(client, "demo", "warfarin.md", NOTE).status_code == 200
        yield running


def _document_id(server: Server) -> str:
    with server.client() as client:
        hits = client.post("/search", json={"query": "warfarin", "kb_names": ["demo"]}).json()["hits"]
    return str(hits[0]["document_id"])


def test_a_form_post_from_another_site_writes_nothing(server: Server) -> None:
    with server.client() as client:
        refused = upload(client, "evil", "hijack.md", "# Hijacked\n\nhijacked text", Origin=EVIL)
        error = error_of(refused, 403, "cross_site_refused")
        assert error["details"] == {"origin": EVIL}
        assert "evil" not in client.get("/kbs").text
    assert not (server.data_dir / "uploads" / "evil").exists()


def test_a_delete_from_another_site_deletes_nothing(server: Server) -> None:
    doc = _document_id(server)
    with server.client() as client:
        error_of(client.delete(f"/documents/{doc}", headers={"Origin": EVIL}), 403, "cross_site_refused")
        error_of(client.delete(f"/documents/{doc}", headers={"Origin": "null"}), 403, "cross_site_refused")
        assert client.get(f"/documents/{doc}").status_code == 200


def test_dns_rebinding_is_refused(server: Server) -> None:
    """The attacker's name points at 127.0.0.1: Origin and Host agree, but the host is not this server's."""
    rebound = f"evil.example:{server.port}"
    with server.client() as client:
        refused = upload(client, "evil", "rebound.md", "# Rebound\n\ntext", Origin=f"http://{rebound}", Host=rebound)
        error_of(refused, 403, "host_refused")
        error_of(client.post("/search", json={"query": "warfarin"},
                             headers={"Origin": f"http://{rebound}", "Host": rebound}), 403, "host_refused")


@pytest.mark.parametrize("path", ["/config", "/documents", "/kbs", "/health/plugins", "/metrics", "/health"])
def test_a_rebound_host_reads_nothing(server: Server, path: str) -> None:
    """Without an API key the Host check guards reads too: a rebinding page that names its own host gets
    403 on every route (before: GET /config answered 200 with the data folder); the server's own names pass."""
    with server.client() as client:
        refused = client.get(path, headers={"Host": f"evil.example:{server.port}"})
        error = error_of(refused, 403, "host_refused")
        assert error["details"] == {"host": f"evil.example:{server.port}"}
        assert str(server.data_dir) not in refused.text
        assert client.get(path, headers={"Host": f"localhost:{server.port}"}).status_code == 200


def test_the_servers_own_pages_and_allowed_origins_may_write(server: Server) -> None:
    with server.client() as client:
        own = upload(client, "console", "own.md", "# Own\n\nfrom the console page",
                     Origin=f"http://127.0.0.1:{server.port}")
        assert own.status_code == 200, own.text
        localhost = client.post("/search", json={"query": "warfarin"},
                                headers={"Origin": f"http://localhost:{server.port}",
                                         "Host": f"localhost:{server.port}"})
        assert localhost.status_code == 200, localhost.text
        listed = upload(client, "partner", "partner.md", "# Partner\n\nfrom an allowed origin",
                        Origin="https://app.example")
        assert listed.status_code == 200, listed.text
        other_port = client.post("/search", json={"query": "warfarin"},
                                 headers={"Origin": f"http://127.0.0.1:{server.port + 1}"})
        error_of(other_port, 403, "cross_site_refused")


def test_programs_without_origin_and_reads_are_not_affected(server: Server) -> None:
    with server.client() as client:
        assert upload(client, "cli", "cli.md", "# From curl\n\nno origin header").status_code == 200
        assert client.get("/health", headers={"Origin": EVIL}).status_code == 200

"""The biomed plugin's HTTP routes: ``POST /biomed/compounds`` and ``GET /biomed/entities/{name}``."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from tests.api.helpers import assert_error_shape
from tests.biomed.helpers import biomed_settings

pytestmark = pytest.mark.integration
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    pytest.importorskip("rdkit")
    settings = biomed_settings(tmp_path_factory.mktemp("biomed-api"))
    with Engine(settings) as engine:
        report = engine.ingest([sample_dir() / "compounds"], kb_name="chem")
        assert report.documents == 18 and not report.failures
        with TestClient(create_app(engine), raise_server_exceptions=False) as c:
            yield c


def test_compounds_by_smiles_are_ranked_by_tanimoto(client):
    reply = client.post("/biomed/compounds", json={"query": ASPIRIN, "top_k": 3}).json()
    assert reply["resolved_by"] == "smiles" and reply["total_indexed"] == 18
    hits = reply["hits"]
    assert [h["rank"] for h in hits] == [1, 2, 3]
    assert hits[0]["compound_id"] == "cmp-aspirin" and hits[0]["similarity"] == 1.0
    assert hits[0]["name"] == "Aspirin" and hits[0]["kb_name"] == "chem"
    # the record's source without the server's folders (the sample corpus lies outside every root)
    assert all(h["source_uri"].startswith("compounds.jsonl#") for h in hits)
    assert 1.0 > hits[1]["similarity"] >= hits[2]["similarity"] > 0


def test_compounds_by_name_and_kb_filter(client):
    reply = client.post("/biomed/compounds", json={"query": "imatinib", "top_k": 1, "kb_name": "chem"}).json()
    assert reply["resolved_by"] == "name" and reply["resolved_name"] == "Imatinib"
    assert [h["compound_id"] for h in reply["hits"]] == ["cmp-imatinib"]
    other = client.post("/biomed/compounds", json={"query": "imatinib", "kb_name": "elsewhere"}).json()
    assert other["hits"] == [] and other["total_indexed"] == 18


def test_compounds_refuse_bad_input(client):
    assert_error_shape(client.post("/biomed/compounds", json={"query": "C1CC("}), 400, "invalid_structure")
    assert_error_shape(client.post("/biomed/compounds", json={"query": ASPIRIN, "top_k": 51}), 422,
                       "invalid_request")
    assert_error_shape(client.post("/biomed/compounds", json={"query": ASPIRIN, "kb_name": "a b"}), 422,
                       "invalid_request")


def test_entity_lookup(client):
    imatinib = client.get("/biomed/entities/imatinib").json()
    assert imatinib["found"] and imatinib["entity"].lower() == "imatinib"
    assert "Gleevec" in imatinib["aliases"] and "dasatinib" in imatinib["related_drugs"]
    assert imatinib["pathways"]
    missing = client.get("/biomed/entities/nosuchthingzz").json()
    assert missing == {"entity": "nosuchthingzz", "found": False, "cui": "", "aliases": [], "pathways": [],
                       "related_drugs": [], "type": "", "source": "", "ids": {}, "close_matches": []}
    typo = client.get("/biomed/entities/imatinbi").json()
    assert not typo["found"] and typo["close_matches"][0]["entity"].lower() == "imatinib"
    assert 0.75 <= typo["close_matches"][0]["score"] < 1


def test_the_routes_take_what_the_mcp_tools_take(client):
    # the compound query under the MCP tool's name; an entity with a kb, a blank entity, an unknown kb
    by_mcp_name = client.post("/biomed/compounds", json={"smiles_or_name": ASPIRIN, "top_k": 1}).json()
    assert [h["compound_id"] for h in by_mcp_name["hits"]] == ["cmp-aspirin"]
    aspirin = client.get("/biomed/entities/aspirin", params={"kb_name": "chem"}).json()
    assert aspirin["found"] and aspirin["kb_mentions"]["kb_name"] == "chem"
    assert set(aspirin["kb_mentions"]) == {"kb_name", "documents", "document_count", "complete"}
    assert "kb_mentions" not in client.get("/biomed/entities/aspirin").json()
    assert_error_shape(client.get("/biomed/entities/%20"), 400, "invalid_request")
    assert_error_shape(client.get("/biomed/entities/aspirin", params={"kb_name": "nokb"}), 404, "not_found")


def test_routes_are_in_the_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/biomed/compounds", "/biomed/entities/{name}"} <= set(paths)

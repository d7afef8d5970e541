"""docs/api.md's endpoint table names every route of the OpenAPI schema (``GET /doctor`` was missing)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def documented_endpoints(text: str) -> set[tuple[str, str]]:
    """(method, path with every ``{param}`` as ``{}``) of the first column of the endpoint table: a cell
    like ``` `GET`, `DELETE /documents/{id}` ``` names two methods of one path."""
    found: set[tuple[str, str]] = set()
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        pending: list[str] = []
        for part in re.findall(r"`([^`]+)`", line.split("|")[1]):
            method, _, path = part.partition(" ")
            if method not in METHODS:
                continue
            pending.append(method)
            if path:
                found.update((m, re.sub(r"\{[^}]*\}", "{}", path)) for m in pending)
                pending = []
    return found


def test_the_endpoint_table_names_every_route(client):
    documented = documented_endpoints(API_MD.read_text(encoding="utf-8"))
    schema = client.get("/openapi.json").json()["paths"]
    served = {(method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
              for path, operations in schema.items() for method in operations}
    assert ("GET", "/doctor") in served
    assert served - documented == set()

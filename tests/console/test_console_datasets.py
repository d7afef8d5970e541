"""The console's dataset cards tab shows semantic matches with their similarity, the constraint that
emptied an answer, and suggestions apart from the hits."""

from __future__ import annotations

from typing import Any

import pytest

from tests.console.conftest import Server

pytestmark = pytest.mark.integration


def _search(page: Any, server: Server, query: str) -> None:
    page.goto(server.url + "/")
    page.click("#tabs button[data-tab=datasets]")
    page.fill("#ds-q", query)
    page.press("#ds-q", "Enter")


def test_a_constraint_no_card_satisfies_and_the_suggestions(page: Any, server: Server) -> None:
    _search(page, server, "Finnish radiology reports")
    page.locator("#ds-constraint").wait_for()
    assert 'language "finnish" (0 of 386 cards)' in page.locator("#ds-constraint").text_content()
    assert page.locator("article.card").count() == 0
    assert page.locator("#ds-suggestions li").count() == 3
    assert "not matches" in page.locator("#ds-suggestions h3").text_content()


def test_semantic_hits_show_their_kind_and_similarity(page: Any, server: Server) -> None:
    _search(page, server, "Chinese electronic medical record entity recognition")
    first = page.locator("article.card").first
    first.wait_for()
    assert first.locator(".badge.match").text_content() == "semantic"
    assert "similarity 0." in first.locator(".muted").first.text_content()

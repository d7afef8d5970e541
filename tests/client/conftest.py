"""One real ``eagle-rag serve`` for the client tests of a module (see :mod:`tests.client.helpers`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.client.helpers import Served, populate, serving


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = populate(tmp_path_factory.mktemp("client") / "data")
    with serving(data) as server:
        yield server

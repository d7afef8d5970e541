"""The retriever tests' engine and server: one in-process engine and one ``eagle-rag serve`` per session,
each on its own copy of the session's biomed demo folder (so ``tests/mcp`` still finds the folder free)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from eagle_rag.engine import Engine
from tests.client.helpers import Served
from tests.integrations.biomed_demo import biomed_demo_folder, in_process_settings, private_copy, serving


@pytest.fixture(scope="session")
def biomed_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    data = private_copy(biomed_demo_folder(tmp_path_factory), tmp_path_factory.mktemp("retrievers") / "engine")
    with Engine(in_process_settings(data)) as engine:
        yield engine


@pytest.fixture(scope="session")
def biomed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = private_copy(biomed_demo_folder(tmp_path_factory), tmp_path_factory.mktemp("retrievers") / "served")
    with serving(data) as served:
        yield served


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"

"""Fixtures of the web console tests: a real ``eagle-rag serve`` and a real headless Chromium.

One server for the whole session, on 127.0.0.1 and a free port, over a temporary data folder
holding the bundled sample corpus (kb ``demo``, the real bundled encoders) plus two small files
(kb ``unsafe``: a text with markup in it; kb ``scratch``: a document the delete test removes). A
second server, with ``EAGLE_RAG_API__API_KEY`` set, serves a one-file corpus for the API key test; a
third, with the ``biomed`` profile, the sample compounds for the compounds and entities tab.

The browser is the system Chromium (Debian's ``chromium`` package, which ``.ci/run`` installs),
driven by Playwright. Without it the tests are skipped, except in CI (``CI=true``), where a
missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from eagle_rag.ops.demo import sample_dir
from tests.conftest import stop_process
from tests.profiles import GENERAL
from tests.servers import free_port, health_ok, wait_ready

API_KEY = "console-test-key-5f1c"
UNSAFE_TEXT = ("# Markup in a note\n\nThe flurbotide marker note quotes <script>window.__pwned = 1</script> and "
               "<img src=x onerror=\"window.__pwned = 2\"> verbatim; both must stay text.\n")
SCRATCH_TEXT = "# Scratch note\n\nA temporary note about quendrazine, written to be deleted by the console.\n"
KEY_TEXT = "# Keyed note\n\nOnly a caller with the key may read about vorbexolide tablets.\n"
START_TIMEOUT_S = 180
BIOMED_SETTINGS = ("profile: biomed\nencoders:\n  mode: deterministic\n"
                   "plugins:\n  options:\n    biomed:\n      encoder_mode: deterministic\n")


def find_chromium() -> str | None:
    """The system Chromium: ``EAGLE_RAG_CHROMIUM``, ``/usr/bin/chromium`` or one on PATH."""
    for candidate in (os.environ.get("EAGLE_RAG_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def skip_or_fail(reason: str) -> None:
    """Skip the browser tests, or fail them in CI (``CI=true``), where the browser must be there."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run installs Debian's chromium)", pytrace=False)
    pytest.skip(reason)


@dataclass(frozen=True)
class Server:
    url: str
    data_dir: Path
    api_key: str = ""

    def client(self) -> httpx.Client:
        headers = {"X-API-Key": self.api_key} if self.api_key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


def _env(data_dir: Path, api_key: str = "", settings_file: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("EAGLE_RAG_") or k in ("EAGLE_RAG_CHROMIUM",)}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_LOG_LEVEL": "WARNING",
                "OMP_NUM_THREADS": "1"})
    if api_key:
        env["EAGLE_RAG_API__API_KEY"] = api_key
    if settings_file is not None:  # the file names its profile (an env var would override it)
        env["EAGLE_RAG_SETTINGS_FILE"] = str(settings_file)
        env.pop("EAGLE_RAG_PROFILE", None)
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from eagle_rag.cli.app import main; main()", *args]


def _ingest(data_dir: Path, kb: str, paths: list[Path], settings_file: Path | None = None) -> None:
    done = subprocess.run(_cli("ingest", *map(str, paths), "--kb", kb), env=_env(data_dir, "", settings_file),
                          cwd=data_dir,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def _start(data_dir: Path, api_key: str, settings_file: Path | None) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``eagle-rag serve`` on a free port and wait until it answers; a port taken in the
    meantime by another process is retried with another one."""
    for _attempt in range(3):
        port = free_port()
        log_path = data_dir / f"serve-{port}.log"
        with log_path.open("w") as log:
            proc = subprocess.Popen(_cli("serve", "--host", "127.0.0.1", "--port", str(port)),
                                    env=_env(data_dir, api_key, settings_file), cwd=data_dir, stdout=log,
                                    stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_ready(proc, lambda url=url: health_ok(url), log_path, START_TIMEOUT_S)
            return proc, url
        except AssertionError:
            if "address already in use" not in log_path.read_text():
                raise
    raise AssertionError("no free port for eagle-rag serve after 3 attempts")


def _serve(data_dir: Path, api_key: str = "", settings_file: Path | None = None) -> Iterator[Server]:
    proc, url = _start(data_dir, api_key, settings_file)
    try:
        yield Server(url, data_dir, api_key)
    finally:
        stop_process(proc)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_or_fail("the playwright package is not installed (pip install -e '.[dev]')")
    path = find_chromium()
    if path is None:
        skip_or_fail("no system Chromium found (apt-get install chromium chromium-driver)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def server(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("console-data")
    notes = tmp_path_factory.mktemp("console-notes")
    (notes / "markup_note.md").write_text(UNSAFE_TEXT, encoding="utf-8")
    (notes / "scratch_note.md").write_text(SCRATCH_TEXT, encoding="utf-8")
    _ingest(data, "demo", [p for p in sorted(sample_dir().iterdir()) if p.is_dir()])
    _ingest(data, "unsafe", [notes / "markup_note.md"])
    _ingest(data, "scratch", [notes / "scratch_note.md"])
    yield from _serve(data)


@pytest.fixture(scope="session")
def keyed_server(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("console-keyed")
    (data / "keyed_note.md").write_text(KEY_TEXT, encoding="utf-8")
    _ingest(data, "keyed", [data / "keyed_note.md"])
    yield from _serve(data, api_key=API_KEY)


@pytest.fixture(scope="session")
def biomed_server(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The biomed profile (deterministic text encoders; compounds are matched by RDKit fingerprints)."""
    pytest.importorskip("rdkit")
    data = tmp_path_factory.mktemp("console-biomed")
    settings = data / "eagle-rag.yaml"
    settings.write_text(BIOMED_SETTINGS, encoding="utf-8")
    _ingest(data, "chem", [sample_dir() / "compounds"], settings)
    yield from _serve(data, settings_file=settings)


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Playwright and Chromium for one module: the sync API holds an event loop while it runs, so it
    must stop before later tests start their own (asyncio.run would find a loop running)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page (own storage); its console errors fail the test, a screenshot is saved at the end."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    new_page.set_default_timeout(60_000)
    errors: list[str] = []
    new_page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield new_page
    new_page.screenshot(path=str(tmp_path / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

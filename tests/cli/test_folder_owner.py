"""``server.json`` ownership and the one-line refusal when another process holds the data folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle_rag.client.server_file import (
    ensure_folder_free,
    live_server,
    read_server_file,
    remove_server_file,
    server_url,
    write_server_file,
)
from eagle_rag.errors import FolderInUse, InvalidRequest
from eagle_rag.service.backend import resolve_target
from eagle_rag.settings import load_settings
from tests.profiles import GENERAL

HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(60)
"""


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.mark.unit
def test_server_file_round_trip_and_stale_detection(tmp_path: Path) -> None:
    info = write_server_file(tmp_path, server_url("0.0.0.0", 8123))
    assert info.url == "http://127.0.0.1:8123" and info.pid == os.getpid()
    assert read_server_file(tmp_path) == info and live_server(tmp_path) == info
    write_server_file(tmp_path, "http://127.0.0.1:9", pid=_dead_pid())
    assert read_server_file(tmp_path) is not None and live_server(tmp_path) is None  # stale: ignored
    remove_server_file(tmp_path)  # not this process's file: kept
    assert read_server_file(tmp_path) is not None
    write_server_file(tmp_path, "http://127.0.0.1:9")
    remove_server_file(tmp_path)
    assert read_server_file(tmp_path) is None
    (tmp_path / "server.json").write_text("{not json")
    assert live_server(tmp_path) is None
    assert server_url("::", 80) == "http://[::1]:80"


@pytest.mark.unit
def test_target_resolution(tmp_path: Path) -> None:
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path)})
    assert resolve_target(settings, environ={}).url is None
    env = {"EAGLE_RAG_URL": "http://remote:8000", "EAGLE_RAG_API_KEY": "k"}
    remote = resolve_target(settings, environ=env)
    assert (remote.url, remote.api_key, remote.server) == ("http://remote:8000", "k", None)
    assert resolve_target(settings, url="http://other:1", environ=env).url == "http://other:1"
    write_server_file(tmp_path, "http://127.0.0.1:8555")
    owned = resolve_target(settings, environ={})
    assert owned.url == "http://127.0.0.1:8555" and owned.server is not None
    assert resolve_target(settings, local=True, environ=env).url is None
    with pytest.raises(InvalidRequest, match="--local and --url"):
        resolve_target(settings, url="http://x:1", local=True, environ={})
    with pytest.raises(FolderInUse) as owner:
        ensure_folder_free(tmp_path, str(tmp_path / "milvus.db"), "doctor --repair")
    assert f"PID {os.getpid()}" in owner.value.message and "http://127.0.0.1:8555" in owner.value.message


@pytest.mark.integration
def test_a_folder_locked_by_another_process_is_refused_in_one_line(tmp_path: Path) -> None:
    lock = tmp_path / "milvus.db" / "LOCK"
    lock.parent.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(FolderInUse) as held:
            ensure_folder_free(tmp_path, str(tmp_path / "milvus.db"), "search")
        message = held.value.message
        assert f"PID {holder.pid}" in message and "\n" not in message and "eagle-rag serve" in message
    finally:
        holder.kill()
        holder.wait()
    ensure_folder_free(tmp_path, str(tmp_path / "milvus.db"), "search")  # free again: no error

"""Who owns a data folder: ``<data_dir>/server.json`` of a running ``eagle-rag serve``, and the lock
of the embedded Milvus Lite store.

``eagle-rag serve`` writes ``server.json`` (``url``, ``pid``, ``version``, ``started_at``) once its
engine is open and removes it when it exits cleanly (SIGTERM and SIGINT included). Every other
command reads it with :func:`live_server` and goes through that URL; a file whose process is gone
(a server killed with SIGKILL, a reboot) is stale: it is ignored, and the next ``serve`` replaces it.
:func:`ensure_folder_free` is the one-line refusal of a command that needs the folder to itself.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from eagle_rag import __version__
from eagle_rag.errors import FolderInUse
from eagle_rag.settings import check_data_folder

SERVER_FILE = "server.json"
LITE_LOCK = "LOCK"
"""The lock file Milvus Lite keeps inside its ``.db`` folder (held with ``flock`` while it is open)."""


@dataclass(frozen=True)
class ServerInfo:
    """The content of ``server.json``."""

    url: str
    pid: int
    version: str
    started_at: str


def server_file(data_path: Path) -> Path:
    return data_path / SERVER_FILE


def server_url(host: str, port: int) -> str:
    """The URL a client on this machine uses for a server bound to ``host:port`` (a wildcard bind
    address is reached on the loopback)."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def write_server_file(data_path: Path, url: str, pid: int | None = None) -> ServerInfo:
    """Write ``server.json`` atomically (a staging file, then a rename); returns what was written."""
    info = ServerInfo(url=url, pid=os.getpid() if pid is None else pid, version=__version__,
                      started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    data_path.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(dir=data_path, prefix=".server-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(info), out, indent=2)
    os.replace(staging, server_file(data_path))
    return info


def read_server_file(data_path: Path) -> ServerInfo | None:
    """The recorded server, or None when there is no readable ``server.json``."""
    try:
        data = json.loads(server_file(data_path).read_text(encoding="utf-8"))
        return ServerInfo(url=str(data["url"]), pid=int(data["pid"]), version=str(data.get("version", "")),
                          started_at=str(data.get("started_at", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (and is not a zombie)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def live_server(data_path: Path) -> ServerInfo | None:
    """The server that owns ``data_path``, or None (no ``server.json``, or a stale one)."""
    info = read_server_file(data_path)
    if info is None or not pid_alive(info.pid):
        return None
    return info


def remove_server_file(data_path: Path, pid: int | None = None) -> None:
    """Remove ``server.json`` when it names ``pid`` (default: this process); another server's is kept."""
    info = read_server_file(data_path)
    if info is not None and info.pid == (os.getpid() if pid is None else pid):
        server_file(data_path).unlink(missing_ok=True)


def _lock_holders(path: Path) -> list[int]:
    """PIDs that hold a lock on ``path`` according to ``/proc/locks`` (Linux; empty elsewhere)."""
    try:
        inode = path.stat().st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        match = re.search(r"\s(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s", line)
        if match and int(match.group(2)) == inode:
            pids.append(int(match.group(1)))
    return pids


def lite_lock_holder(milvus_uri: str) -> int | None:
    """The PID holding the Milvus Lite store ``milvus_uri`` open (0 when it cannot be told), or None
    when the store is free, does not exist yet, or is a Milvus server."""
    if not milvus_uri.endswith(".db"):
        return None
    lock = Path(milvus_uri).expanduser() / LITE_LOCK
    if not lock.exists():
        return None
    import fcntl

    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holders = [pid for pid in _lock_holders(lock) if pid != os.getpid()]
        return holders[0] if holders else 0
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(raw.replace(b"\0", b" ").decode(errors="replace").split())[:120]


def ensure_folder_free(data_path: Path, milvus_uri: str, action: str) -> None:
    """Raise :class:`FolderInUse` (one line: who holds the folder and what to do) unless this process
    may open the stores of ``data_path`` itself. ``action`` names what needs the folder. Raises
    SettingsError when ``data_path`` is not a folder and cannot be made one."""
    check_data_folder(data_path)
    server = live_server(data_path)
    if server is not None:
        raise FolderInUse(
            f"{action} needs the data folder {data_path} to itself, and the Eagle-RAG server at {server.url} "
            f"(PID {server.pid}) owns it: stop that server (kill {server.pid}), run this again, then restart "
            "the server; commands without --local go through it",
            {"pid": server.pid, "url": server.url, "data_dir": str(data_path)})
    holder = lite_lock_holder(milvus_uri)
    if holder is not None:
        who = f"PID {holder}" + (f": {_command_line(holder)}" if _command_line(holder) else "") if holder else (
            "another process")
        raise FolderInUse(
            f"the data folder {data_path} is in use by another process ({who}): wait for it to finish or stop "
            "it; to share one folder, run `eagle-rag serve` and every command goes through it",
            {"pid": holder, "data_dir": str(data_path)})

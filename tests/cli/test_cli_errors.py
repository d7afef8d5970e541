"""One-line errors of the command line: secrets masked in ``config show``, a ``serve`` port that is in
use, a data folder that is not a folder, ``eval beir`` on a folder a server owns, and ``delete`` of an
ambiguous id or into a kb that does not exist (locally and through a server)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from eagle_rag.client.server_file import write_server_file
from eagle_rag.redact import MASK
from eagle_rag.settings import SettingsError, check_data_folder
from tests.client.helpers import run_cli, serving
from tests.evaluation.test_beir import beir_folder

SECRET_URLS = {"EAGLE_RAG_REGISTRY__URL": "postgresql+psycopg://u:pw456@h/db",
               "EAGLE_RAG_AUDIT__REDIS_URL": "redis://:redispw@localhost:6379/0"}


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The stderr of a refused command: one line that starts with ``error``, no traceback."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error"), result.stderr
    return lines[0]


@pytest.mark.integration
def test_config_show_masks_passwords_inside_urls_in_json_and_in_the_table(tmp_path: Path) -> None:
    shown = run_cli(tmp_path, "config", "show", "--json", **SECRET_URLS)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert rows["registry.url"]["value"] == f"postgresql+psycopg://u:{MASK}@h/db"
    assert rows["audit.redis_url"]["value"] == f"redis://:{MASK}@localhost:6379/0"
    table = run_cli(tmp_path, "config", "show", **SECRET_URLS)
    assert table.returncode == 0, table.stderr
    for shown_text in (shown.stdout, table.stdout):
        assert "pw456" not in shown_text and "redispw" not in shown_text
    assert f"redis://:{MASK}@localhost:6379/0" in table.stdout


@pytest.mark.integration
def test_serve_refuses_a_port_in_use_before_loading_anything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = run_cli(tmp_path, "serve", "--port", str(port), EAGLE_RAG_DATA_DIR=str(data))
    line = one_error_line(result)
    assert result.returncode == 2
    assert line.startswith(f"error: port {port} on 127.0.0.1 is in use ("), line
    assert "warmed up" not in result.stdout + result.stderr  # refused before the models load
    assert not (data / "server.json").exists()


@pytest.mark.unit
def test_a_data_folder_that_cannot_be_a_folder_is_a_settings_error(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    check_data_folder(tmp_path / "new" / "data")  # may be created
    with pytest.raises(SettingsError, match=f"the data folder {a_file} is not a folder"):
        check_data_folder(a_file)
    with pytest.raises(SettingsError, match=f"cannot be created: {a_file} is not a folder"):
        check_data_folder(a_file / "data")


@pytest.mark.integration
def test_a_data_folder_that_is_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    result = run_cli(tmp_path, "search", "x", EAGLE_RAG_DATA_DIR=str(a_file))
    assert result.returncode == 2
    assert one_error_line(result).startswith(f"error: the data folder {a_file} is not a folder"), result.stderr
    assert "FileExistsError" not in result.stderr


@pytest.mark.integration
def test_eval_beir_refuses_a_folder_that_a_server_owns(tmp_path: Path) -> None:
    data = tmp_path / "served"
    info = write_server_file(data, "http://127.0.0.1:9", pid=os.getpid())  # this test process: alive
    result = run_cli(tmp_path, "eval", "beir", str(beir_folder(tmp_path / "beir")), "--split", "train",
                     "--data-dir", str(data))
    assert result.returncode == 2
    line = one_error_line(result)
    assert line.startswith("error (folder_in_use): eval beir needs the data folder"), line
    assert f"PID {info.pid}" in line and info.url in line
    assert not (data / "milvus.db").exists()


def two_kbs(tmp_path: Path) -> Path:
    """A data folder whose kbs ``alpha`` and ``beta`` both hold documents d0 .. d4."""
    data = tmp_path / "data"
    corpus = beir_folder(tmp_path / "beir") / "corpus.jsonl"
    for kb in ("alpha", "beta"):
        result = run_cli(tmp_path, "ingest", str(corpus), "--kb", kb, EAGLE_RAG_DATA_DIR=str(data))
        assert result.returncode == 0, result.stderr
    return data


def assert_delete_messages(data: Path, *local: str) -> None:
    ambiguous = run_cli(data, "delete", "d0", *local)
    assert ambiguous.returncode == 1
    assert ambiguous.stderr.strip() == ("ambiguous: the document id 'd0' is in several kbs (alpha, beta): "
                                        "pass --kb <name>")
    no_kb = run_cli(data, "delete", "d0", "--kb", "nokb", *local)
    assert no_kb.returncode == 2
    assert one_error_line(no_kb) == "error (not_found): there is no kb 'nokb' (kbs: alpha, beta)"
    chosen = run_cli(data, "delete", "d0", "--kb", "beta", *local)
    assert chosen.returncode == 0 and chosen.stdout.strip() == "deleted d0", chosen.stderr


@pytest.mark.integration
def test_delete_names_the_kbs_of_an_ambiguous_id_and_an_unknown_kb(tmp_path: Path) -> None:
    assert_delete_messages(two_kbs(tmp_path), "--local")


@pytest.mark.integration
def test_delete_through_a_server_words_its_errors_for_the_command_line(tmp_path: Path) -> None:
    data = two_kbs(tmp_path)
    with serving(data):
        assert_delete_messages(data)


@pytest.mark.integration
def test_hits_of_two_kbs_name_their_kb_and_hits_of_one_do_not(tmp_path: Path) -> None:
    data = two_kbs(tmp_path)
    both = run_cli(data, "search", "dosage", "--mode", "bm25", "--k", "10", "--local")
    assert both.returncode == 0, both.stderr
    assert "alpha/d0" in both.stdout and "beta/d0" in both.stdout
    one = run_cli(data, "search", "dosage", "--mode", "bm25", "--k", "10", "--kb", "alpha", "--local")
    assert one.returncode == 0 and " d0 " in one.stdout and "alpha/" not in one.stdout


@pytest.mark.integration
def test_an_unknown_beir_pipeline_lists_every_valid_one(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "eval", "beir", str(beir_folder(tmp_path / "beir")), "--pipeline", "foo")
    assert result.returncode == 2
    assert one_error_line(result).endswith("unknown pipeline 'foo'; valid values: bm25, dense, hybrid, full, all")

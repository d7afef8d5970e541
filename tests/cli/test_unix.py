"""``eagle-rag`` behaves like a Unix tool: usage errors exit 2 with the usage line, ``--version``, plain
help labels, exit 1 when something failed, progress lines when stderr is no terminal, and a quiet
stderr (library noise only with ``--verbose``, a real error on one line).

The commands run in a subprocess, as a user runs them, with the deterministic encoder.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eagle_rag import __version__
from eagle_rag.cli.help import classic_label
from eagle_rag.cli.logs import QUIET_GRPC, wants_verbose
from eagle_rag.ops.progress import CommandProgress
from tests.client.helpers import cli_env

pytestmark = [pytest.mark.integration]
NOISE = ("Traceback", "too_many_pings", "GOAWAY", "mvccTs", "add_port", "Numba")


def eagle(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``eagle-rag ARGS`` in a subprocess, data folder ``tmp_path/data``, from ``tmp_path``."""
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", *args], env=cli_env(tmp_path / "data", **env),
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)


def quiet(result: subprocess.CompletedProcess[str]) -> str:
    """stderr, after checking that it holds none of the libraries' noise."""
    for word in NOISE:
        assert word not in result.stderr, result.stderr
    return result.stderr


@pytest.fixture
def in_process(monkeypatch, tmp_path, capsys):
    """``main(ARGS)`` in this process: returns (exit code, stdout, stderr). The logging set-up of the
    command line is left out (it changes this process's logging); the subprocess tests cover it."""
    import eagle_rag.cli.logs

    monkeypatch.setattr(eagle_rag.cli.logs, "setup", lambda verbose: None)
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)

    def run(*args: str) -> tuple[int, str, str]:
        from eagle_rag.cli.app import main

        with pytest.raises(SystemExit) as ended:
            main(list(args))
        out = capsys.readouterr()
        return int(ended.value.code or 0), out.out, out.err

    return run


@pytest.mark.parametrize(("args", "named"), [
    (("search", "aspirin", "--k", "abc"), "'--k'"),
    (("search", "aspirin", "--k", "0"), "'--k'"),  # answered about top_k, with no usage line
    (("search", "aspirin", "--k", "500"), "--k: 500 is more than search.max_top_k (100)"),
    (("search", "aspirin", "--offset", "95", "--k", "10"), "--offset 95 + --k 10 is more than search.max_window"),
    (("search", "aspirin", "--bogus"), "--bogus"),
    (("search",), "'query'"),
    (("ingest", "no-such-folder", "--kb", "k"), "no-such-folder' does not exist"),
])
def test_usage_errors_exit_2_with_the_usage_line_and_write_nothing(in_process, tmp_path, args, named):
    code, _, err = in_process(*args)
    assert code == 2, err
    assert f"Usage: eagle-rag {args[0]} [OPTIONS]" in err and named in err and "Traceback" not in err
    assert "top_k must" not in err  # the option the user typed, not the request field
    assert not (tmp_path / "data").exists()  # refused before the data folder was opened


def test_version(in_process):
    assert in_process("--version") == (0, f"eagle-rag {__version__}\n", "")


def test_a_bad_log_level_is_one_line(tmp_path):
    bad = eagle(tmp_path, "--version", EAGLE_RAG_LOG_LEVEL="LOUD")
    assert bad.returncode == 2 and bad.stderr.strip() == "error: Unknown level: 'LOUD'"


def test_help_shows_click_labels_and_no_type_on_flags(in_process):
    code, out, _ = in_process("search", "--help")
    assert code == 0
    assert "<" not in out, out  # no <bool>, <str>, <int>, <list[str]>
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("│ --")}
    # --k states its range (click's label for a bounded int): 0 is refused before any search runs
    assert rows["--k"].split()[2:5] == ["INT", "RANGE", "[x>=1]"] and rows["--url"].split()[2] == "TEXT"
    assert rows["--explain"].split()[2:4] == ["show", "the"]  # a flag: the help text follows the name


def test_classic_labels():
    assert [classic_label(x) for x in ("<int>", "<str>", "<list[str]>", "<path>", "<a|b>", "<float>")] == [
        "INTEGER", "TEXT", "TEXT", "PATH", "[a|b]", "FLOAT"]
    assert wants_verbose(["--verbose", "search", "x"]) and wants_verbose(["-v", "doctor"])
    assert not wants_verbose(["search", "--verbose"]) and not wants_verbose([])


def test_ingest_exits_1_when_a_file_failed_shows_progress_lines_and_a_quiet_stderr(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "aspirin.md").write_text("# Aspirin\n\nAspirin inhibits platelet aggregation.\n")
    (folder / "notes.xyz").write_text("a file type no parser reads")
    result = eagle(tmp_path, "ingest", str(folder), "--kb", "k", EAGLE_RAG_PROGRESS_SECONDS="0")
    assert result.returncode == 1, result.stdout + result.stderr  # one file of two failed
    assert "ingested 1 documents" in result.stdout and "unsupported file type" in quiet(result)
    assert "ingest: 1 records, " in result.stderr  # the plain progress line: stderr is no terminal
    # doctor reads every collection with pymilvus' query iterator, which warns about mvccTs on Milvus Lite
    doctor = eagle(tmp_path, "doctor")
    assert doctor.returncode == 0 and "mvccTs" not in doctor.stderr
    assert "mvccTs" in eagle(tmp_path, "--verbose", "doctor").stderr


def test_demo_exits_1_when_its_corpus_did_not_ingest(tmp_path):
    result = eagle(tmp_path, "demo", EAGLE_RAG_INGEST__MAX_FILE_BYTES="10")
    assert result.returncode == 1
    assert "over the limit of 10 bytes" in quiet(result)
    assert "the sample corpus did not ingest" in result.stderr and "done in" not in result.stdout


LIBRARY_NOISE = """
import logging, socket, sys, warnings
from concurrent import futures
from eagle_rag.cli.logs import setup
setup(verbose=sys.argv[1] == "verbose")
import grpc
from pymilvus import MilvusClient
from numba.core.errors import NumbaTypeSafetyWarning

held = socket.socket()
held.bind(("127.0.0.1", 0))
held.listen()
try:  # gRPC's C core logs the failed bind (as it logs too_many_pings) before raising
    grpc.server(futures.ThreadPoolExecutor(1)).add_insecure_port(f"127.0.0.1:{held.getsockname()[1]}")
except RuntimeError:
    pass
client = MilvusClient(sys.argv[2])
try:  # pymilvus logs every failed RPC with its traceback
    client.query("no_such_collection", filter="id > 0")
except Exception:
    pass
warnings.warn("unsafe cast from uint64 to int64", NumbaTypeSafetyWarning)
import io, nibabel  # a truncated NIfTI header with zero voxel sizes: nibabel logs pixdim[1,2,3] (own handler too)
header = nibabel.Nifti1Header()
header["pixdim"][1:4] = 0
nibabel.Nifti1Header.from_fileobj(io.BytesIO(header.binaryblock), check=True)
logging.getLogger("some_library").warning("a third-party warning")
logging.getLogger("eagle_rag.ops.demo").error("could not read", exc_info=ValueError("bad\\nrecord"))
"""


@pytest.mark.parametrize("mode", ["quiet", "verbose"])
def test_library_noise_is_silenced_unless_verbose(tmp_path, mode):
    env = cli_env(tmp_path)
    for name in QUIET_GRPC:  # set in this process by any earlier in-process command (setup keeps a value)
        env.pop(name, None)
    result = subprocess.run([sys.executable, "-c", LIBRARY_NOISE, mode, str(tmp_path / "m.db")],
                            env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    noise = ["Failed to add port", "RPC error: [query]", "Traceback", "NumbaTypeSafetyWarning", "pixdim[1,2,3]",
             "a third-party warning"]
    if mode == "verbose":
        assert all(word in result.stderr for word in noise), result.stderr
        return
    assert not any(word in result.stderr for word in noise), result.stderr
    assert result.stderr == "ERROR eagle_rag.ops.demo: could not read (ValueError: bad record)\n"


def test_plain_progress_lines():
    out = io.StringIO()
    with CommandProgress("eval datasets", "queries", 3, stream=out, every_s=0) as progress:
        for done in (1, 2, 3):
            progress.update(done)
    assert [line.rsplit(",", 1)[0] for line in out.getvalue().splitlines()] == [
        "eval datasets: 1/3 queries", "eval datasets: 2/3 queries", "eval datasets: 3/3 queries"]
    assert out.getvalue().endswith(" s\n")
    slow = io.StringIO()
    with CommandProgress("ingest", "records", stream=slow, every_s=3600) as progress:
        progress.update(10)
    assert slow.getvalue() == ""  # nothing before the first interval, so no last line either


def test_ingest_progress_counts_the_records_prepared_and_the_chunks_embedded(tmp_path):
    """A folder's records are read at once, then prepared and embedded for long (the biomed demo stood at
    ``1 records`` for 25 s): the line says how many records of the batch are prepared, then how many of its
    chunks are embedded, and both counts move."""
    from eagle_rag.ops.demo import sample_dir

    result = eagle(tmp_path, "ingest", str(sample_dir() / "labels"), "--kb", "k", EAGLE_RAG_PROGRESS_SECONDS="0",
                   EAGLE_RAG_ENCODERS__BATCH_SIZE="16")
    assert result.returncode == 0, result.stdout + result.stderr
    stages = [(int(done), int(total)) for done, total in re.findall(r"embedding (\d+)/(\d+) chunks", result.stderr)]
    done = [d for d, _ in stages]
    assert len(set(done)) >= 3 and done == sorted(done), result.stderr
    assert done[-1] == stages[-1][1]  # every chunk of the batch embedded
    assert "ingest: 19 records, embedding " in result.stderr  # the 19 labels, read before the embedding
    prepared = [int(n) for n in re.findall(r"ingest: 19 records, preparing (\d+)/19 records", result.stderr)]
    assert prepared == list(range(19)), result.stderr  # one line a record (EAGLE_RAG_PROGRESS_SECONDS=0)


def test_plain_progress_writes_on_time_while_the_count_stands_still():
    # an ingest reads its 150 records at once, then embeds them for seconds: the line still comes
    out = io.StringIO()
    with CommandProgress("ingest", "records", stream=out, every_s=0.1) as progress:
        progress.update(150)
        time.sleep(1.0)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.startswith("ingest: 150 records, ") for line in lines)
    time.sleep(0.3)
    assert len(out.getvalue().splitlines()) == len(lines)  # nothing after the command ended


def test_dataset_eval_reports_each_query_run(tmp_path):
    from eagle_rag_datasets import DatasetCatalog
    from eagle_rag_datasets.evaluate import read_queries, run_engine
    from eagle_rag_datasets.search.engines import Engine

    path = tmp_path / "q.jsonl"
    path.write_text('{"query": "protein", "relevant": [], "type": "a"}\n'
                    '{"query": "clinical trial", "relevant": [], "type": "a"}\n')
    seen: list[int] = []
    catalog = DatasetCatalog.load(Path(__file__).parents[1] / "datasets" / "data" / "mini_cards.jsonl")
    run_engine(catalog, read_queries(path), Engine.BM25, progress=seen.append)
    assert seen == [1, 2]


def test_explain_prints_the_trail_in_words():
    """``--explain`` printed raw Python dicts (``{'rank_0': 1.0, ...}``)."""
    from eagle_rag.cli.app import trail_line
    from eagle_rag.types import StageScore

    fused = StageScore("hybrid_rrf", 1, 0.0325, detail={"rank_1": 1.0, "rank_0": 2.0, "rank_2": 1.0})
    assert trail_line(fused) == "hybrid_rrf: rank 1, score 0.0325; ranks in the fused lists 2, 1, 1"
    tier2 = StageScore("rerank_t2", 3, 0.5, detail={"ce_norm": 0.901477832512315, "entity": 1.0})
    assert trail_line(tier2) == "rerank_t2: rank 3, score 0.5000; ce_norm 0.901, entity 1"
    assert trail_line(StageScore("rerank_ce", 2, 0.1, skipped="language")) == \
        "rerank_ce: rank 2, score 0.1000 (skipped: language)"
    assert "{" not in trail_line(fused) + trail_line(tier2)

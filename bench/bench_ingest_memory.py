"""Peak memory of ``eagle-rag ingest --dry-run`` over a large and a small generated multi-record file.

Ingest reads multi-record files record by record, so its memory should not depend on the file's
size. This script writes two files of the same kind of records (default 1 GB and 10 MB, with a few
bad records sprinkled in), runs ``eagle-rag ingest --dry-run --json`` over each in a fresh
subprocess, and prints each run's peak RSS (the child's own ``VmHWM``), records, wall time, and the
ratio large/small (the target: within 1.2). ``--format`` picks the records:

- ``jsonl``: a BEIR-style corpus, about 1 KB a record, the core profile;
- ``pubmed``: a PubMed XML set (``PubmedArticleSet``) of generated articles shaped like PubMed's
  (journal, date, title, four labelled abstract parts, authors, MeSH terms, keywords, DOI; about
  4 KB each), one article without an ``<Article>`` in every BAD_EVERY, the ``biomed`` profile;
- ``sdf``: an SD file of the real DrugBank open structures (``../shared/data/compounds``, with 2D
  coordinates) repeated, one unreadable record in every BAD_EVERY, the ``biomed`` profile (RDKit).

    .venv/bin/python bench/bench_ingest_memory.py                     # JSONL, 1 GB vs 10 MB under /tmp
    .venv/bin/python bench/bench_ingest_memory.py --format pubmed --large-mb 300
    .venv/bin/python bench/bench_ingest_memory.py --format sdf --large-mb 300
    .venv/bin/python bench/bench_ingest_memory.py --format pubmed --small-mb 5 --large-mb 50 --write
    .venv/bin/python bench/bench_ingest_memory.py --small-mb 2 --large-mb 24 --write --store-process
    .venv/bin/python bench/bench_ingest_memory.py --small-mb 2 --large-mb 24 --write --store-process --token-cache 1024

``--write`` runs a real ingest (the stores are written) instead of a dry run. By default the vector
store is the embedded Milvus Lite, which runs inside the ingest process and keeps its loaded
collections in that process's memory, so the ingest's peak RSS is the pipeline's plus the store's.
``--store-process`` separates them: each run starts Milvus Lite as its own process
(``python -m milvus_lite server --data-dir ...`` on a free local port) and points the ingest at it
with ``EAGLE_RAG_MILVUS__URI=http://127.0.0.1:PORT``; the ingest's peak RSS is then the pipeline's
alone (reader, chunker, encoders, tantivy writer, SQLite registry), and the store process's peak and
final RSS (its ``VmHWM`` and ``VmRSS``, read just before it is stopped) are printed beside it with
the store's KiB per chunk written. ``--token-cache N`` bounds the deterministic stand-in encoder's
cache of token vectors (8,192 tokens by default, about 3.1 KiB each at 384 dimensions) to N tokens in the
ingest: every generated record brings a token of its own (its number), so that cache, which a real
encoder does not have, otherwise grows with the records embedded. See bench/README.md, "Ingest memory".

The generated files are deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WORDS = ["kinase", "receptor", "antibody", "cohort", "survival", "toxicity", "metformin", "insulin", "glucose",
         "tumour", "melanoma", "trial", "mouse", "dose", "gene", "protein", "cell", "therapy", "risk", "aspirin",
         "inhibitor", "expression", "pathway", "mutation"]
BAD_EVERY = 5000


def write_corpus(path: Path, target_bytes: int, seed: int = 7) -> int:
    """Write about ``target_bytes`` of records to ``path`` (one bad record in every BAD_EVERY). Returns records."""
    rng = random.Random(seed)
    written = records = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target_bytes:
            records += 1
            if records % BAD_EVERY == 0:
                line = '{"_id": "broken", "text": \n'
            else:
                text = " ".join(rng.choices(WORDS, k=130))
                line = json.dumps({"_id": f"d{records}", "title": f"Record {records}", "text": text}) + "\n"
            fh.write(line)
            written += len(line)
    return records


JOURNALS = ["Lancet Oncol", "N Engl J Med", "J Clin Oncol", "Diabetes Care", "Circulation", "Nat Med", "BMJ"]
SURNAMES = ["Smith", "Wang", "Garcia", "Muller", "Rossi", "Kim", "Nguyen", "Silva", "Ivanova", "Tanaka"]
MESH = ["Humans", "Adult", "Female", "Male", "Middle Aged", "Neoplasms", "Diabetes Mellitus, Type 2", "Metformin",
        "Protein Kinase Inhibitors", "Treatment Outcome", "Cohort Studies", "Risk Factors", "Mice", "Aspirin"]
LABELS = ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]


def _pubmed_article(rng: random.Random, pmid: int) -> str:
    if pmid % BAD_EVERY == 0:  # a citation without an <Article>: one bad record
        return f"<PubmedArticle>\n<MedlineCitation Status=\"MEDLINE\">\n<PMID Version=\"1\">{pmid}</PMID>\n" \
               "</MedlineCitation>\n</PubmedArticle>\n"
    title = " ".join(rng.choices(WORDS, k=14)).capitalize() + "."
    parts = "".join(f"<AbstractText Label=\"{label}\" NlmCategory=\"{label}\">"
                    f"{' '.join(rng.choices(WORDS, k=55)).capitalize()}.</AbstractText>\n" for label in LABELS)
    authors = "".join(f"<Author ValidYN=\"Y\"><LastName>{rng.choice(SURNAMES)}</LastName><ForeName>A</ForeName>"
                      f"<Initials>{chr(65 + i)}</Initials></Author>\n" for i in range(6))
    mesh = "".join(f"<MeshHeading><DescriptorName UI=\"D{rng.randrange(10**6):06d}\" MajorTopicYN=\"N\">{term}"
                   "</DescriptorName></MeshHeading>\n" for term in rng.sample(MESH, 8))
    keywords = "".join(f"<Keyword MajorTopicYN=\"N\">{w}</Keyword>" for w in rng.sample(WORDS, 4))
    return (f"<PubmedArticle>\n<MedlineCitation Status=\"MEDLINE\" Owner=\"NLM\">\n"
            f"<PMID Version=\"1\">{pmid}</PMID>\n<Article PubModel=\"Print\">\n<Journal>\n"
            f"<JournalIssue CitedMedium=\"Internet\"><Volume>{rng.randrange(1, 400)}</Volume>"
            f"<PubDate><Year>{rng.randrange(1990, 2026)}</Year><Month>Mar</Month></PubDate></JournalIssue>\n"
            f"<Title>{rng.choice(JOURNALS)}</Title>\n</Journal>\n<ArticleTitle>{title}</ArticleTitle>\n"
            f"<Abstract>\n{parts}</Abstract>\n<AuthorList CompleteYN=\"Y\">\n{authors}</AuthorList>\n"
            f"<Language>eng</Language>\n</Article>\n<MeshHeadingList>\n{mesh}</MeshHeadingList>\n"
            f"<KeywordList Owner=\"NOTNLM\">{keywords}</KeywordList>\n</MedlineCitation>\n<PubmedData>\n"
            f"<ArticleIdList><ArticleId IdType=\"pubmed\">{pmid}</ArticleId>"
            f"<ArticleId IdType=\"doi\">10.1000/bench.{pmid}</ArticleId></ArticleIdList>\n</PubmedData>\n"
            "</PubmedArticle>\n")


def write_pubmed(path: Path, target_bytes: int, seed: int = 7) -> int:
    """Write a PubMed set of about ``target_bytes`` to ``path``. Returns the articles written."""
    rng = random.Random(seed)
    head = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
            '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n<PubmedArticleSet>\n')
    written, records = len(head), 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write(head)
        while written < target_bytes:
            records += 1
            text = _pubmed_article(rng, records)
            fh.write(text)
            written += len(text)
        fh.write("</PubmedArticleSet>\n")
    return records


@functools.cache
def _drugbank_molecules() -> list[str]:
    """The SD records of every DrugBank open structure RDKit reads, with 2D coordinates."""
    from eagle_rag_biomed.chem.sdf_writer import drugbank_sdf_text

    text, _ = drugbank_sdf_text(limit=10**6)
    return [m + "$$$$\n" for m in text.split("$$$$\n") if m.strip()]


def write_sdf(path: Path, target_bytes: int) -> int:
    """Write the DrugBank open structures to ``path`` again and again up to about ``target_bytes``, one
    unreadable record in every BAD_EVERY. Returns the records written."""
    from eagle_rag_biomed.chem.sdf_writer import BAD_RECORD

    molecules = _drugbank_molecules()
    written = records = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target_bytes:
            records += 1
            block = BAD_RECORD if records % BAD_EVERY == 0 else molecules[records % len(molecules)]
            fh.write(block)
            written += len(block)
    return records


FORMATS = {"jsonl": (".jsonl", write_corpus), "pubmed": (".xml", write_pubmed), "sdf": (".sdf", write_sdf)}


def _status_kb(pid: int | str, field: str) -> int:
    """A ``kB`` field (``VmHWM``, ``VmRSS``) of ``/proc/<pid>/status``."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(f"{field}:"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class StoreProcess:
    """Milvus Lite run as its own process (``python -m milvus_lite server``) on ``data_dir``."""

    def __init__(self, data_dir: Path, timeout: float = 60.0) -> None:
        self.port = _free_port()
        self.log = data_dir.with_suffix(".log")
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data_dir),
                 "--host", "127.0.0.1", "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"milvus_lite server exited with {self.proc.returncode}: {self.log.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"milvus_lite server did not listen on port {self.port} "
                                       f"in {timeout:.0f} s") from None
                time.sleep(0.2)
        self.start_kb = _status_kb(self.proc.pid, "VmRSS")

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def memory_kb(self) -> dict[str, int]:
        """The server's peak (``VmHWM``) and current (``VmRSS``) resident size, and its RSS once listening."""
        return {"hwm": _status_kb(self.proc.pid, "VmHWM"), "rss": _status_kb(self.proc.pid, "VmRSS"),
                "start": self.start_kb}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # the server drains and closes its store on Ctrl-C
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextmanager
def store_process(data_dir: Path) -> Iterator[StoreProcess]:
    """A :class:`StoreProcess` on ``data_dir``, stopped on exit."""
    server = StoreProcess(data_dir)
    try:
        yield server
    finally:
        server.stop()


# The deterministic stand-in encoder caches one float64 vector per distinct token (functools.lru_cache of
# deterministic.TOKEN_CACHE = 8,192 tokens, about 3.1 KiB each at 384 dimensions; 65,536 before); each
# generated record brings new tokens (its number in the title), so that cache grows with the records embedded
# until it is full. A real encoder has no such cache: ``--token-cache N`` rebinds it to N tokens in the child.
TOKEN_CACHE = ("import functools\n"
               "import eagle_rag.encoders.deterministic as det\n"
               "det._token_vector = functools.lru_cache(maxsize={size})(det._token_vector.__wrapped__)\n")


def dry_run(path: Path, data_dir: Path, write: bool = False, milvus_uri: str = "",
            token_cache: int | None = None) -> dict[str, float]:
    """Run the CLI's dry run (``write``: a real ingest into ``data_dir``) over ``path`` in a child
    process; its peak RSS (MiB), records, chunks written and seconds. A ``.jsonl`` file runs with the
    core profile, any other with the ``biomed`` profile. ``milvus_uri``: a Milvus server for the
    vectors instead of the embedded Milvus Lite under ``data_dir``; ``token_cache``: the size of the
    deterministic encoder's token-vector cache in the child (None: as it is)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EAGLE_RAG_", "EAGLE_BIOMED_"))}
    env.update({"EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic"})
    if milvus_uri:
        env["EAGLE_RAG_MILVUS__URI"] = milvus_uri
    if path.suffix == ".jsonl":
        env.update({"EAGLE_RAG_PROFILE": "general", "EAGLE_RAG_PLUGINS__ENABLED": "[]"})
    else:
        env.update({"EAGLE_RAG_PROFILE": "biomed", "EAGLE_BIOMED_ENCODER_MODE": "deterministic"})
    # VmHWM is the peak of this process's own memory since its exec; ru_maxrss is not: Linux carries the
    # parent's resident size over a vfork + exec into it (341 MiB after writing the SD file in-process)
    code = ("import resource, sys\n"
            "from eagle_rag.cli.app import main\n"
            "def peak_kb():\n"
            "    try:\n"
            "        with open('/proc/self/status') as status:\n"
            "            return next(int(l.split()[1]) for l in status if l.startswith('VmHWM:'))\n"
            "    except (OSError, StopIteration):\n"
            "        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "try:\n    main(sys.argv[1:])\n"
            "finally:\n"
            "    print('PEAK_RSS_KB', peak_kb(), file=sys.stderr)\n")
    if token_cache is not None:
        code = TOKEN_CACHE.format(size=token_cache) + code
    started = time.perf_counter()
    dry = [] if write else ["--dry-run"]
    done = subprocess.run([sys.executable, "-c", code, "ingest", str(path), "--kb", "bench", *dry, "--json"],
                          env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    peak = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_RSS_KB"))
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"ingest of {path} printed no report (rc {done.returncode}): {done.stderr[-2000:]}") from exc
    [counts] = report["files_detail"]
    return {"peak_mib": peak / 1024, "records": counts["records"], "valid": counts["ingested"],
            "bad": counts["failed"], "chunks": report["chunks"], "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=sorted(FORMATS), default="jsonl")
    parser.add_argument("--large-mb", type=int, default=1024)
    parser.add_argument("--small-mb", type=int, default=10)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--write", action="store_true", help="a real ingest (stores written) instead of a dry run")
    parser.add_argument("--store-process", action="store_true",
                        help="run Milvus Lite as its own process (milvus.uri = http://127.0.0.1:PORT) and report "
                             "its memory apart from the ingest's")
    parser.add_argument("--token-cache", type=int, default=None, metavar="N",
                        help="bound the deterministic encoder's token-vector cache to N tokens in the ingest "
                             "(default: as it is, 8,192)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="eagle-ingest-mem-", dir=args.dir))
    rows = []
    try:
        for label, mb in (("small", args.small_mb), ("large", args.large_mb)):
            suffix, write = FORMATS[args.format]
            path = work / f"{label}{suffix}"
            started = time.perf_counter()
            records = write(path, mb * 1024 * 1024)
            print(f"generated {path} ({path.stat().st_size / 2**20:.0f} MiB, {records} records) "
                  f"in {time.perf_counter() - started:.0f} s", flush=True)
            if args.store_process:
                with store_process(work / f"store-{label}") as server:
                    result = dry_run(path, work / f"data-{label}", args.write, server.uri, args.token_cache)
                    store = server.memory_kb()
                result.update({"store_peak_mib": store["hwm"] / 1024, "store_rss_mib": store["rss"] / 1024,
                               "store_start_mib": store["start"] / 1024})
            else:
                result = dry_run(path, work / f"data-{label}", args.write, token_cache=args.token_cache)
            rows.append((label, path.stat().st_size, result))
            if not args.keep:
                path.unlink()
    finally:
        if not args.keep:
            subprocess.run(["rm", "-rf", str(work)], check=False)
    run = "ingest" if args.write else "dry-run"
    where = ", Milvus Lite in its own process" if args.store_process else ""
    if args.token_cache is not None:
        where += f", token cache {args.token_cache}"
    print(f"\n{args.format}, {run}{where}:\n| file | size | records | bad | chunks | {run} s | records/s | "
          f"peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|")
    for label, size, r in rows:
        print(f"| {label} | {size / 2**20:.0f} MiB | {r['records']:.0f} | {r['bad']:.0f} | {r['chunks']:.0f} | "
              f"{r['seconds']:.1f} | {r['records'] / r['seconds']:.0f} | {r['peak_mib']:.0f} |")
    ratio = rows[1][2]["peak_mib"] / rows[0][2]["peak_mib"]
    print(f"\npeak RSS large / small: {ratio:.3f} (target <= 1.2): {'ok' if ratio <= 1.2 else 'OVER'}")
    if args.store_process:
        print("\nstore process (Milvus Lite server):\n| file | chunks | RSS listening MiB | peak RSS MiB | "
              "RSS at end MiB |\n|---|---|---|---|---|")
        for label, _, r in rows:
            print(f"| {label} | {r['chunks']:.0f} | {r['store_start_mib']:.0f} | {r['store_peak_mib']:.0f} | "
                  f"{r['store_rss_mib']:.0f} |")
        (_, _, small), (_, _, large) = rows
        if large["chunks"] > small["chunks"]:
            per_chunk = (large["store_rss_mib"] - small["store_rss_mib"]) * 1024 / (large["chunks"] - small["chunks"])
            print(f"store peak RSS large / small: {large['store_peak_mib'] / small['store_peak_mib']:.3f}; "
                  f"store RSS per chunk written (large - small): {per_chunk:.1f} KiB")
    print(f"this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

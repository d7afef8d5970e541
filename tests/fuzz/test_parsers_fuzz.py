"""Parser fuzzing (hypothesis, bounded): no input makes a parser fail with anything but IngestError.

Inputs are real seed files mutated byte-wise and with format tokens (``targets.mutate``), plus
arbitrary bytes and text. ``EAGLE_RAG_FUZZ_EXAMPLES`` sets examples per target (default 100 here;
``bench/fuzz_parsers.py`` runs thousands). Regressions found by fuzzing are pinned in
``test_parser_regressions.py``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import TOKENS, mutate, run_target, seeds, token_kind

EXAMPLES = int(os.environ.get("EAGLE_RAG_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="EAGLE_RAG_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
OPS = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 2**20), st.integers(0, 2**16), st.integers(0, 2**16)),
               min_size=1, max_size=12)
TARGETS = sorted(seeds())

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("target", TARGETS)
def test_seeds_parse(target: str) -> None:
    for seed in seeds()[target]:
        assert run_target(target, seed), f"seed of {target} did not parse"


@pytest.mark.parametrize("target", TARGETS)
@FUZZ
@given(data=st.data())
def test_mutated_seeds_fail_only_with_ingest_error(target: str, data: st.DataObject) -> None:
    seed = data.draw(st.sampled_from(seeds()[target]))
    run_target(target, mutate(seed, data.draw(OPS), TOKENS[token_kind(target)]))


@pytest.mark.parametrize("target", TARGETS)
@FUZZ
@given(raw=st.one_of(st.binary(max_size=2048), st.text(max_size=500).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_arbitrary_bytes_fail_only_with_ingest_error(target: str, raw: bytes) -> None:
    run_target(target, raw)

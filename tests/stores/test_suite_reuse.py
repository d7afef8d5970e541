"""An outside store can run the shared suites of ``eagle_rag.testing``: a test module written as a
third party would write it runs in a separate pytest, one class providing its fixture (and passing),
the others forgetting one (and failing at setup with a message that names the fixture)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.test_plugin_contract import imported_modules

import eagle_rag
import eagle_rag.testing
from eagle_rag.testing import DocumentRegistrySuite, LexicalIndexSuite, VectorStoreSuite

SUITES = (DocumentRegistrySuite, VectorStoreSuite, LexicalIndexSuite)
PACKAGE = Path(eagle_rag.__file__).resolve().parent

OUTSIDE_TESTS = '''
import pytest

from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.registry import SqlDocumentRegistry
from eagle_rag.testing import DocumentRegistrySuite, LexicalIndexSuite, VectorStoreSuite


class TestOutsideRegistry(DocumentRegistrySuite):
    @pytest.fixture
    def registry(self, tmp_path):
        reg = SqlDocumentRegistry(f"sqlite:///{tmp_path / 'outside.db'}")
        yield reg
        reg.close()


class TestForgotRegistry(DocumentRegistrySuite):
    pass


class TestForgotStore(VectorStoreSuite):
    pass


class TestForgotCollection(VectorStoreSuite):
    @pytest.fixture
    def store(self, tmp_path):
        return MilvusVectorStore(tmp_path / "never-opened.db")  # lazy: nothing starts


class TestForgotIndex(LexicalIndexSuite):
    pass
'''


def suite_tests(suite: type) -> list[str]:
    return sorted(name for name, member in inspect.getmembers(suite, inspect.isfunction)
                  if name.startswith("test_"))


def run_outside(tmp_path: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """Run ``OUTSIDE_TESTS`` in a fresh pytest; {class: {test: (outcome, message)}} from its JUnit XML."""
    (tmp_path / "test_outside_store.py").write_text(textwrap.dedent(OUTSIDE_TESTS), encoding="utf-8")
    report = tmp_path / "report.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "test_outside_store.py", "-q", "-p", "no:cacheprovider",
         f"--rootdir={tmp_path}", "-o", "addopts=", f"--junitxml={report}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # 1: some tests failed, none crashed pytest
    results: dict[str, dict[str, tuple[str, str]]] = {}
    for case in ET.parse(report).iter("testcase"):
        cls = case.attrib["classname"].rsplit(".", 1)[-1]
        problem = next(iter(case), None)
        outcome = "passed" if problem is None else problem.tag
        message = "" if problem is None else problem.attrib.get("message", "")
        results.setdefault(cls, {})[case.attrib["name"]] = (outcome, message)
    return results


@pytest.mark.unit
def test_the_package_exports_the_three_suites() -> None:
    assert sorted(eagle_rag.testing.__all__) == ["DocumentRegistrySuite", "LexicalIndexSuite", "VectorStoreSuite"]
    counts = {suite.__name__: len(suite_tests(suite)) for suite in SUITES}
    assert counts == {"DocumentRegistrySuite": 14, "VectorStoreSuite": 10, "LexicalIndexSuite": 13}
    assert not any(suite.__name__.startswith("Test") for suite in SUITES)  # collected only when subclassed


@pytest.mark.unit
def test_suites_use_only_the_protocols_and_the_core_never_imports_them() -> None:
    backend = ("eagle_rag.stores.milvus", "eagle_rag.stores.lexical", "eagle_rag.stores.registry",
               "eagle_rag.stores.postgres")
    for path in sorted((PACKAGE / "testing").glob("*.py")):
        modules = [m for _, m in imported_modules(path.read_text(encoding="utf-8"))]
        assert not [m for m in modules if m.startswith(backend)], path.name
    offenders = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                 if "testing" not in path.relative_to(PACKAGE).parts[:1]
                 and any(m.startswith("eagle_rag.testing") or m == "pytest"
                         for _, m in imported_modules(path.read_text(encoding="utf-8")))]
    assert offenders == []


@pytest.mark.integration
def test_an_outside_store_runs_the_suites(tmp_path: Path) -> None:
    results = run_outside(tmp_path)
    expected_tests = {
        "TestOutsideRegistry": suite_tests(DocumentRegistrySuite),
        "TestForgotRegistry": suite_tests(DocumentRegistrySuite),
        "TestForgotStore": suite_tests(VectorStoreSuite),
        "TestForgotCollection": suite_tests(VectorStoreSuite),
        "TestForgotIndex": suite_tests(LexicalIndexSuite),
    }
    assert {cls: sorted(tests) for cls, tests in results.items()} == expected_tests
    assert {outcome for outcome, _ in results["TestOutsideRegistry"].values()} == {"passed"}
    forgotten = {"TestForgotRegistry": ("registry", "DocumentRegistrySuite"),
                 "TestForgotStore": ("store", "VectorStoreSuite"),
                 "TestForgotCollection": ("collection", "VectorStoreSuite"),
                 "TestForgotIndex": ("index", "LexicalIndexSuite")}
    for cls, (fixture, suite) in forgotten.items():
        for test, (outcome, message) in results[cls].items():
            if cls == "TestForgotCollection" and test == "test_implements_protocol":
                assert outcome == "passed"  # needs only `store`, which this class provides
                continue
            assert outcome == "error", (cls, test)
            assert message.startswith(f"failed on setup with \"Failed: {cls} subclasses {suite} but does not "
                                      f"provide the `{fixture}` fixture: override `{fixture}` in {cls}"), message

"""What the suites share: the failure of a fixture that a subclass forgot to provide."""

from __future__ import annotations

from typing import NoReturn

import pytest


def missing_fixture(test: object, suite: type, name: str, provides: str) -> NoReturn:
    """Fail the test at setup, naming the fixture to override and what it must provide.

    Raises:
        pytest.fail.Exception: always; pytest reports it as an error in the test's setup.
    """
    pytest.fail(
        f"{type(test).__name__} subclasses {suite.__name__} but does not provide the `{name}` fixture: "
        f"override `{name}` in {type(test).__name__} with a pytest fixture that returns (or yields) {provides}.",
        pytrace=False,
    )

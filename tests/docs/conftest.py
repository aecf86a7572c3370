"""pytest options of the docs runner (tests/docs/test_docs.py)."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--spindle", default="build/spindle",
                     help="the spindle binary the documented commands run")


@pytest.fixture(scope="session")
def spindle_binary(request):
    return request.config.getoption("--spindle")

"""pytest loads this file for tests/integration; the fixtures and hooks live in
spindle_harness.py so that tests/apps shares them."""

from spindle_harness import *  # noqa: F401,F403

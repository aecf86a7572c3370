"""The app tests run the real spindle binary through the same harness as tests/integration
(fixtures `spindle`, `spindle_run`, the tear-down checks)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))

from spindle_harness import *  # noqa: E402,F401,F403

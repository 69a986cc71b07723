"""``python -m firmware_bridge``: the ``oche`` command, for a checkout or a
venv whose console script is not on ``PATH``."""

from __future__ import annotations

import sys

from firmware_bridge.cli.main import main

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())

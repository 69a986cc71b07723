"""The board firmware's modules, imported under the top-level names they have
on the board (``import frames``, ``from compat import ...``).

firmware_bridge/mcu/ is put on ``sys.path`` only while they import, and their
top-level names are taken out of ``sys.modules`` again afterwards, so nothing
leaks into other tests: use the module objects this file exports.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

MCU_DIR = Path(__file__).resolve().parents[2] / "firmware_bridge" / "mcu"
NAMES = ("compat", "debounce", "coins", "frames", "matrix_scan", "oche_config", "main")
"""Every firmware module, dependencies first."""


def load_firmware() -> dict[str, ModuleType]:
    """Fresh module objects for every firmware module, by name."""
    saved_path = list(sys.path)
    saved_modules = {name: sys.modules.get(name) for name in NAMES}
    for name in NAMES:
        sys.modules.pop(name, None)
    sys.path.insert(0, str(MCU_DIR))
    try:
        return {name: importlib.import_module(name) for name in NAMES}
    finally:
        sys.path[:] = saved_path
        for name, module in saved_modules.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


_modules = load_firmware()
compat = _modules["compat"]
frames = _modules["frames"]
coins = _modules["coins"]
debounce = _modules["debounce"]
matrix_scan = _modules["matrix_scan"]
oche_config = _modules["oche_config"]
main = _modules["main"]

"""The firmware under a real MicroPython: micropython_check.py must print the
same under MicroPython as under CPython.

Runs when a MicroPython is at hand: the unix port as ``micropython`` on PATH
(or at $OCHE_MICROPYTHON), or the WebAssembly port under node, with
$OCHE_MICROPYTHON_WASM naming the folder of the npm package
@micropython/micropython-webassembly-pyscript. Skipped otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.firmware.mcu import MCU_DIR

CHECK = Path(__file__).with_name("micropython_check.py")

WASM_RUNNER = """
import fs from "fs";
const { loadMicroPython } = await import(process.argv[2] + "/micropython.mjs");
let out = "";
const mp = await loadMicroPython({ stdout: (line) => { out += line + "\\n"; } });
const dir = process.argv[3];
for (const name of fs.readdirSync(dir)) {
  if (name.endsWith(".py")) mp.FS.writeFile("/" + name, fs.readFileSync(dir + "/" + name));
}
try {
  mp.runPython(fs.readFileSync(process.argv[4], "utf8"));
} catch (error) {
  process.stdout.write(out);
  console.error(error.message);
  process.exit(1);
}
process.stdout.write(out);
"""


def micropython_command(tmp_path: Path) -> list[str] | None:
    unix = os.environ.get("OCHE_MICROPYTHON") or shutil.which("micropython")
    if unix:
        return [unix, str(CHECK)]
    wasm = os.environ.get("OCHE_MICROPYTHON_WASM")
    node = shutil.which("node")
    if wasm and node and (Path(wasm) / "micropython.mjs").is_file():
        runner = tmp_path / "run.mjs"
        runner.write_text(WASM_RUNNER)
        return [node, str(runner), str(Path(wasm).resolve()), str(MCU_DIR), str(CHECK)]
    return None


def run(command: list[str]) -> str:
    env = {**os.environ, "MICROPYPATH": str(MCU_DIR), "PYTHONPATH": str(MCU_DIR)}
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_micropython_runs_the_firmware_as_cpython_does(tmp_path: Path) -> None:
    command = micropython_command(tmp_path)
    if command is None:
        pytest.skip(
            "no MicroPython here (micropython, $OCHE_MICROPYTHON or $OCHE_MICROPYTHON_WASM)"
        )
    expected = run([sys.executable, "-B", str(CHECK)])
    assert "$I,0,1,3,2,oche-mcu-" in expected
    assert " S " in expected and " R " in expected
    assert run(command) == expected

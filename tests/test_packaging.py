"""What the package says about itself and what the checkout's files say: the
licence and metadata in the installed distribution, the extras, the Makefile
and the docs that list the games and scenes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from engine import game_ids
from firmware_bridge.cli.command_support import EXTRAS
from tests.paths import REPO

ROOT = REPO


def test_the_distribution_ships_the_mit_licence() -> None:
    dist = metadata.distribution("oche")
    assert dist.metadata["License-Expression"] == "MIT"
    licence = next(f for f in dist.files or [] if f.name == "LICENSE")
    text = licence.read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 The Oche developers\n")
    assert text == (ROOT / "LICENSE").read_text("utf-8")


def test_keywords_and_classifiers() -> None:
    meta = metadata.metadata("oche")
    assert "darts" in (meta["Keywords"] or "").split(",")
    classifiers = meta.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Topic :: Games/Entertainment" in classifiers


def test_the_extras_hold_what_the_daemon_does_not_need() -> None:
    meta = metadata.metadata("oche")
    extras = set(meta.get_all("Provides-Extra") or [])
    assert {
        "display",
        "usb",
        "ble",
        "broker",
        "firmware",
        "leaderboard",
        "cards",
        "all",
        "test",
    } <= extras
    assert set(EXTRAS.values()) <= extras
    core = [req for req in meta.get_all("Requires-Dist") or [] if "extra ==" not in req]
    names = {re.split(r"[<>=;\[ ]", req, maxsplit=1)[0].lower() for req in core}
    # paho-mqtt comes with aiomqtt; named itself because its version is pinned
    assert names == {
        "pyserial",
        "pyserial-asyncio-fast",
        "aiomqtt",
        "paho-mqtt",
        "tomli-w",
        "numpy",
    }
    assert (
        'oche[ble,broker,cards,display,firmware,leaderboard,usb]; extra == "all"'
        in meta.get_all("Requires-Dist")
    )


def test_the_readme_says_what_each_extra_adds() -> None:
    extras = set(metadata.metadata("oche").get_all("Provides-Extra") or []) - {"test"}
    readme = (ROOT / "README.md").read_text("utf-8")
    assert {extra for extra in extras if f"`oche[{extra}]`" not in readme} == set()


def test_the_web_test_client_imports_without_a_warning() -> None:
    """Starlette's TestClient warns that httpx is deprecated unless httpx2 (in
    the test extra) is installed: the suite's warnings summary stays empty."""
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import fastapi.testclient"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_the_sdist_ships_the_docs_and_the_deployment_files(tmp_path: Path) -> None:
    """The source release is what a packager builds from: the README links
    docs/, and docs/deploy.md installs from deploy/."""
    import tarfile

    built = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom setuptools import build_meta\n"
         "print(build_meta.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    with tarfile.open(tmp_path / built.stdout.split()[-1]) as sdist:
        shipped = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    wanted = {
        path.relative_to(ROOT).as_posix()
        for folder in ("docs", "deploy")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert wanted and wanted - shipped == set()


def test_make_installs_every_extra() -> None:
    assert "pip install --quiet -e '.[all,test]'" in (ROOT / "Makefile").read_text("utf-8")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("uid", "sudo"), [("0", False), ("1000", True)], ids=["root", "user"])
def test_make_mosquitto_uses_sudo_unless_root(tmp_path: Path, uid: str, sudo: bool) -> None:
    """No mosquitto on PATH: ``make -n`` shows how it would be installed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_id = bin_dir / "id"
    fake_id.write_text(f"#!/bin/sh\necho {uid}\n", "utf-8")
    fake_id.chmod(0o755)
    make = shutil.which("make")
    assert make is not None
    result = subprocess.run(
        [make, "-n", "-f", str(ROOT / "Makefile"), "mosquitto"],
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "apt-get install -y -qq mosquitto" in result.stdout
    assert ("sudo apt-get update" in result.stdout) is sudo
    assert ("sudo apt-get install" in result.stdout) is sudo


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_installs_chromium_without_its_recommended_packages() -> None:
    """Debian's chromium recommends ~125 packages the headless tests never use."""
    make = shutil.which("make")
    assert make is not None
    recipe = subprocess.run(
        [make, "-n", "-B", "-f", str(ROOT / "Makefile"), "chromium"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "apt-get install -y -qq --no-install-recommends chromium" in recipe, recipe


def test_the_readme_counts_the_games_and_promises_no_scenes() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "the ten games" not in readme
    assert "follow" not in readme.split("## Set-up")[0]
    for game_id in game_ids():
        assert f"| `{game_id}` |" in readme


def test_docs_display_names_every_scene_module() -> None:
    row = next(
        line
        for line in (ROOT / "docs" / "display.md").read_text("utf-8").splitlines()
        if line.startswith("| `scenes/` |")
    )
    modules = {
        path.stem for path in (ROOT / "display" / "scenes").glob("*.py") if path.stem != "__init__"
    }
    assert {name for name in modules if f"`{name}.py`" not in row} == set()

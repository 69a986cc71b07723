"""``oche leaderboard``: import, show, rename, forget and serve's checks, on a
real SQLite file and a real PostgreSQL database; bad input exits 2 with one
line on stderr."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import pytest

from firmware_bridge.cli.main import main
from firmware_bridge.daemon.config import ConfigError, parse_config
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.mqtt_harness import eventually, publish
from tests.leaderboard.result_documents import result_document
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = ["postgres_url", "sqlite_or_postgres_url"]

OCHE = Path(sys.executable).parent / "oche"


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A user without a config file, whose state lives in ``tmp_path``."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["leaderboard", *args])
    out, err = capsys.readouterr()
    return status, out, err


def x01(players: list[str], result_id: str, board: str = "board1") -> dict[str, Any]:
    document = result_document(
        "x01", X01_MOVES, players=players, options={"start": 301}, board=board
    )
    document["result_id"] = result_id
    return document


def write_lines(path: Path, lines: list[bytes]) -> str:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return str(path)


def test_import_then_show(
    sqlite_or_postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tampered = x01(["Cy", "Dee"], "tampered")
    tampered["winner"] = 1
    results = write_lines(
        tmp_path / "results.jsonl",
        [
            as_payload(x01(["Ann", "Bob"], "first")),
            b"",
            as_payload(x01(["Ann", "Bob"], "first")),
            b"this line is not JSON",
            as_payload(tampered),
            as_payload(x01(["Ann", "Cy"], "second")),
        ],
    )
    db = ["--db", sqlite_or_postgres_url]
    status, out, err = run(capsys, "import", results, *db)
    assert (status, err) == (0, "")
    summary = json.loads(out)
    assert (summary["imported"], summary["duplicates"]) == (2, 1)
    assert [entry["result_id"] for entry in summary["rejected"]] == [None, "tampered"]
    assert summary["rejected"][0]["reason"].startswith("not JSON")
    assert "winner" in summary["rejected"][1]["reason"]

    status, out, err = run(capsys, "show", "--game", "x01", "--period", "all", "--json", *db)
    assert (status, err) == (0, "")
    rows = json.loads(out)
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert (rows[0]["player"], rows[0]["played"], rows[0]["won"]) == ("Ann", 2, 2)
    assert {(row["player"], row["played"], row["won"]) for row in rows[1:]} == {
        ("Bob", 1, 0),
        ("Cy", 1, 0),
    }
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
    ann = rows[0]
    assert ann["player"] == "Ann"
    assert ann["three_dart_average"] == 150.5
    assert {"rating", "first9_average", "checkout_percent", "highest_checkout"} <= set(ann)
    assert {"best_leg_darts", "count_100", "count_140", "count_180"} <= set(ann)
    assert (ann["legs_won"], ann["legs_lost"]) == (2, 0)  # two games: one-leg matches

    status, out, _ = run(capsys, "show", "--game", "x01", *db)
    header, first, *_ = out.splitlines()
    assert header.split() == [
        "#", "PLAYER", "VENUE", "PLAYED", "WON", "LEGS", "WIN%", "RATING",
        "3DA", "FIRST9", "CO%", "HI-CO", "BEST", "100+", "140+", "180",
    ]  # fmt: skip
    assert first.split()[:6] == ["1", "Ann", "home", "2", "2", "2-0"]
    status, out, _ = run(capsys, "show", "--game", "killer", "--period", "day", *db)
    assert (status, out) == (0, "no killer games in this period (day)\n")


def test_import_reads_stdin_and_the_default_database(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OCHE_CONFIG"}
    env |= {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    result = subprocess.run(
        [str(OCHE), "leaderboard", "import", "-"],
        input=as_payload(x01(["Ann", "Bob"], "from-stdin")) + b"\n{}\n",
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["imported"], summary["duplicates"], len(summary["rejected"])) == (1, 0, 1)
    assert (tmp_path / "state" / "oche" / "leaderboard.sqlite3").is_file()


def test_the_config_names_the_database_and_the_venues(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "oche.toml"
    config.write_text(
        f'[leaderboard]\ndb = "sqlite:///{tmp_path}/from-config.sqlite3"\n'
        '[leaderboard.venues]\npub-1 = "The Crown"\n',
        "utf-8",
    )
    results = write_lines(tmp_path / "r.jsonl", [as_payload(x01(["Ann", "Bob"], "r", "pub-1"))])
    assert run(capsys, "import", results, "--config", str(config))[0] == 0
    assert (tmp_path / "from-config.sqlite3").is_file()
    _, out, _ = run(
        capsys, "show", "--game", "x01", "--venue", "The Crown", "--json", "--config", str(config)
    )
    assert [row["venue"] for row in json.loads(out)] == ["The Crown", "The Crown"]


def test_rename_and_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    results = write_lines(
        tmp_path / "r.jsonl",
        [as_payload(x01(["Ann", "Bob"], "a")), as_payload(x01(["Annie", "Bob"], "b"))],
    )
    run(capsys, "import", results, *db)
    assert run(capsys, "rename", "annie", "Ann", *db) == (
        0,
        "merged 'annie' into 'Ann' at home (1 game)\n",
        "",
    )
    nowhere = f"mqtt://127.0.0.1:{free_port()}"  # no broker: the snapshots are not republished
    status, out, err = run(capsys, "forget", "BOB", "--mqtt", nowhere, *db)
    assert (status, out) == (
        0,
        "forgot 'BOB' at home: their name and ratings are deleted; 2 games stay as "
        "'forgotten player'\n",
    )
    assert err.startswith(f"oche leaderboard: the retained snapshots on {nowhere} may still")
    _, out, _ = run(capsys, "show", "--game", "x01", "--json", *db)
    assert [(row["player"], row["played"]) for row in json.loads(out)] == [("Ann", 2)]
    assert run(capsys, "forget", "Bob", *db) == (
        2,
        "",
        "oche leaderboard: no player called 'Bob'\n",
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["show", "--game", "x01", "--db", "mysql://x/y"], "oche leaderboard: --db: 'mysql'"),
        (
            ["show", "--game", "x01", "--db", "postgresql+psycopg://nobody@127.0.0.1:9/none"],
            "oche leaderboard: cannot open the database postgresql+psycopg://nobody@",
        ),
        (["import", "/no/such/file.jsonl"], "oche leaderboard: cannot read '/no/such/file.jsonl'"),
        (["serve", "--http", "8080"], "oche leaderboard: --http '8080' is not HOST:PORT"),
        (["serve", "--http", "0.0.0.0:99999"], "the port must be 1 to 65535"),
        (["serve", "--mqtt", "http://broker"], "oche leaderboard: --mqtt 'http://broker': "),
        (["serve", "--client-id", "lb one"], "oche leaderboard: --client-id 'lb one': must not"),
        (["rename", "Ann", " ", "--db", "sqlite://"], "oche leaderboard: the new name is blank"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    status, out, err = run(capsys, *args)
    assert (status, out) == (2, "")
    assert said in err
    assert err.count("\n") == 1


def test_the_command_list_loads_no_database_library() -> None:
    script = (
        "import sys\nfrom firmware_bridge.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('sqlalchemy', 'alembic', 'psycopg', 'openskill', 'leaderboard')"
        " if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


async def test_serve_stores_what_a_board_publishes_and_serves_it(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    port = free_port()
    config = tmp_path / "oche.toml"
    config.write_text('[leaderboard.venues]\nboard1 = "The Crown"\n', "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "OCHE_CONFIG"}
    database = f"sqlite:///{tmp_path}/served.sqlite3"
    argv = [str(OCHE), "leaderboard", "serve", "--config", str(config), "--db", database]
    argv += ["--mqtt", mosquitto.url, "--http", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    document = x01(["Ann", "Bob"], "served")

    async def served() -> bool:
        # published until the service's subscription takes it (a redelivery is a duplicate)
        await publish(mosquitto, [("oche/board1/result", as_payload(document))])
        try:
            async with httpx.AsyncClient() as client:
                answer = await client.get(
                    f"http://127.0.0.1:{port}/api/leaderboard",
                    params={"game": "x01", "period": "all"},
                    timeout=2,
                )
        except httpx.HTTPError:
            return False
        rows = answer.json() if answer.status_code == 200 else []
        return [(row["player"], row["venue"]) for row in rows] == [
            ("Ann", "The Crown"),
            ("Bob", "The Crown"),
        ]

    try:
        await eventually(served, timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    assert "Traceback" not in err, err
    # Where the pages are is logged (the default log level is info).
    assert (
        f"oche: INFO leaderboard.service: serving http://127.0.0.1:{port}/ "
        f"(database {database})" in err.splitlines()
    ), err


@pytest.mark.slow
@pytest.mark.parametrize("flag", [False, True], ids=["config-client-id", "client-id-flag"])
async def test_serve_logs_in_with_the_configs_mqtt_account_and_client_id(
    tmp_path: Path, flag: bool
) -> None:
    # As `oche run` does: [mqtt] username and password_file (the URL has none)
    # on a broker that refuses anonymous clients, under the deployed ACL; the
    # session's client id is [leaderboard] client_id, or --client-id.
    from tests.daemon.test_deploy_acl import (
        ACL,
        MOSQUITTO_PASSWD,
        make_password_file,
        password,
    )

    if MOSQUITTO_PASSWD is None:
        pytest.skip("needs mosquitto_passwd (apt-get install -y mosquitto)")
    passwd = tmp_path / "passwd"
    make_password_file(passwd, ("leaderboard1", "board1"))
    broker = MosquittoBroker(
        tmp_path / "broker",
        extra_config=f"password_file {passwd}\nacl_file {ACL}\nlog_type all\n",
    )
    broker.start()
    secret = tmp_path / "leaderboard1.password"
    secret.write_text(password("leaderboard1") + "\n", "utf-8")
    config = tmp_path / "oche.toml"
    config.write_text(
        f'[mqtt]\nurl = "{broker.url}"\nusername = "leaderboard1"\npassword_file = "{secret}"\n'
        '[leaderboard]\nclient_id = "lb-from-config"\n',
        "utf-8",
    )
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "OCHE_CONFIG"}
    argv = [str(OCHE), "leaderboard", "serve", "--config", str(config)]
    argv += ["--db", f"sqlite:///{tmp_path}/served.sqlite3", "--http", f"127.0.0.1:{port}"]
    client_id = "lb-from-flag" if flag else "lb-from-config"
    if flag:
        argv += ["--client-id", client_id]
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    document = x01(["Ann", "Bob"], "authenticated")

    async def served() -> bool:
        """the result a board published is served"""
        async with aiomqtt.Client(
            broker.host, broker.port, username="board1", password=password("board1")
        ) as board:
            await board.publish("oche/board1/result", as_payload(document), qos=1)
        try:
            async with httpx.AsyncClient() as client:
                answer = await client.get(
                    f"http://127.0.0.1:{port}/api/results/authenticated", timeout=2
                )
        except httpx.HTTPError:
            return False
        return answer.status_code == 200

    try:
        await eventually(served, timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
        broker.stop()
    assert "Traceback" not in err, err
    log = broker.log.read_text("utf-8", "replace")
    assert f"as {client_id} " in log and "u'leaderboard1'" in log, log


# ------------------------------------------- reading a database that is not there


def oche_leaderboard(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``oche leaderboard ARGS``, for a user without a config file."""
    env = {k: v for k, v in os.environ.items() if k != "OCHE_CONFIG"}
    env |= {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    return subprocess.run(
        [str(OCHE), "leaderboard", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("show", "--game", "x01"),
        ("rename", "Ann", "Annie"),
        ("forget", "Ann"),
    ],
)
def test_a_command_that_reads_refuses_a_database_that_is_not_there(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A typo in --db must not make an empty database and report no games."""
    typo = tmp_path / "typo" / "x.db"
    result = oche_leaderboard(tmp_path, *args, "--db", f"sqlite:///{typo}")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr == (
        f"oche leaderboard: there is no leaderboard database at {typo}: check --db or "
        "[leaderboard] db (oche leaderboard import or serve creates one)\n"
    )
    assert not typo.parent.exists()
    default = oche_leaderboard(tmp_path, *args)  # the default file, before any game
    assert default.returncode == 2, default.stderr
    assert "there is no leaderboard database at " in default.stderr
    assert not (tmp_path / "state" / "oche").exists()


def test_show_refuses_a_postgresql_database_that_is_not_there(
    tmp_path: Path, postgres_url: str
) -> None:
    """PostgreSQL creates no database on connecting: the server's refusal is named."""
    missing = postgres_url.rsplit("/", 1)[0] + "/oche_no_such_database"
    result = oche_leaderboard(tmp_path, "show", "--game", "x01", "--db", missing)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.startswith(f"oche leaderboard: cannot open the database {missing}: ")
    assert 'database "oche_no_such_database" does not exist' in result.stderr


def test_show_at_a_venue_with_no_games_names_the_venues_there_are(tmp_path: Path) -> None:
    config = tmp_path / "oche.toml"
    config.write_text('[leaderboard.venues]\npub-1 = "The Crown"\n', "utf-8")
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3", "--config", str(config)]
    results = write_lines(
        tmp_path / "r.jsonl",
        [as_payload(x01(["Ann", "Bob"], "a", "pub-1")), as_payload(x01(["Cy", "Di"], "b"))],
    )
    assert oche_leaderboard(tmp_path, "import", results, *db).returncode == 0
    result = oche_leaderboard(tmp_path, "show", "--game", "x01", "--venue", "Nowhere", *db)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr == (
        "oche leaderboard: --venue 'Nowhere': no games were played there; "
        "the venues are 'home', 'The Crown'\n"
    )
    crown = oche_leaderboard(tmp_path, "show", "--game", "x01", "--venue", "The Crown", *db)
    assert crown.returncode == 0 and "Ann" in crown.stdout and "Cy" not in crown.stdout


def test_forget_counts_one_game_in_the_singular(tmp_path: Path) -> None:
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    results = write_lines(tmp_path / "r.jsonl", [as_payload(x01(["Ann", "Bob"], "a"))])
    assert oche_leaderboard(tmp_path, "import", results, *db).returncode == 0
    nowhere = f"mqtt://127.0.0.1:{free_port()}"  # no broker: the snapshots are not republished
    forgot = oche_leaderboard(tmp_path, "forget", "Bob", "--mqtt", nowhere, *db)
    assert forgot.returncode == 0, forgot.stderr
    assert forgot.stdout == (
        "forgot 'Bob' at home: their name and ratings are deleted; 1 game stays as "
        "'forgotten player'\n"
    )


def test_admin_password_prints_a_hash_that_opens_the_admin_views(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for short, says in (("", "no password on standard input"), ("seven77", "at least 8")):
        monkeypatch.setattr("sys.stdin", io.StringIO(short + "\n"))
        status, out, err = run(capsys, "admin-password", "--stdin")
        assert status == 2 and out == "" and says in err
        assert not short or short not in err
    monkeypatch.setattr("sys.stdin", io.StringIO("bar manager's secret\n"))
    status, out, err = run(capsys, "admin-password", "--stdin")
    assert status == 0 and "secret" not in out + err
    line = out.strip()
    assert re.fullmatch(r'admin_password_hash = "scrypt\$[^"]+"', line), line
    # The line goes into the config as it is, and the served admin view takes the password.
    config = tmp_path / "oche.toml"
    config.write_text(f"[leaderboard]\n{line}\n", "utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "OCHE_CONFIG"}
    argv = [str(OCHE), "leaderboard", "serve", "--config", str(config), "--mqtt", mosquitto.url]
    argv += ["--db", f"sqlite:///{tmp_path}/served.sqlite3", "--http", f"127.0.0.1:{port}"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/api/rejected"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                asked = httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the service did not answer"
                time.sleep(0.05)
        assert asked.status_code == 401 and "Basic" in asked.headers["www-authenticate"]
        assert httpx.get(url, auth=("x", "wrong password"), timeout=10).status_code == 401
        granted = httpx.get(url, auth=("any name", "bar manager's secret"), timeout=10)
        assert granted.status_code == 200 and granted.json() == []
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def test_a_password_in_clear_is_not_an_admin_password_hash(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"admin_password_hash: is not a password hash"):
        parse_config('[leaderboard]\nadmin_password_hash = "hunter22"\n', "oche.toml")


def test_live_stream_limits_below_one_are_refused() -> None:
    for key, value in (("max_live_streams", 0), ("max_live_streams_per_client", -1)):
        with pytest.raises(ConfigError, match=rf"leaderboard\.{key}: must be 1 to 100000"):
            parse_config(f"[leaderboard]\n{key} = {value}\n", "oche.toml")

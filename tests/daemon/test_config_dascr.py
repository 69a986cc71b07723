"""``[board] protocol = "dascr"`` (9600 baud, the DaSCR sensors) and the
checks of ``[board] sensors``."""

from __future__ import annotations

import pytest

from firmware_bridge.daemon.config import BoardConfig, Config, ConfigError, parse_config

DASCR_SENSORS = ("button", "piezo", "ultrasonic")


def board(text: str, overrides: tuple[str, ...] = ()) -> BoardConfig:
    config: Config = parse_config(text, "oche.toml", overrides)
    return config.board


def errors(text: str, overrides: tuple[str, ...] = ()) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "oche.toml", overrides)
    return caught.value.errors


def test_the_dascr_preset_sets_the_speed_and_the_sensors() -> None:
    dascr = board('[board]\nprotocol = "dascr"')
    assert (dascr.protocol, dascr.baudrate, dascr.sensors) == ("dascr", 9600, DASCR_SENSORS)
    spec = dascr.spec()
    assert (spec.baudrate, spec.sensors) == (9600, DASCR_SENSORS)


def test_the_preset_also_comes_from_set() -> None:
    dascr = board("", ('board.protocol="dascr"',))
    assert (dascr.baudrate, dascr.sensors) == (9600, DASCR_SENSORS)


def test_what_the_config_sets_wins_over_the_preset() -> None:
    own = board('[board]\nprotocol = "dascr"\nbaudrate = 115200\nsensors = ["button"]')
    assert (own.baudrate, own.sensors) == (115200, ("button",))
    none = board('[board]\nprotocol = "dascr"\nsensors = []')  # a board without sensors
    assert (none.baudrate, none.sensors) == (9600, ())
    from_set = board('[board]\nprotocol = "dascr"', ("board.baudrate=57600",))
    assert from_set.baudrate == 57600


def test_other_protocols_keep_the_plain_defaults() -> None:
    for protocol in ("oche", "darts-codes", "row-col"):
        plain = board(f'[board]\nprotocol = "{protocol}"')
        assert (plain.baudrate, plain.sensors) == (115200, ())


def test_darts_codes_with_the_dascr_sensors_by_hand() -> None:
    by_hand = board(
        '[board]\nprotocol = "darts-codes"\nbaudrate = 9600\n'
        'sensors = ["button", "piezo", "ultrasonic"]'
    )
    assert (by_hand.baudrate, by_hand.sensors) == (9600, DASCR_SENSORS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[board]\nprotocol = "dascr"\nsensors = ["button", "sonar"]',
            "board.sensors: unknown sensor 'sonar'; a board may have button, piezo, ultrasonic",
        ),
        (
            '[board]\nprotocol = "dascr"\nsensors = ["piezo", "piezo"]',
            "board.sensors: sensor 'piezo' is named twice",
        ),
        (
            '[board]\nprotocol = "dascr"\nsensors = "ultrasonic"',
            'board.sensors: expected an array of strings, got a string ("ultrasonic")',
        ),
        (
            '[board]\nsensors = ["ultrasonic"]',
            "board.sensors: an ultrasonic takeout sensor is a DaSCR board's (protocol "
            "darts-codes or dascr); a board speaking oche has none",
        ),
        (
            '[board]\nprotocol = "dascr"\nbaudrate = 0',
            "board.baudrate: must be at least 1, not 0",
        ),
    ],
)
def test_bad_sensors_are_named(text: str, expected: str) -> None:
    assert errors(text) == [expected]


def test_a_simulated_board_may_list_sensors_it_does_not_use() -> None:
    simulated = board('[board]\ndriver = "simulated"\nsensors = ["ultrasonic"]')
    assert simulated.sensors == ("ultrasonic",)

"""The firmware's frame encoder and host-line decoder against the pinned
vectors of docs/protocol.md and against the host's codec (drivers.protocol)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers import protocol
from tests.firmware.mcu import MCU_DIR, debounce, frames
from tests.protocol_vectors import InvalidVector, ValidVector, invalid_vectors, valid_vectors

VALID = valid_vectors()
INVALID = invalid_vectors()
HOST_TYPES = ("C", "?")


def test_the_vector_tables_were_read() -> None:
    assert len(VALID) >= 15
    assert len(INVALID) >= 11


def _string_constants_and_imports(path: Path) -> tuple[set[str], set[str]]:
    """Every string constant of a firmware module, and the modules it imports."""
    constants: set[str] = set()
    imports: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            constants.add(node.value)
        elif isinstance(node, ast.Import):
            imports.update(alias.name.rsplit(".", 1)[-1] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module.rsplit(".", 1)[-1])
            imports.update(alias.name for alias in node.names)
    return constants, imports


def test_only_frames_py_spells_the_frame_letters() -> None:
    """The debouncer and the scan loop name what happened; frames.py alone
    turns that into the wire's type letters, so they are written once."""
    letters = set(protocol.FRAME_TYPES)
    others = sorted(path for path in MCU_DIR.glob("*.py") if path.name != "frames.py")
    assert [path.name for path in others] == [
        "coins.py",
        "compat.py",
        "debounce.py",
        "main.py",
        "matrix_scan.py",
        "oche_config.py",
    ]
    for path in others:
        constants, _ = _string_constants_and_imports(path)
        assert not constants & letters, f"{path.name} spells frame letters {constants & letters}"
    for name in ("debounce.py", "coins.py"):
        _, imported = _string_constants_and_imports(MCU_DIR / name)
        assert "frames" not in imported, name
    assert set(frames.LETTERS) == letters


def test_frames_py_maps_every_kind_the_debouncer_reports() -> None:
    kinds = debounce.KINDS
    assert set(kinds) == {debounce.HIT, debounce.STUCK, debounce.RELEASED}
    assert len(set(kinds)) == len(kinds)
    assert not set(kinds) & set(protocol.FRAME_TYPES)  # names, not letters
    assert frames.CELL_FRAMES == {
        debounce.HIT: protocol.Hit.TYPE,
        debounce.STUCK: protocol.Stuck.TYPE,
        debounce.RELEASED: protocol.Released.TYPE,
    }
    # A button's hit is a B frame; a held button is never stuck or released.
    assert frames.BUTTON_FRAMES == {debounce.HIT: protocol.Button.TYPE}


def test_crc_check_value() -> None:
    assert frames.crc16(b"123456789") == 0x29B1
    assert frames.crc16(b"") == 0xFFFF


@pytest.mark.parametrize("vector", VALID, ids=lambda v: v.line.decode())
def test_the_encoder_produces_every_valid_vector(vector: ValidVector) -> None:
    line = frames.encode(vector.type, vector.seq, vector.fields)
    assert line == vector.line + b"\n"


@pytest.mark.parametrize(
    "vector", [v for v in VALID if v.type in HOST_TYPES], ids=lambda v: v.line.decode()
)
def test_the_host_decoder_reads_every_valid_host_vector(vector: ValidVector) -> None:
    kind, seq, key, value = frames.decode_host(vector.line)
    assert (kind, seq) == (vector.type, vector.seq)
    if kind == "C":
        assert (f"{key}={value}",) == vector.fields


@pytest.mark.parametrize(
    "vector",
    [v for v in INVALID if v.line != b"$C,1,volume=3*D38F"],
    ids=lambda v: v.line.decode(),
)
def test_the_host_decoder_rejects_every_invalid_vector_as_a_bad_frame(
    vector: InvalidVector,
) -> None:
    with pytest.raises(frames.HostLineError) as caught:
        frames.decode_host(vector.line)
    assert caught.value.code == frames.ERR_BAD_FRAME


def test_an_unknown_setting_is_read_and_left_to_the_firmware() -> None:
    # The firmware answers it with error code 2 (test_firmware_loop).
    assert frames.decode_host(b"$C,1,volume=3*D38F") == ("C", 1, "volume", 3)


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"$?,4*1054" + b"\x00",
        b"$?,4*1054 ",
        b"$C,1,debounce_ms=*" + frames._hex4(frames.crc16(b"C,1,debounce_ms=")).encode(),
        b"$C,1,=40*" + frames._hex4(frames.crc16(b"C,1,=40")).encode(),
        b"$C,1,debounce_ms=-1*" + frames._hex4(frames.crc16(b"C,1,debounce_ms=-1")).encode(),
        b"$C,1*" + frames._hex4(frames.crc16(b"C,1")).encode(),
        b"$?,4,5*" + frames._hex4(frames.crc16(b"?,4,5")).encode(),
        b"$?,x*" + frames._hex4(frames.crc16(b"?,x")).encode(),
        b"$?,65536*" + frames._hex4(frames.crc16(b"?,65536")).encode(),
        b"$H,1,3,7*C66D",  # a board frame is no host frame
        b"$" + b"?," + b"1" * 60 + b"*0000",
    ],
)
def test_bad_host_lines_are_code_1(line: bytes) -> None:
    with pytest.raises(frames.HostLineError) as caught:
        frames.decode_host(line)
    assert caught.value.code == 1


def test_a_trailing_carriage_return_is_ignored() -> None:
    assert frames.decode_host(b"$?,4*1054\r") == ("?", 4, "", 0)


def test_sequence_numbers_wrap_at_65536() -> None:
    encoder = frames.Encoder()
    encoder.seq = 65535
    assert encoder.frame("K", (1,)).startswith(b"$K,65535,")
    assert encoder.frame("K", (2,)).startswith(b"$K,0,")
    encoder.restart()
    assert encoder.frame("E", (4,)).startswith(b"$E,0,")


@pytest.mark.parametrize("field", ["a,b", "a*b", "a$b", "caf\u00e9", "tab\t", "line\n"])
def test_fields_that_cannot_be_sent_are_refused(field: str) -> None:
    with pytest.raises(ValueError):
        frames.encode("I", 0, (1, 8, 10, field))


def test_frames_longer_than_64_bytes_are_refused() -> None:
    longest = "x" * (64 - len("$I,0,1,8,10,*0000"))
    assert len(frames.encode("I", 0, (1, 8, 10, longest))) == 65
    with pytest.raises(ValueError):
        frames.encode("I", 0, (1, 8, 10, longest + "x"))


seqs = st.integers(0, 65535)
cells = st.integers(0, 255)
firmware_names = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters=",*$"),
    min_size=1,
    max_size=30,
)
board_frames = st.one_of(
    st.builds(protocol.Hit, seqs, cells, cells),
    st.builds(protocol.Stuck, seqs, cells, cells),
    st.builds(protocol.Released, seqs, cells, cells),
    st.builds(protocol.Button, seqs, st.integers(0, 15)),
    st.builds(protocol.Heartbeat, seqs, st.integers(0, 2**32 - 1)),
    st.builds(protocol.FirmwareError, seqs, st.integers(1, 4)),
    st.builds(
        protocol.Hello, seqs, st.just(1), st.integers(1, 256), st.integers(1, 256), firmware_names
    ),
)


@given(board_frames)
def test_the_host_decodes_every_frame_the_firmware_encodes(frame: protocol.Frame) -> None:
    line = frames.encode(frame.TYPE, frame.seq, frame.fields())
    assert line.endswith(b"\n")
    assert protocol.decode_frame(line[:-1]) == frame
    assert line == protocol.encode_frame(frame)


@given(
    seqs,
    st.sampled_from(protocol.CONFIG_KEYS),
    st.integers(0, 1_000_000),
)
def test_the_firmware_decodes_every_setting_the_host_encodes(
    seq: int, key: str, value: int
) -> None:
    line = protocol.encode_frame(protocol.Configure(seq, key, value))
    assert frames.decode_host(line[:-1]) == ("C", seq, key, value)
    request = protocol.encode_frame(protocol.HelloRequest(seq))
    assert frames.decode_host(request[:-1]) == ("?", seq, "", 0)

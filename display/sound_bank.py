"""The display's sounds: synthesised in code (numpy), played with pygame's mixer.

No sound files: every cue of :data:`display.cues.CUES` is a short synth
phrase made in code (once, by :meth:`SoundBank.init` or on first use):
44.1 kHz 16-bit mono, at most 1.5 s, faded in and out (no clicks) and
peaking at or below -1 dBFS.

:class:`SoundBank` plays them. Without audio (no sound card, no driver, an
SDL error) it logs once and hands back a silent sound for every cue, so
``play(cue)`` always works and the display never has to care. :class:`Caller`
speaks :func:`display.cues.caller_text` with ``espeak-ng`` when it is
installed, in a background process.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import wave
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from display.cues import CUES, INTERRUPTING_CALLS, caller_text
from mqtt_contract import StateView

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

__all__ = [
    "MAX_SECONDS",
    "PEAK_DBFS",
    "SAMPLE_RATE",
    "Caller",
    "Playable",
    "SilentSound",
    "SoundBank",
    "synthesize",
]

log = logging.getLogger(__name__)

SAMPLE_RATE = 44100
MAX_SECONDS = 1.5
PEAK_DBFS = -1.0
"""No cue peaks above this (most sit lower, see ``_LEVELS``)."""

FloatArray = npt.NDArray[np.float64]
Int16Array = npt.NDArray[np.int16]

_FULL_SCALE = 32767
_FADE_IN_S = 0.005
_FADE_OUT_S = 0.025

# ---------------------------------------------------------------- synthesis


def _hz(midi: float) -> float:
    """The frequency of MIDI note ``midi`` (69 is A4, 440 Hz; 72 is C5)."""
    return float(440.0 * 2.0 ** ((midi - 69) / 12))


def _time(seconds: float) -> FloatArray:
    return np.arange(round(seconds * SAMPLE_RATE), dtype=np.float64) / SAMPLE_RATE


def _envelope(n: int, attack: float, decay: float) -> FloatArray:
    """A quick raised-cosine attack, then an exponential decay (time constant
    ``decay`` seconds), ending in a short raised-cosine release."""
    t = np.arange(n, dtype=np.float64) / SAMPLE_RATE
    env = np.exp(-t / decay)
    rise = min(n, max(1, round(attack * SAMPLE_RATE)))
    env[:rise] *= np.sin(0.5 * np.pi * np.arange(rise) / rise) ** 2
    fall = min(n, max(1, round(0.01 * SAMPLE_RATE)))
    env[n - fall :] *= np.cos(0.5 * np.pi * np.arange(1, fall + 1) / fall) ** 2
    return env


def _tone(
    freq: float,
    seconds: float,
    *,
    partials: Sequence[tuple[float, float]] = ((1.0, 1.0), (2.0, 0.25), (3.0, 0.08)),
    attack: float = 0.004,
    decay: float = 0.15,
) -> FloatArray:
    """A note: ``partials`` are (frequency ratio, amplitude), ratios above
    Nyquist left out; under an attack-decay envelope."""
    t = _time(seconds)
    wave_ = np.zeros_like(t)
    for ratio, amplitude in partials:
        if freq * ratio < SAMPLE_RATE / 2:
            wave_ += amplitude * np.sin(2 * np.pi * freq * ratio * t)
    return wave_ * _envelope(len(t), attack, decay)


def _bell(freq: float, seconds: float, decay: float = 0.3) -> FloatArray:
    """A chime: slightly inharmonic partials, the high ones dying faster."""
    t = _time(seconds)
    wave_ = np.zeros_like(t)
    for ratio, amplitude, life in ((1.0, 1.0, 1.0), (2.0, 0.35, 0.6), (2.76, 0.2, 0.35)):
        if freq * ratio < SAMPLE_RATE / 2:
            wave_ += amplitude * np.exp(-t / (decay * life)) * np.sin(2 * np.pi * freq * ratio * t)
    return wave_ * _envelope(len(t), 0.003, 10.0)


def _glide(
    start: float,
    end: float,
    seconds: float,
    *,
    harmonics: int = 1,
    attack: float = 0.004,
    decay: float = 0.2,
) -> FloatArray:
    """A tone whose pitch slides exponentially from ``start`` to ``end`` Hz;
    ``harmonics`` > 1 makes it a band-limited sawtooth (a buzz)."""
    t = _time(seconds)
    freq = start * (end / start) ** (t / seconds)
    phase = 2 * np.pi * np.cumsum(freq) / SAMPLE_RATE
    wave_ = np.zeros_like(t)
    for k in range(1, harmonics + 1):
        if start * k < SAMPLE_RATE / 2:
            wave_ += np.sin(k * phase) / k
    return wave_ * _envelope(len(t), attack, decay)


def _noise(seconds: float, seed: int, smooth: int) -> FloatArray:
    """Deterministic noise, low-passed by a moving Hann window of ``smooth`` samples."""
    rng = np.random.default_rng(seed)
    raw = rng.standard_normal(round(seconds * SAMPLE_RATE))
    kernel = np.hanning(smooth)
    result: FloatArray = np.convolve(raw, kernel / kernel.sum(), mode="same")
    return result


def _mix(*parts: tuple[float, FloatArray, float]) -> FloatArray:
    """Lay (start seconds, signal, gain) parts on one timeline."""
    length = max(round(start * SAMPLE_RATE) + len(sig) for start, sig, _ in parts)
    out = np.zeros(length, dtype=np.float64)
    for start, sig, gain in parts:
        at = round(start * SAMPLE_RATE)
        out[at : at + len(sig)] += gain * sig
    return out


def _arpeggio(notes: Sequence[float], step: float, ring: float, tail: float) -> FloatArray:
    """Rising notes ``step`` seconds apart, each ringing ``ring`` seconds; the
    last one rings ``tail`` seconds with its octave below."""
    parts = [(i * step, _tone(_hz(n), ring, decay=ring / 3), 1.0) for i, n in enumerate(notes[:-1])]
    last = (len(notes) - 1) * step
    parts.append((last, _tone(_hz(notes[-1]), tail, decay=tail / 3), 1.0))
    parts.append((last, _tone(_hz(notes[-1] - 12), tail, decay=tail / 3), 0.5))
    return _mix(*parts)


def _brass(midi: float, seconds: float) -> FloatArray:
    """A soft brass-like note for the fanfare: rich partials, slower attack."""
    partials = [(float(k), 0.8**k) for k in range(1, 9)]
    return _tone(_hz(midi), seconds, partials=partials, attack=0.02, decay=seconds * 1.5)


C5 = 72  # MIDI note numbers


def _single() -> FloatArray:
    return _tone(_hz(C5 + 12), 0.09, decay=0.04)


def _double() -> FloatArray:
    blip = _tone(_hz(C5 + 12), 0.09, decay=0.04)
    return _mix((0.0, blip, 1.0), (0.12, blip, 1.0))


def _triple() -> FloatArray:
    notes = (C5 + 12, C5 + 16, C5 + 19)
    return _mix(*((i * 0.1, _tone(_hz(n), 0.09, decay=0.045), 1.0) for i, n in enumerate(notes)))


def _bull() -> FloatArray:
    thump = _glide(160.0, 50.0, 0.3, attack=0.002, decay=0.08)
    chime = _bell(_hz(C5 + 9), 0.8, decay=0.22)
    return _mix((0.0, thump, 1.0), (0.04, chime, 0.45))


def _miss() -> FloatArray:
    thud = _glide(110.0, 60.0, 0.22, attack=0.003, decay=0.05)
    dull = _noise(0.22, seed=7, smooth=64) * _envelope(round(0.22 * SAMPLE_RATE), 0.002, 0.03)
    return _mix((0.0, thud, 1.0), (0.0, dull, 2.0))


def _bust() -> FloatArray:
    t = _time(0.65)
    buzz = _glide(330.0, 110.0, 0.65, harmonics=10, attack=0.01, decay=0.5)
    wobble = 1.0 - 0.3 * (0.5 + 0.5 * np.sin(2 * np.pi * 18 * t))
    return buzz * wobble


def _close() -> FloatArray:
    chord = (C5 + 12, C5 + 16, C5 + 19, C5 + 24)
    return _mix(*((0.008 * i, _bell(_hz(n), 0.75, decay=0.25), 1.0) for i, n in enumerate(chord)))


def _player_change() -> FloatArray:
    return _mix((0.0, _bell(_hz(C5 - 5), 0.5), 1.0), (0.16, _bell(_hz(C5 + 2), 0.6), 1.0))


def _takeout() -> FloatArray:
    return _mix((0.0, _bell(_hz(C5 + 4), 0.5), 1.0), (0.2, _bell(_hz(C5), 0.6), 1.0))


def _peg() -> FloatArray:
    return _mix(
        (0.0, _bell(_hz(C5 + 7), 0.25, decay=0.1), 1.0),
        (0.07, _bell(_hz(C5 + 12), 0.35, decay=0.15), 1.0),
    )


def _credit() -> FloatArray:
    """A coin in: two quick bright bells, a fifth then the octave above it."""
    return _mix(
        (0.0, _bell(_hz(C5 + 19), 0.2, decay=0.08), 1.0),
        (0.06, _bell(_hz(C5 + 24), 0.4, decay=0.18), 1.0),
    )


def _ton() -> FloatArray:
    return _arpeggio((C5, C5 + 4, C5 + 7), step=0.1, ring=0.2, tail=0.45)


def _ton40() -> FloatArray:
    return _arpeggio((C5, C5 + 4, C5 + 7, C5 + 12), step=0.09, ring=0.2, tail=0.6)


def _one_eighty() -> FloatArray:
    notes = (C5, C5 + 4, C5 + 7, C5 + 12, C5 + 16, C5 + 19, C5 + 24)
    return _arpeggio(notes, step=0.075, ring=0.2, tail=0.8)


def _game_shot() -> FloatArray:
    g4, c5, e5, g5 = C5 - 5, C5, C5 + 4, C5 + 7
    return _mix(
        (0.0, _brass(g4, 0.13), 1.0),
        (0.15, _brass(g4, 0.13), 1.0),
        (0.3, _brass(g4, 0.13), 1.0),
        (0.45, _brass(c5, 0.9), 1.0),
        (0.45, _brass(e5, 0.9), 0.7),
        (0.45, _brass(g5, 0.9), 0.6),
    )


def _hat_trick() -> FloatArray:
    """Three bull thumps, then the bull's chime an octave up."""
    thump = _glide(160.0, 50.0, 0.22, attack=0.002, decay=0.06)
    return _mix(
        *((i * 0.16, thump, 1.0) for i in range(3)),
        (0.5, _bell(_hz(C5 + 21), 0.9, decay=0.3), 0.6),
        (0.5, _bell(_hz(C5 + 16), 0.9, decay=0.3), 0.4),
    )


def _three_in_the_black() -> FloatArray:
    """Three deep thumps, a beat apart, under a low bell chord."""
    thump = _glide(120.0, 40.0, 0.3, attack=0.002, decay=0.1)
    chord = (C5 - 12, C5 - 5, C5, C5 + 3)
    return _mix(
        *((i * 0.2, thump, 1.0) for i in range(3)),
        *((0.6 + 0.01 * i, _bell(_hz(n), 0.85, decay=0.35), 0.5) for i, n in enumerate(chord)),
    )


def _three_in_a_bed() -> FloatArray:
    """The same bell three times, then its octave: three darts in one bed."""
    bell = _bell(_hz(C5 + 7), 0.3, decay=0.12)
    return _mix(
        *((i * 0.14, bell, 1.0) for i in range(3)),
        (0.45, _bell(_hz(C5 + 19), 0.8, decay=0.3), 1.0),
    )


def _white_horse() -> FloatArray:
    """A gallop (da-da-dum twice), then a whinny gliding up and down."""
    hoof = _glide(220.0, 90.0, 0.08, attack=0.002, decay=0.03)
    gallop = [0.0, 0.09, 0.22, 0.4, 0.49, 0.62]
    whinny_up = _glide(_hz(C5 + 12), _hz(C5 + 24), 0.3, harmonics=4, decay=0.4)
    whinny_down = _glide(_hz(C5 + 24), _hz(C5 + 9), 0.35, harmonics=4, decay=0.25)
    return _mix(
        *((at, hoof, 1.0) for at in gallop),
        (0.78, whinny_up, 0.5),
        (1.06, whinny_down, 0.5),
    )


def _marks(count: int) -> Callable[[], FloatArray]:
    """``count`` quick rising bell ticks (a 5- to 9-mark visit), then a chord."""

    def synth() -> FloatArray:
        scale = (0, 2, 4, 5, 7, 9, 11, 12, 14)
        ticks = [(i * 0.08, _bell(_hz(C5 + scale[i]), 0.2, decay=0.07), 1.0) for i in range(count)]
        top = C5 + scale[count - 1]
        end = count * 0.08
        return _mix(
            *ticks,
            (end, _bell(_hz(top), 0.7, decay=0.25), 0.8),
            (end, _bell(_hz(top - 12), 0.7, decay=0.25), 0.5),
        )

    return synth


def _shanghai() -> FloatArray:
    """A gong, then a pentatonic run over it."""
    gong = _bell(_hz(C5 - 24), 1.4, decay=0.6)
    run = (C5, C5 + 2, C5 + 4, C5 + 7, C5 + 9, C5 + 12)
    return _mix(
        (0.0, gong, 1.0),
        *((0.2 + i * 0.08, _bell(_hz(n), 0.35, decay=0.12), 0.5) for i, n in enumerate(run)),
    )


def _nine_darter() -> FloatArray:
    """The fanfare, climbing: a brass arpeggio to a held major chord."""
    steps = (C5 - 5, C5, C5 + 4, C5 + 7)
    return _mix(
        *((i * 0.12, _brass(n, 0.12), 1.0) for i, n in enumerate(steps)),
        (0.5, _brass(C5 + 12, 0.95), 1.0),
        (0.5, _brass(C5 + 7, 0.95), 0.7),
        (0.5, _brass(C5 + 4, 0.95), 0.6),
    )


_SYNTHS: dict[str, Callable[[], FloatArray]] = {
    "single": _single,
    "double": _double,
    "triple": _triple,
    "bull": _bull,
    "miss": _miss,
    "bust": _bust,
    "close": _close,
    "player_change": _player_change,
    "takeout": _takeout,
    "peg": _peg,
    "ton": _ton,
    "ton40": _ton40,
    "one_eighty": _one_eighty,
    "game_shot": _game_shot,
    "credit": _credit,
    "hat_trick": _hat_trick,
    "three_in_the_black": _three_in_the_black,
    "three_in_a_bed": _three_in_a_bed,
    "white_horse": _white_horse,
    **{f"marks_{count}": _marks(count) for count in range(5, 10)},
    "shanghai_award": _shanghai,
    "nine_darter": _nine_darter,
}

# Peak level of each cue in dBFS: the frequent ones quieter, the big calls louder.
_LEVELS: dict[str, float] = {
    "single": -8.0,
    "double": -8.0,
    "triple": -7.0,
    "bull": -5.0,
    "miss": -12.0,
    "bust": -6.0,
    "close": -5.0,
    "player_change": -7.0,
    "takeout": -7.0,
    "peg": -7.0,
    "ton": -4.0,
    "ton40": -3.0,
    "one_eighty": -2.0,
    "game_shot": -2.0,
    "credit": -6.0,
    "hat_trick": -3.0,
    "three_in_the_black": -3.0,
    "three_in_a_bed": -4.0,
    "white_horse": -3.0,
    **{f"marks_{count}": -4.0 for count in range(5, 10)},
    "shanghai_award": -2.0,
    "nine_darter": -2.0,
}


def _check_cue(cue: str) -> None:
    if cue not in _SYNTHS:
        raise ValueError(f"unknown cue {cue!r}; the cues are: {', '.join(CUES)}")


@cache
def _synthesize(cue: str) -> Int16Array:
    signal = _SYNTHS[cue]()[: round(MAX_SECONDS * SAMPLE_RATE)]
    n = len(signal)
    rise, fall = round(_FADE_IN_S * SAMPLE_RATE), round(_FADE_OUT_S * SAMPLE_RATE)
    signal[:rise] *= np.sin(0.5 * np.pi * np.arange(rise) / rise) ** 2
    signal[n - fall :] *= np.cos(0.5 * np.pi * np.arange(1, fall + 1) / fall) ** 2
    peak = float(np.max(np.abs(signal)))
    level = min(_LEVELS[cue], PEAK_DBFS)
    scaled = signal * (10 ** (level / 20) * _FULL_SCALE / peak)
    samples: Int16Array = np.round(scaled).astype(np.int16)
    samples.flags.writeable = False
    return samples


def synthesize(cue: str) -> Int16Array:
    """The samples of ``cue``: 44.1 kHz, 16-bit, mono, at full volume (a new array)."""
    _check_cue(cue)
    return _synthesize(cue).copy()


# ---------------------------------------------------------------- playing


class Playable(Protocol):
    """What the bank hands back for a cue: a pygame Sound or a silent one."""

    def play(self) -> Any: ...

    def stop(self) -> None: ...


class SilentSound:
    """Stands in for every sound when there is no audio: playing it does nothing."""

    def play(self) -> None:
        return None

    def stop(self) -> None:
        return None


_SILENT = SilentSound()

# pygame.mixer's sample formats (``size`` of get_init()) as numpy types.
_MIXER_DTYPES: dict[int, type[np.generic]] = {
    8: np.uint8,
    -8: np.int8,
    16: np.uint16,
    -16: np.int16,
    32: np.float32,
    -32: np.float32,  # pygame-ce reports its 32-bit float format as -32
}


def _to_mixer(samples: Int16Array, volume: float, mixer: tuple[int, int, int]) -> bytes:
    """``samples`` scaled by ``volume``, as raw bytes in the mixer's format
    (resampled and spread over its channels when it differs from ours). In
    our own format (44.1 kHz, signed 16-bit) the samples are exactly
    ``round(samples * volume)``."""
    frequency, size, channels = mixer
    signal = samples.astype(np.float64) * volume
    if frequency != SAMPLE_RATE:
        n = round(len(signal) * frequency / SAMPLE_RATE)
        signal = np.interp(np.arange(n) * SAMPLE_RATE / frequency, np.arange(len(signal)), signal)
    dtype = _MIXER_DTYPES.get(size)
    if dtype is None:
        raise ValueError(f"unsupported mixer sample size {size}")
    out: npt.NDArray[Any]
    if dtype is np.float32:
        out = (signal / 32768).astype(np.float32)
    else:
        half = 2 ** (8 * np.dtype(dtype).itemsize - 1)
        offset = 0 if np.issubdtype(dtype, np.signedinteger) else half
        scaled = np.clip(np.round(signal * half / 32768), -half, half - 1)
        out = (scaled + offset).astype(dtype)
    return np.repeat(out, channels).tobytes()


def _clamp(volume: float) -> float:
    return min(1.0, max(0.0, float(volume)))


class SoundBank:
    """Every cue, ready to play; silent (but working) without audio.

    ``volume`` (0-1) scales the samples handed to the mixer; ``muted`` plays
    nothing. Call :meth:`init` once pygame is up (``play`` calls it too).
    """

    def __init__(self, volume: float = 0.8, muted: bool = False) -> None:
        self._volume = _clamp(volume)
        self._muted = bool(muted)
        self._initialized = False
        self._mixer: tuple[int, int, int] | None = None
        self._owns_mixer = False
        self._sounds: dict[str, tuple[float, pygame.mixer.Sound]] = {}

    # ------------------------------------------------------------ audio

    def init(self) -> bool:
        """Open the mixer (44.1 kHz, 16-bit, stereo) unless pygame already did,
        and make every cue now rather than on the first dart; ``True`` when
        there is audio. Without it, log once and go silent."""
        if self._initialized:
            return self._mixer is not None
        self._initialized = True
        for cue in CUES:
            _synthesize(cue)
        try:
            if pygame.mixer.get_init() is None:
                pygame.mixer.init(SAMPLE_RATE, -16, 2, 512, allowedchanges=0)
                self._owns_mixer = True
            self._mixer = pygame.mixer.get_init()
            if self._mixer is None:
                raise pygame.error("the mixer did not start")
            if self._mixer[1] not in _MIXER_DTYPES:
                raise pygame.error(f"unsupported mixer sample size {self._mixer[1]}")
        except (pygame.error, OSError) as error:
            if self._owns_mixer:
                pygame.mixer.quit()
                self._owns_mixer = False
            self._mixer = None
            log.warning("no audio, the display's sounds are silent: %s", error)
        else:
            for cue in CUES:
                self.sound(cue)
        return self._mixer is not None

    @property
    def available(self) -> bool:
        """Sounds really play (the mixer is up)."""
        return self._mixer is not None

    def close(self) -> None:
        """Stop the sounds and close the mixer if this bank opened it."""
        self._sounds.clear()
        if self._mixer is not None and self._owns_mixer:
            pygame.mixer.quit()
        self._mixer = None
        self._owns_mixer = False
        self._initialized = False

    def sound(self, cue: str) -> Playable:
        """The playable sound of ``cue`` at the current volume: a pygame Sound,
        or a :class:`SilentSound` without audio or while muted."""
        _check_cue(cue)
        self.init()
        if self._mixer is None or self._muted:
            return _SILENT
        cached = self._sounds.get(cue)
        if cached is not None and cached[0] == self._volume:
            return cached[1]
        made = pygame.mixer.Sound(buffer=_to_mixer(_synthesize(cue), self._volume, self._mixer))
        self._sounds[cue] = (self._volume, made)
        return made

    def play(self, cue: str) -> None:
        """Play ``cue`` now (over whatever plays); never fails for lack of audio."""
        self.sound(cue).play()

    def play_all(self, cues: Iterable[str]) -> None:
        """Play cues one after the other: the first now, the second queued
        behind it on the same channel, any more at once (see
        :func:`display.cues.collapse`, which gives at most two)."""
        cues = list(cues)
        for cue in cues:
            _check_cue(cue)
        if not cues:
            return
        first = self.sound(cues[0])
        if isinstance(first, SilentSound):
            return
        channel = first.play()
        rest = cues[1:]
        if rest and isinstance(channel, pygame.mixer.Channel):
            second = self.sound(rest.pop(0))
            if isinstance(second, pygame.mixer.Sound):
                channel.queue(second)
        for cue in rest:
            self.play(cue)

    # --------------------------------------------------------- settings

    @property
    def volume(self) -> float:
        return self._volume

    @property
    def muted(self) -> bool:
        return self._muted

    def set_volume(self, volume: float) -> float:
        """Set the volume (clamped to 0-1); returns it. Sounds playing now keep theirs."""
        self._volume = _clamp(volume)
        return self._volume

    def toggle_mute(self) -> bool:
        """Mute or unmute; muting stops the sounds playing. Returns ``muted``."""
        self._muted = not self._muted
        if self._muted:
            for _, made in self._sounds.values():
                made.stop()
        return self._muted

    # ------------------------------------------------------------ samples

    def samples(self, cue: str) -> Int16Array:
        """The cue's samples at full volume: 44.1 kHz, 16-bit, mono (a copy)."""
        return synthesize(cue)

    def output(self, cue: str) -> Int16Array:
        """What :meth:`play` hands the mixer now (before conversion to its
        format): the samples scaled by the volume, nothing when muted."""
        if self._muted:
            _check_cue(cue)
            return np.zeros(0, dtype=np.int16)
        _check_cue(cue)
        scaled = np.round(_synthesize(cue).astype(np.float64) * self._volume)
        result: Int16Array = scaled.astype(np.int16)
        return result

    def write_wav(self, cue: str, path: str | os.PathLike[str]) -> Path:
        """Write the cue at full volume to a WAV file (mono, 16-bit, 44.1 kHz)."""
        target = Path(path)
        samples = self.samples(cue)
        with wave.open(str(target), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SAMPLE_RATE)
            out.writeframes(samples.astype("<i2").tobytes())
        return target


# ---------------------------------------------------------------- caller


class Caller:
    """The optional spoken caller: says :func:`display.cues.caller_text` with
    ``espeak-ng`` in a background process, never blocking the frame loop.
    While the previous utterance is still being spoken a new one is skipped.
    Without ``espeak-ng`` on PATH (or when not ``enabled``) it does nothing;
    a missing program is logged once."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        program: str = "espeak-ng",
        args: Sequence[str] = ("-s", "160"),
    ) -> None:
        self._args = tuple(args)
        self._process: subprocess.Popen[bytes] | None = None
        self._program = shutil.which(program) if enabled else None
        if enabled and self._program is None:
            log.info("%s is not installed: the spoken caller is off", program)

    @property
    def available(self) -> bool:
        """The caller speaks (enabled and the program was found)."""
        return self._program is not None

    @property
    def busy(self) -> bool:
        """An utterance is still being spoken."""
        return self._process is not None and self._process.poll() is None

    def say(self, text: str | None, *, interrupt: bool = False) -> bool:
        """Start speaking ``text``; ``False`` when off, empty or still busy
        (``interrupt``: the utterance still being spoken is cut short instead)."""
        if self._program is None or not text:
            return False
        if self.busy:
            if not interrupt:
                return False
            self._stop()
        try:
            self._process = subprocess.Popen(
                [self._program, *self._args, text],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            log.warning("the spoken caller failed, turning it off: %s", error)
            self._program = None
            return False
        return True

    def announce(self, event: Mapping[str, Any], state: StateView | None) -> bool:
        """Say what the caller says for ``event`` (``state``: the state after
        it); a game shot (:data:`~display.cues.INTERRUPTING_CALLS`) cuts the
        line still being spoken short rather than be skipped."""
        interrupt = event.get("type") in INTERRUPTING_CALLS
        return self.say(caller_text(event, state), interrupt=interrupt)

    def _stop(self) -> None:
        """Stop the utterance being spoken, without waiting for it to end."""
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()

    def close(self) -> None:
        """Stop speaking."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

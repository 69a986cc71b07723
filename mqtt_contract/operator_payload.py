"""The ``operator/cmd`` and ``books`` topics: the coin-op side of a board.
Each operator command is a frozen class (its schema generated from its type
hints, and what :func:`~mqtt_contract.parse_operator_command` returns); the
books snapshot is typed the same way. Adding an operator command: a class
here, listed in :data:`OPERATOR_CLASSES` and :data:`OperatorCommand`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, ClassVar, TypeAlias

from mqtt_contract.command_payload import CommandBase
from mqtt_contract.event_payload import OPERATOR_COMMANDS, Timestamp
from mqtt_contract.json_types import (
    OMITTED,
    JsonObject,
    Meta,
    object_schema,
    omitted,
    renamed,
    required_keys,
    tagged_union_schema,
)
from mqtt_contract.pairing_payload import DEVICE_ID_PATTERN
from mqtt_contract.schema_parts import LATEST_TIMESTAMP

Reason = Annotated[str | None, Meta(description="Why (the books keep it).", max_length=200)]
"""Why the operator did it, as the books keep it."""


@dataclass(frozen=True, slots=True)
class AddCredits(CommandBase):
    """Add credits by hand."""

    command: ClassVar[str] = "add_credits"
    count: Annotated[int, Meta(description="add_credits: how many.", minimum=1, maximum=10000)] = (
        field(kw_only=True)
    )
    reason: Reason = field(default=None, kw_only=True, metadata=OMITTED)


@dataclass(frozen=True, slots=True)
class SetFreePlay(CommandBase):
    """Turn free play on or off."""

    command: ClassVar[str] = "set_free_play"
    on: Annotated[bool, Meta(description="set_free_play: on or off.")] = field(kw_only=True)


@dataclass(frozen=True, slots=True)
class ResetBooks(CommandBase):
    """Start the customer books again."""

    command: ClassVar[str] = "reset_books"
    reason: Reason = field(default=None, kw_only=True, metadata=OMITTED)


@dataclass(frozen=True, slots=True)
class SetPrice(CommandBase):
    """Set the price of a game, or of every game."""

    command: ClassVar[str] = "set_price"
    price: Annotated[
        int | None,
        Meta(
            description="set_price: credits per player; null: back to the config's.",
            minimum=0,
            maximum=1000,
        ),
    ] = field(kw_only=True)
    game: Annotated[
        str | None,
        Meta(description="set_price: for this game id only (else every game).", min_length=1),
    ] = field(default=None, kw_only=True, metadata=OMITTED)


@dataclass(frozen=True, slots=True)
class Unpair(CommandBase):
    """Take a paired browser's control of the board away (docs/phone.md)."""

    command: ClassVar[str] = "unpair"
    device: Annotated[
        str | None,
        Meta(
            description="unpair: the device's id (the pairing topic lists them); "
            "omitted: every paired device.",
            pattern=DEVICE_ID_PATTERN,
        ),
    ] = field(default=None, kw_only=True, metadata=OMITTED)


OPERATOR_CLASSES: tuple[type[CommandBase], ...] = (
    AddCredits,
    SetFreePlay,
    ResetBooks,
    SetPrice,
    Unpair,
)
"""One class per command on ``{base}/{board}/operator/cmd`` (docs/credits.md)."""
assert tuple(cls.command for cls in OPERATOR_CLASSES) == OPERATOR_COMMANDS

OperatorCommand: TypeAlias = AddCredits | SetFreePlay | ResetBooks | SetPrice | Unpair
"""An operator command :func:`~mqtt_contract.parse_operator_command` read."""

OPERATOR_ARGUMENTS: dict[str, tuple[str, ...]] = {
    cls.command: tuple(key for key in cls.json_keys() if key not in ("command", "id"))
    for cls in OPERATOR_CLASSES
}
"""Each operator command's argument keys, in the order its errors list them."""
OPERATOR_REQUIRED: dict[str, tuple[str, ...]] = {
    cls.command: tuple(required_keys(cls)) for cls in OPERATOR_CLASSES
}
"""The arguments each operator command cannot go without."""

OPERATOR_TOPIC = (
    "Oche operator/cmd topic",
    "A command of the board's operator: credits, free play, prices, the books. Only an "
    "operator account may publish here (deploy/mosquitto/acl).",
    lambda defs: tagged_union_schema("command", OPERATOR_CLASSES, CommandBase, defs),
)
"""The ``operator/cmd`` topic's title, description and schema body."""


Count = Annotated[int, Meta(minimum=0)]
BookTime = Annotated[float | None, Meta(minimum=0, maximum=LATEST_TIMESTAMP)]
"""A period's edge in the books: Unix seconds before 2100, or null (open)."""


@dataclass(frozen=True, slots=True)
class CoinBooks(JsonObject):
    pulses: Count
    credits: Count


@dataclass(frozen=True, slots=True)
class GameBooks(JsonObject):
    played: Count | None = omitted()
    finished: Count | None = omitted()
    play_time_s: Annotated[float | None, Meta(minimum=0)] = omitted()


@dataclass(frozen=True, slots=True, kw_only=True)
class Books(JsonObject):
    json_def: ClassVar[str | None] = "books"
    json_description: ClassVar[str | None] = "One set of books (firmware_bridge/daemon/books.py)."

    start: Annotated[BookTime, Meta(description="Where the period starts (null: open).")] = renamed(
        "from", None
    )
    until: Annotated[BookTime, Meta(description="Where it ends, excluded (null: open).")] = None
    coins: Annotated[
        Mapping[str, CoinBooks],
        Meta(description='Per coin input ("1", "2"): its pulses and the credits they gave.'),
    ]
    coins_total: Annotated[Count | None, Meta(description="Pulses on every input.")] = omitted()
    credits_in: Annotated[
        Mapping[str, int],
        Meta(description="Credits in per source: coin, remote, happy-hour, free-play."),
    ]
    credits_in_total: int | None = omitted()
    credits_spent: Annotated[int, Meta(description="Credits games spent.")]
    credits_net: int | None = omitted()
    games: Annotated[
        Mapping[str, GameBooks],
        Meta(description="Per game id: games played, finished, and their play time."),
    ]
    games_played: Count
    play_time_s: Annotated[float, Meta(minimum=0)]
    reset_at: Annotated[
        BookTime, Meta(description="Customer books: the last reset_books, or null.")
    ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BooksSnapshot(JsonObject):
    """The retained books snapshot (docs/credits.md): ``books.books()``, with
    the daemon's ``credits`` and ``today``."""

    board: str | None = omitted()
    since: BookTime = None
    until: BookTime = None
    customer: Annotated[
        Books, Meta(description="Since the last reset_books (reset_at; null: never reset).")
    ]
    security: Annotated[Books, Meta(description="The board's whole life; never reset.")]
    today: Annotated[
        Books | None,
        Meta(description="Added by the daemon: since the local midnight ([credits] timezone)."),
    ] = omitted()
    credits: Annotated[Count | None, Meta(description="Added by the daemon: credits held now.")] = (
        omitted()
    )
    updated_at: Timestamp


BOOKS_TOPIC = (
    "Oche books topic",
    "The board's books, retained, for its operator only: the customer books (since their "
    "last reset) and the lifetime security books.",
    lambda defs: object_schema(BooksSnapshot, defs),
)
"""The ``books`` topic's title, description and schema body."""

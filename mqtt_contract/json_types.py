"""Typed JSON payloads: a frozen dataclass's JSON Schema, its ``from_json``
and its ``to_json``, all three read from its type hints, so a payload is
described once.

A payload class subclasses :class:`JsonObject` and is a frozen dataclass.
What JSON Schema says beyond the Python type (a description, bounds, a
pattern, a length) rides on the type as ``typing.Annotated`` metadata
(:class:`Meta`); a field with a default may be absent from a document, and
one made with :func:`omitted` is left out of the payload while ``None`` (so
``None`` in its type means "absent", not ``null``). Pure: no I/O, and nothing
but the standard library.

Two ways to read a document, one mechanism: :meth:`JsonObject.from_json`
is strict (a :class:`PayloadError` names what does not fit); the lenient
:meth:`JsonObject.read` (a scoreboard's: a state from an older or a newer
daemon still draws) reads what fits its type, a missing key or one of the
wrong type as its default, skips keys it does not know and array items it
cannot read, and checks no bound. A field made with :func:`required` is one
the schema requires but ``read`` can go without; one with :data:`PRESENT`
metadata says whether the object was there at all.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self, TypeVar, Union

__all__ = [
    "FIXED",
    "OMITTED",
    "PRESENT",
    "JsonObject",
    "Meta",
    "PayloadError",
    "decode",
    "flattened",
    "object_schema",
    "omitted",
    "renamed",
    "required",
    "required_keys",
    "schema_of",
    "tagged_union_schema",
    "topic_schema",
]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_OMITTED = "json_omitted"
_FIXED = "json_fixed"
_KEY = "json_key"
_NULL = "json_null"
_FLAT = "json_flat"
_REQUIRED = "json_required"
_PRESENT = "json_present"


@dataclasses.dataclass(frozen=True, slots=True)
class Meta:
    """What JSON Schema says of a value beyond its Python type; checked by
    :func:`decode` as by a validator (each bound only on a value of its kind)."""

    description: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    min_properties: int | None = None
    enum: tuple[Any, ...] | None = None
    exclusive_minimum: float | None = None
    given: Mapping[str, Any] | None = None
    """The value's whole schema as the engine writes it (a part of the game
    state, which the engine describes), with ``given_defs`` its definitions:
    the schema says it once, there; decoding checks only the Python type."""
    given_defs: Mapping[str, Any] | None = None

    def keywords(self) -> dict[str, Any]:
        """These constraints as JSON Schema keywords (description first)."""
        pairs = {
            "description": self.description,
            "minimum": self.minimum,
            "exclusiveMinimum": self.exclusive_minimum,
            "maximum": self.maximum,
            "minLength": self.min_length,
            "maxLength": self.max_length,
            "pattern": self.pattern,
            "minItems": self.min_items,
            "maxItems": self.max_items,
            "uniqueItems": self.unique_items or None,
            "minProperties": self.min_properties,
            "enum": None if self.enum is None else [*self.enum],
        }
        return {key: _plain(value) for key, value in pairs.items() if value is not None}

    def problem(self, value: Any) -> str | None:
        """Why ``value`` breaks these constraints, or ``None``."""
        if self.enum is not None and not any(
            type(option) is type(value) and option == value for option in self.enum
        ):
            return f"{value!r} is not one of {', '.join(map(repr, self.enum))}"
        if _is_number(value):
            if self.minimum is not None and value < self.minimum:
                return f"{value!r} is less than the minimum of {_plain(self.minimum)}"
            if self.exclusive_minimum is not None and value <= self.exclusive_minimum:
                return f"{value!r} is not more than {_plain(self.exclusive_minimum)}"
            if self.maximum is not None and value > self.maximum:
                return f"{value!r} is more than the maximum of {_plain(self.maximum)}"
        if isinstance(value, str):
            if self.min_length is not None and len(value) < self.min_length:
                return f"{value!r} is shorter than {self.min_length} characters"
            if self.max_length is not None and len(value) > self.max_length:
                return f"{value!r} is longer than {self.max_length} characters"
            if self.pattern is not None and re.search(self.pattern, value) is None:
                return f"{value!r} does not match {self.pattern!r}"
        if isinstance(value, list):
            if self.min_items is not None and len(value) < self.min_items:
                return f"has {len(value)} items, fewer than {self.min_items}"
            if self.max_items is not None and len(value) > self.max_items:
                return f"has {len(value)} items, more than {self.max_items}"
            if self.unique_items and len({_freeze(item) for item in value}) < len(value):
                return "has repeated items"
        if (
            isinstance(value, dict)
            and self.min_properties is not None
            and len(value) < self.min_properties
        ):
            return f"has {len(value)} keys, fewer than {self.min_properties}"
        return None


class PayloadError(ValueError):
    """A document that does not fit its type; the message names where (a JSON
    path such as ``$.players[0].name``) and why."""


def omitted(*, null: bool = False, default: Any = None) -> Any:
    """A field left out of the payload while it holds ``default`` (``None``
    unless given), and absent-able in a document: ``None`` in its type means
    absent, so the schema allows no null unless ``null`` (a document may then
    carry null too). A keyword-only one: ``field(default=None, kw_only=True,
    metadata=OMITTED)`` (a plain ``field`` call, so type checkers see it)."""
    return dataclasses.field(default=default, metadata={_OMITTED: True, _NULL: null})


OMITTED: Mapping[str, Any] = {_OMITTED: True}
"""The metadata of an :func:`omitted` field, for a keyword-only one."""
FIXED: Mapping[str, Any] = {_FIXED: True}
"""The metadata of a field every document carries with its one value (a
``Literal``): ``field(default=False, kw_only=True, metadata=FIXED)``, keyword
only so it need not be passed (a plain ``field`` call, so type checkers see it)."""


PRESENT: Mapping[str, Any] = {_PRESENT: True}
"""The metadata of a ``present: bool = field(default=False, metadata=PRESENT)``
field: no key of the document, true when the object was read at all."""


def required(default: Any = None, *, null: bool = False) -> Any:
    """A key the schema requires that :meth:`JsonObject.read` may find
    missing (then ``default``); ``None`` in its type means "not read", so the
    schema allows no null unless ``null``."""
    return dataclasses.field(default=default, metadata={_REQUIRED: True, _NULL: null})


def flattened() -> Any:
    """A field of a :class:`JsonObject` type whose keys sit in this object's
    own (a group of keys present together, as a game's figures in a row):
    ``None`` while none of them is in the document. The schema requires none
    of them; :meth:`JsonObject.from_json` reads the group when any is there."""
    return dataclasses.field(default=None, metadata={_FLAT: True})


def renamed(key: str, default: Any = dataclasses.MISSING) -> Any:
    """A field whose JSON key is not a Python name (``from``)."""
    return dataclasses.field(default=default, metadata={_KEY: key})


def _plain(value: Any) -> Any:
    """A bound as JSON prints it: ``0`` rather than ``0.0`` for a whole float."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return ("list", *map(_freeze, value))
    if isinstance(value, dict):
        return ("dict", *sorted((key, _freeze(item)) for key, item in value.items()))
    return (type(value) is bool, value)


_JSON_NAMES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, as errors name it."""
    if value is None:
        return "null"
    for kind, name in _JSON_NAMES.items():
        if type(value) is kind:
            return name
    return "array" if isinstance(value, list) else "object"


# ------------------------------------------------------------ the hint's parts


def _strip(hint: Any) -> tuple[Any, list[Meta]]:
    """A hint without its ``Annotated`` layers, and their :class:`Meta`."""
    metas: list[Meta] = []
    while typing.get_origin(hint) is Annotated:
        metas = [*[m for m in hint.__metadata__ if isinstance(m, Meta)], *metas]
        hint = hint.__origin__
    return hint, metas


def _union_members(hint: Any) -> tuple[Any, ...] | None:
    origin = typing.get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return typing.get_args(hint)
    return None


def _without_none(hint: Any) -> Any:
    """``X | None`` as ``X`` (an omitted field's value type)."""
    inner, metas = _strip(hint)
    members = _union_members(inner)
    if members is None or type(None) not in members:
        return hint
    rest = [member for member in members if member is not type(None)]
    bare = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007 - built at run time
    return Annotated[(bare, *metas)] if metas else bare


def _is_object_class(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, JsonObject)


# ------------------------------------------------------------------- schemas


def schema_of(hint: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of a type hint; a class with a ``json_def`` name goes
    into ``defs`` (the document's ``$defs``) and is referred to."""
    inner, metas = _strip(hint)
    given = next((meta for meta in metas if meta.given is not None), None)
    if given is not None:
        if defs is not None:
            defs.update(copy.deepcopy(dict(given.given_defs or {})))
        return copy.deepcopy(dict(given.given or {}))
    schema = _bare_schema(inner, defs)
    nullable = "null" in _types(schema)
    for meta in metas:
        keywords = meta.keywords()
        if nullable and "enum" in keywords:  # an enum of a nullable value takes null too
            keywords["enum"] = [*keywords["enum"], None]
        description = keywords.pop("description", None)
        if description is not None:  # the outermost description wins, and comes first
            schema.pop("description", None)
            schema = {"description": description, **schema}
        schema.update(keywords)
    return schema


def _types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a schema's ``type`` keyword names (none without one)."""
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _bare_schema(hint: Any, defs: dict[str, Any] | None) -> dict[str, Any]:
    if hint is Any:
        return {}
    if hint is type(None) or hint is None:
        return {"type": "null"}
    if hint in _JSON_NAMES:
        return {"type": _JSON_NAMES[hint]}
    members = _union_members(hint)
    if members is not None:
        return _union_schema(members, defs)
    origin = typing.get_origin(hint)
    if origin is Literal:
        values = [_plain_literal(value) for value in typing.get_args(hint)]
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    if _is_object_class(hint):
        if hint.json_def is None or defs is None:
            return object_schema(hint, defs)
        if hint.json_def not in defs:
            defs[hint.json_def] = {}  # reserved first: a class may refer to itself
            defs[hint.json_def] = object_schema(hint, defs)
        return {"$ref": f"#/$defs/{hint.json_def}"}
    if origin in (tuple, Sequence, list):
        arguments = typing.get_args(hint)
        if origin is tuple and arguments and arguments[-1] is not Ellipsis:
            count = len(arguments)
            items = [schema_of(item, defs) for item in arguments]
            return {"type": "array", "prefixItems": items, "minItems": count, "maxItems": count}
        item_schema = schema_of(arguments[0], defs) if arguments else {}
        return {"type": "array", **({"items": item_schema} if item_schema else {})}
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        key_hint, value_hint = typing.get_args(hint) or (str, Any)
        schema: dict[str, Any] = {"type": "object"}
        key_schema = schema_of(key_hint, defs)
        key_schema.pop("type", None)
        if key_schema:
            schema["propertyNames"] = key_schema
        value_schema = schema_of(value_hint, defs)
        if value_schema:
            schema["additionalProperties"] = value_schema
        return schema
    raise TypeError(f"no JSON Schema for {hint!r}")


def _plain_literal(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _union_schema(members: tuple[Any, ...], defs: dict[str, Any] | None) -> dict[str, Any]:
    nullable = type(None) in members
    schemas = [schema_of(member, defs) for member in members if member is not type(None)]
    if all(set(schema) == {"type"} and isinstance(schema["type"], str) for schema in schemas):
        names = [schema["type"] for schema in schemas] + (["null"] if nullable else [])
        return {"type": names[0] if len(names) == 1 else names}
    schema = schemas[0] if len(schemas) == 1 else {"oneOf": schemas}
    return _nullable(schema) if nullable else schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null."""
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None]}
    kind = schema.get("type")
    if kind is not None and "$ref" not in schema:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        return {**schema, "type": [*kinds, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


_FIELD_TABLES: dict[type[JsonObject], list[tuple[dataclasses.Field[Any], str, Any]]] = {}


def _fields(cls: type[JsonObject]) -> list[tuple[dataclasses.Field[Any], str, Any]]:
    """Each field of ``cls`` with its JSON key and its full type hint (read once)."""
    table = _FIELD_TABLES.get(cls)
    if table is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        table = [
            (field, field.metadata.get(_KEY, field.name), hints[field.name])
            for field in dataclasses.fields(cls)  # type: ignore[arg-type]
            if not field.metadata.get(_PRESENT)
        ]
        _FIELD_TABLES[cls] = table
    return table


def _is_required(field: dataclasses.Field[Any]) -> bool:
    has_default = (
        field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
    )
    return not has_default or bool(field.metadata.get(_FIXED) or field.metadata.get(_REQUIRED))


def required_keys(cls: type[JsonObject]) -> list[str]:
    """The keys a document of ``cls`` cannot go without (its tag aside)."""
    return [key for field, key, _ in _fields(cls) if _is_required(field)]


def _field_schema(
    field: dataclasses.Field[Any], hint: Any, defs: dict[str, Any] | None
) -> dict[str, Any]:
    if _absent_as_none(field):
        hint = _without_none(hint)
    return schema_of(hint, defs)


def _absent_as_none(field: dataclasses.Field[Any]) -> bool:
    """``None`` in the field's type means its key is absent, not null."""
    return bool(
        (field.metadata.get(_OMITTED) or field.metadata.get(_REQUIRED))
        and not field.metadata.get(_NULL)
    )


def object_schema(
    cls: type[JsonObject], defs: dict[str, Any] | None = None, *, skip: Iterable[str] = ()
) -> dict[str, Any]:
    """The schema of one payload class (its tag, if any, as a ``const``);
    ``skip`` leaves out keys a tagged union states once for all its classes."""
    skipped = set(skip)
    properties: dict[str, Any] = {}
    required: list[str] = []
    if cls.json_tag is not None and cls.json_tag not in skipped:
        properties[cls.json_tag] = {"const": cls.tag_value()}
        required.append(cls.json_tag)
    for field, key, hint in _fields(cls):
        if key in skipped:
            continue
        if field.metadata.get(_FLAT):
            group = object_schema(_without_none(hint), defs)
            properties.update(group["properties"])
            continue
        properties[key] = _field_schema(field, hint, defs)
        if _is_required(field):
            required.append(key)
    schema: dict[str, Any] = {}
    if cls.json_description is not None:
        schema["description"] = cls.json_description
    if not skipped:
        schema["type"] = "object"
    schema["properties"] = properties
    if required:
        schema["required"] = required
    if cls.json_closed:
        if skipped:
            schema["propertyNames"] = {"enum": [*cls.json_keys()]}
        else:
            schema["additionalProperties"] = False
    schema.update(cls.json_extra)
    return schema


def tagged_union_schema(
    tag: str, classes: Sequence[type[JsonObject]], common: type[JsonObject], defs: dict[str, Any]
) -> dict[str, Any]:
    """One object schema for many classes told apart by ``tag``: the keys of
    ``common`` (their shared base) once, then each class's own as an
    ``if``/``then`` on its tag value."""
    common_schema = object_schema(common, defs, skip=[tag])
    common_keys = [key for _, key, _ in _fields(common)]
    clauses = [
        {
            "if": {"properties": {tag: {"const": cls.tag_value()}}, "required": [tag]},
            "then": object_schema(cls, defs, skip=[tag, *common_keys]),
        }
        for cls in classes
    ]
    return {
        "type": "object",
        "properties": {
            tag: {"enum": [cls.tag_value() for cls in classes]},
            **common_schema["properties"],
        },
        "required": [tag, *common_schema.get("required", [])],
        "allOf": clauses,
    }


def topic_schema(
    title: str, description: str, body: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """A topic's whole schema document: the draft, ``title``, ``description``,
    the body (built with a ``$defs`` collector) and the definitions it used."""
    defs: dict[str, Any] = {}
    schema = body(defs)
    schema.pop("description", None)
    document = {"$schema": DRAFT, "title": title, "description": description, **schema}
    if defs:
        document["$defs"] = {**document.get("$defs", {}), **defs}
    return document


# ------------------------------------------------------------------ decoding


def _fail(path: str, message: str) -> PayloadError:
    return PayloadError(f"{path}: {message}")


def decode(hint: Any, value: Any, path: str = "$") -> Any:
    """``value`` (decoded JSON) checked against ``hint`` and built into it:
    objects into their classes, arrays into tuples. A :class:`PayloadError`
    names the first thing that does not fit."""
    inner, metas = _strip(hint)
    result = _decode_bare(inner, value, path)
    if value is None:  # the type took null: constraints are on the values it has
        return result
    for meta in metas:
        problem = meta.problem(value)
        if problem is not None:
            raise _fail(path, problem)
    return result


def _decode_bare(hint: Any, value: Any, path: str) -> Any:
    if hint is Any:
        return value
    if hint is type(None) or hint is None:
        if value is not None:
            raise _fail(path, f"must be null, got {json_type(value)}")
        return None
    if hint in _JSON_NAMES:
        return _decode_scalar(hint, value, path)
    members = _union_members(hint)
    if members is not None:
        return _decode_union(members, value, path)
    origin = typing.get_origin(hint)
    if origin is Literal:
        for option in typing.get_args(hint):
            plain = _plain_literal(option)
            if type(plain) is type(value) and plain == value:
                return option
        allowed = ", ".join(repr(_plain_literal(option)) for option in typing.get_args(hint))
        raise _fail(path, f"must be one of {allowed}, got {value!r}")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        for member in hint:
            if type(member.value) is type(value) and member.value == value:
                return member
        allowed = ", ".join(repr(member.value) for member in hint)
        raise _fail(path, f"must be one of {allowed}, got {value!r}")
    if _is_object_class(hint):
        return hint.decode_object(value, path)
    if origin in (tuple, Sequence, list):
        return _decode_array(hint, value, path)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        if not isinstance(value, dict):
            raise _fail(path, f"must be an object, got {json_type(value)}")
        key_hint, value_hint = typing.get_args(hint) or (str, Any)
        return {
            decode(key_hint, key, f"{path} key {key!r}"): decode(
                value_hint, item, f"{path}[{key!r}]"
            )
            for key, item in value.items()
        }
    raise TypeError(f"cannot decode {hint!r}")


def _decode_scalar(hint: type, value: Any, path: str) -> Any:
    if hint is int and isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema's integer: 1.0 is one
    fits = (
        isinstance(value, bool)
        if hint is bool
        else _is_number(value)
        if hint is float
        else isinstance(value, hint) and not isinstance(value, bool)
    )
    if not fits:
        raise _fail(path, f"must be {_JSON_NAMES[hint]}, got {json_type(value)}")
    if hint is float and not math.isfinite(value):
        raise _fail(path, "must be a finite number")  # JSON has no infinity
    return float(value) if hint is float else value


def _decode_union(members: tuple[Any, ...], value: Any, path: str) -> Any:
    problems = []
    for member in members:
        try:
            return decode(member, value, path)
        except PayloadError as error:
            problems.append(str(error))
    raise PayloadError(problems[0] if len(problems) == 1 else " / ".join(problems))


def _decode_array(hint: Any, value: Any, path: str) -> tuple[Any, ...]:
    if not isinstance(value, list):
        raise _fail(path, f"must be an array, got {json_type(value)}")
    arguments = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and arguments and arguments[-1] is not Ellipsis:
        if len(value) != len(arguments):
            raise _fail(path, f"must have {len(arguments)} items, got {len(value)}")
        return tuple(
            decode(item_hint, item, f"{path}[{i}]")
            for i, (item_hint, item) in enumerate(zip(arguments, value, strict=True))
        )
    item_hint = arguments[0] if arguments else Any
    return tuple(decode(item_hint, item, f"{path}[{i}]") for i, item in enumerate(value))


_UNREAD = object()
"""What :func:`_read` gives for a value that does not fit (its default is kept)."""


def _read(hint: Any, value: Any) -> Any:
    """``value`` read leniently as ``hint``: objects by :meth:`JsonObject.read`,
    arrays and maps without the items that do not fit, no bound checked;
    :data:`_UNREAD` when it does not fit at all."""
    inner, _ = _strip(hint)
    if _is_object_class(inner):
        return inner.read(value) if isinstance(value, dict) else _UNREAD
    members = _union_members(inner)
    if members is not None:
        for member in sorted(members, key=lambda member: member is type(None)):
            result = _read(member, value)
            if result is not _UNREAD:
                return result
        return _UNREAD
    origin = typing.get_origin(inner)
    arguments = typing.get_args(inner)
    if origin in (tuple, Sequence, list):
        if not isinstance(value, list):
            return _UNREAD
        if origin is tuple and arguments and arguments[-1] is not Ellipsis:
            if len(value) != len(arguments):
                return _UNREAD
            items = [
                _read(item_hint, item) for item_hint, item in zip(arguments, value, strict=True)
            ]
            return _UNREAD if any(item is _UNREAD for item in items) else tuple(items)
        item_hint = arguments[0] if arguments else Any
        return tuple(item for item in (_read(item_hint, v) for v in value) if item is not _UNREAD)
    if origin in (dict, Mapping) or inner in (dict, Mapping):
        if not isinstance(value, dict):
            return _UNREAD
        value_hint = arguments[1] if arguments else Any
        read = {str(key): _read(value_hint, item) for key, item in value.items()}
        return {key: item for key, item in read.items() if item is not _UNREAD}
    try:
        return _decode_bare(inner, value, "$")
    except PayloadError:
        return _UNREAD


def _same(value: Any, default: Any) -> bool:
    return type(value) is type(default) and value == default


def _encode(value: Any) -> Any:
    if isinstance(value, JsonObject):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_encode(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _encode(item) for key, item in value.items()}
    return value


T = TypeVar("T", bound="JsonObject")


class JsonObject:
    """The base of every payload class (a frozen dataclass). Class settings:
    ``json_tag`` (the key whose value names the class, as ``type`` does an
    event's; the class attribute of that name holds it), ``json_closed``
    (refuse keys it does not name), ``json_description``, ``json_def`` (a
    ``$defs`` name) and ``json_extra`` (schema keywords
    the types cannot say, checked again by the class's ``__post_init__``)."""

    __slots__ = ()

    json_tag: ClassVar[str | None] = None
    json_closed: ClassVar[bool] = False
    json_description: ClassVar[str | None] = None
    json_def: ClassVar[str | None] = None
    json_extra: ClassVar[Mapping[str, Any]] = {}

    @classmethod
    def tag_value(cls) -> Any:
        """The value of ``json_tag`` that names this class."""
        assert cls.json_tag is not None, cls
        return getattr(cls, cls.json_tag)

    @classmethod
    def json_keys(cls) -> list[str]:
        """Every key a document of this class may carry, in payload order."""
        own: list[str] = []
        for field, key, hint in _fields(cls):
            own += _without_none(hint).json_keys() if field.metadata.get(_FLAT) else [key]
        return [cls.json_tag, *own] if cls.json_tag is not None else own

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """This class's JSON Schema (inline, its ``$defs`` gathered)."""
        defs: dict[str, Any] = {}
        schema = object_schema(cls, defs)
        return {**schema, "$defs": defs} if defs else schema

    @classmethod
    def from_json(cls, document: Any) -> Self:
        """A decoded JSON document checked and built into this class; a
        :class:`PayloadError` says where and why not."""
        return cls.decode_object(document, "$")

    @classmethod
    def decode_object(cls, document: Any, path: str) -> Self:
        """:meth:`from_json` of a document found at ``path``."""
        if not isinstance(document, dict):
            raise _fail(path, f"must be an object, got {json_type(document)}")
        if cls.json_tag is not None and document.get(cls.json_tag) != cls.tag_value():
            raise _fail(path, f"{cls.json_tag} must be {cls.tag_value()!r}")
        table = _fields(cls)
        if cls.json_closed:
            known = set(cls.json_keys())
            unknown = [key for key in document if key not in known]
            if unknown:
                raise _fail(path, f"unknown key {unknown[0]!r}")
        values: dict[str, Any] = {}
        for field, key, hint in table:
            where = f"{path}.{key}"
            if field.metadata.get(_FLAT):
                group = _without_none(hint)
                keys = group.json_keys()
                if any(key in document for key in keys):
                    part = {key: document[key] for key in keys if key in document}
                    values[field.name] = group.decode_object(part, path)
                continue
            if key not in document:
                if _is_required(field):
                    raise _fail(path, f"missing {key!r}")
                continue
            if _absent_as_none(field):
                hint = _without_none(hint)
            values[field.name] = decode(hint, document[key], where)
        try:
            return cls(**values, **cls._present())
        except ValueError as error:
            raise _fail(path, str(error)) from None

    @classmethod
    def _present(cls) -> dict[str, bool]:
        """The :data:`PRESENT` fields, each true (the object was read)."""
        return {
            field.name: True
            for field in dataclasses.fields(cls)  # type: ignore[arg-type]
            if field.metadata.get(_PRESENT)
        }

    @classmethod
    def read(cls, document: Any) -> Self:
        """A document read leniently (a scoreboard's reading, see the module's
        docstring): never an error; not an object, the class's defaults."""
        if not isinstance(document, dict):
            return cls()
        values: dict[str, Any] = {}
        for field, key, hint in _fields(cls):
            if field.metadata.get(_FLAT):
                group = _without_none(hint)
                if any(key in document for key in group.json_keys()):
                    values[field.name] = group.read(document)
                continue
            if key in document:
                value = _read(hint, document[key])
                if value is not _UNREAD:
                    values[field.name] = value
        try:
            return cls(**values, **cls._present())
        except ValueError:
            return cls()

    def to_json(self) -> dict[str, Any]:
        """The payload: the tag, then each field in order (an omitted one only
        with a value); tuples as arrays, enums as their values."""
        payload: dict[str, Any] = {}
        if self.json_tag is not None:
            payload[self.json_tag] = _encode(self.tag_value())
        for field, key, _ in _fields(type(self)):
            value = getattr(self, field.name)
            if field.metadata.get(_OMITTED) and _same(value, field.default):
                continue
            if value is None and field.metadata.get(_FLAT):
                continue
            if field.metadata.get(_FLAT):
                payload.update(value.to_json())
                continue
            payload[key] = _encode(value)
        return payload

"""The machinery of the server's message declarations (sans-I/O): a base class whose frozen,
slotted subclasses validate their fields on construction, write themselves as the wire map,
and read themselves back from one.

The declarations are in :mod:`.replies` (replies and unsolicited messages) and :mod:`.events`
(race events). Each field's annotation is its contract: ``int``, ``str``, ``bool``, ``float``,
``dict``, ``list``, ``None``, unions of those, ``Literal[...]`` for a closed set of values, and
``Any``. A field whose default is :data:`ABSENT` is optional: left out of the wire map when not
given (``None`` is a value: it is written as ``null``). A field named after a Python keyword
ends in ``_`` (``from_``) and is written without it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, ClassVar


class ShapeError(ValueError):
    """A message that does not match its declaration: a bug of the side that built it (the
    server never sends one; a client that checks what it receives raises it)."""


class _Absent:
    """The default of an optional field: the field is not written."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def _check(annotation: Any) -> Any:
    """A predicate for one field annotation (built once per class)."""
    if annotation is Any:
        return lambda v: True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [_check(a) for a in typing.get_args(annotation)]
        return lambda v: any(p(v) for p in parts)
    if origin is typing.Literal:
        allowed = frozenset(typing.get_args(annotation))
        return lambda v: type(v) is str and v in allowed
    if annotation is type(None) or annotation is None:
        return lambda v: v is None
    if annotation is bool:
        return lambda v: type(v) is bool
    if annotation is int:  # a bool is not an int here, as in the requests
        return lambda v: isinstance(v, int) and type(v) is not bool
    if annotation is float:  # an int is a float on the wire (JSON writes 2.0 as 2)
        return lambda v: isinstance(v, (int, float)) and type(v) is not bool
    base = origin if origin is not None else annotation
    if base in (dict, list, str):
        return lambda v: isinstance(v, base)
    raise TypeError(f"no check for the annotation {annotation!r}")


class Spec(typing.NamedTuple):
    """One field: its attribute name, its wire name, its check, whether it may be absent."""

    attr: str
    wire: str
    check: Any
    optional: bool


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Shape:
    """Base of every message the server sends. ``TYPE`` is its ``t``; subclasses are frozen,
    slotted, keyword-only dataclasses (see the module's docstring for the field rules)."""

    TYPE: ClassVar[str] = ""
    SPECS: ClassVar[tuple[Spec, ...]] = ()
    WIRE_NAMES: ClassVar[dict[str, str]] = {}

    def __post_init__(self) -> None:
        for spec in self.SPECS:
            value = getattr(self, spec.attr)
            if value is ABSENT:
                if not spec.optional:
                    raise ShapeError(f"{self._label()}: {spec.wire} is required")
            elif not spec.check(value):
                raise ShapeError(
                    f"{self._label()}: {spec.wire} has the wrong type "
                    f"({type(value).__name__}: {value!r:.60})")

    def _label(self) -> str:
        return self.TYPE

    def head(self) -> dict[str, Any]:
        """The map's first keys (``t``; an event adds its own)."""
        return {"t": self.TYPE}

    def wire(self, re: Any = None) -> dict[str, Any]:
        """The message as the codec writes it: ``t``, the fields in declaration order (absent
        ones left out), then ``re`` when it answers a request."""
        msg = self.head()
        for spec in self.SPECS:
            value = getattr(self, spec.attr)
            if value is not ABSENT:
                msg[spec.wire] = value
        if re is not None:
            msg["re"] = re
        return msg

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> Shape:
        """An instance from wire-named ``fields`` (not ``t``, ``re``); an unknown field raises
        :class:`ShapeError` — the server never sends one."""
        names = cls.WIRE_NAMES
        kwargs: dict[str, Any] = {}
        for key, value in fields.items():
            attr = names.get(key)
            if attr is None:
                raise ShapeError(f"{cls.TYPE}: unknown field {key!r}")
            kwargs[attr] = value
        try:
            return cls(**kwargs)
        except TypeError as exc:  # a required field missing
            raise ShapeError(f"{cls.TYPE}: {exc}") from None


def declare(cls: type[Shape]) -> type[Shape]:
    """Finish a :class:`Shape` subclass: its field specs, read once from its annotations."""
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        wire = f.name[:-1] if f.name.endswith("_") else f.name
        specs.append(Spec(f.name, wire, _check(hints[f.name]), f.default is ABSENT))
    cls.SPECS = tuple(specs)
    cls.WIRE_NAMES = {s.wire: s.attr for s in specs}
    return cls

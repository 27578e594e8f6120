"""One generic name registry for the whole package: models, suites, responders, build targets,
commands and tasks are all looked up through :class:`Registry`.

A registry maps names to entries. An entry is either the object itself or a lazy reference
written ``"module:object"`` (``"module:object.attr"`` for a nested attribute), imported on the
first :meth:`Registry.get`, so that registering costs no import. Duplicate names are refused,
and an unknown name raises ``ValueError`` listing the known names. This module imports nothing
else of the package: every room may use it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

__all__ = ["Registry", "resolve_object"]


def resolve_object(spec: str) -> Any:
    """``"module:object"`` (or ``"module:object.attr"``) -> the object, imported now.

    ``ValueError`` when ``spec`` is not written that way; ``ImportError``/``AttributeError``
    name the missing part.
    """
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a string 'module:object', got {type(spec).__name__}")
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"spec must be written 'module:object', got {spec!r}")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"{spec!r}: module {module!r} has no attribute {attr!r}") from None
    return obj


class Registry(Generic[T]):
    """Names -> entries of one kind (``kind`` names it in error messages, e.g. ``"suite"``).

    ``loader``: optional zero-argument callable run once before the first lookup (imports the
    modules whose decorators fill the registry).
    """

    def __init__(self, kind: str, *, loader: Callable[[], None] | None = None) -> None:
        self.kind = kind
        self._entries: dict[str, T | str] = {}
        self._loader = loader
        self._loaded = loader is None

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True  # before calling: the loader registers through this registry
            assert self._loader is not None
            self._loader()

    def add(self, name: str, entry: T | str) -> None:
        """Register ``entry`` (an object, or a lazy ``"module:object"`` string) under ``name``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.kind} name must be a non-empty string, got {name!r}")
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, entry: T | str) -> None: ...

    def register(self, name: str, entry: Any = None) -> Any:
        """``register(name, entry)`` adds now; ``@register(name)`` is the decorator form."""
        if entry is not None:
            self.add(name, entry)
            return None

        def deco(obj: T) -> T:
            self.add(name, obj)
            return obj

        return deco

    def get(self, name: str) -> T:
        """The entry of ``name`` (lazy references are imported and cached)."""
        self._load()
        if not isinstance(name, str) or name not in self._entries:
            raise ValueError(f"{self.kind} must be one of {self.names()}, got {name!r}")
        entry = self._entries[name]
        if isinstance(entry, str):
            entry = resolve_object(entry)
            self._entries[name] = entry
        return entry  # type: ignore[return-value]

    def names(self) -> list[str]:
        """The registered names, sorted."""
        self._load()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} entries)"

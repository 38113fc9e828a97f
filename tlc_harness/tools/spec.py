"""What a run may see: a main module and the other files staged beside it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tlc_harness.source.header import header_module

MAX_FILE_BYTES = 10 * 1024 * 1024


class SpecInputError(ValueError):
    """A spec cannot be staged (missing file, unreadable, too large, no module name)."""


def module_name_of(text: str) -> str | None:
    """The name in the first `---- MODULE Name ----` header, if any."""
    hit = header_module(text)
    return hit.group(1) if hit else None


@dataclass(frozen=True)
class SpecSource:
    """A main module plus the files staged with it, as file name -> text."""

    main: str
    files: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if f"{self.main}.tla" not in self.files:
            raise SpecInputError(f"module {self.main} has no file {self.main}.tla among the inputs")
        for name in self.files:
            if "/" in name or "\\" in name or name.startswith("."):
                raise SpecInputError(f"file name {name!r} must be a plain name")

    @classmethod
    def from_text(cls, text: str, extra: Mapping[str, str] | None = None) -> SpecSource:
        """A single module given as text; its header names it."""
        name = module_name_of(text)
        if name is None:
            raise SpecInputError("no `---- MODULE Name ----` header in the given text")
        return cls(name, {**(extra or {}), f"{name}.tla": text})

    @classmethod
    def from_path(cls, path: str | Path, *, siblings: bool = True) -> SpecSource:
        """A module file, with the other `.tla` files of its folder when `siblings`."""
        path = Path(path)
        if not path.is_file():
            raise SpecInputError(f"{path}: no such file")
        main = path.stem
        files = {path.name: read_text(path)}
        if siblings:
            for other in sorted(path.parent.glob("*.tla")):
                if other.name != path.name and other.is_file():
                    files[other.name] = read_text(other)
        return cls(main, files)


def read_text(path: Path) -> str:
    """Read a spec file as text, refusing absurd sizes before anything runs."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SpecInputError(
                f"{path}: {size:,} bytes is larger than the {MAX_FILE_BYTES:,}-byte limit"
            )
        return path.read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        raise SpecInputError(f"{path}: cannot read: {exc.strerror or exc}") from exc

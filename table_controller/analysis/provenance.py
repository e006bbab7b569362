"""What a result was computed for: the game, the house way and the pay tables, by name and
by the SHA-256 of the files' bytes (docs/design.md, "Rules as evidence")."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..game.cards import Game
from ..game.evaluator import RankingRules
from ..game.house_way import load_house_way
from ..game.paytables import DEFAULT_FILES, Bonus, PayTable, load_paytable, paytables_dir
from ..shipped import CONFIG_DIR

HOUSE_WAYS_DIR = CONFIG_DIR / "house_ways"


def sha256_file(path: Path | str) -> str:
    """SHA-256 of a file's bytes, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass(frozen=True, slots=True)
class FileRef:
    """A rules file by name, path and content hash."""

    name: str
    path: str
    sha256: str

    @classmethod
    def of(cls, name: str, path: Path | str) -> FileRef:
        return cls(name=name, path=str(path), sha256=sha256_file(path))


@dataclass(frozen=True, slots=True)
class Provenance:
    """The game, ranking rules, house way and pay tables a figure was computed for."""

    game: str
    wheel: str
    joker_wild_in_low: bool
    house_way: FileRef
    big_hand: FileRef | None
    joker_bonus: FileRef | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def house_way_path(name: str, directory: Path | None = None) -> Path:
    """The file of the house way ``name`` (validated by loading it)."""
    load_house_way(name, directory)
    return (directory or HOUSE_WAYS_DIR) / f"{name}.toml"


def paytable_path(bonus: Bonus, path: Path | str | None) -> Path:
    return Path(path) if path is not None else paytables_dir() / DEFAULT_FILES[bonus]


def load_paytable_ref(bonus: Bonus, path: Path | str | None) -> tuple[PayTable, FileRef]:
    """A pay table and its file reference (name = the file's stem)."""
    file = paytable_path(bonus, path)
    return load_paytable(bonus, file), FileRef.of(file.stem, file)


def provenance(
    game: Game,
    ranking: RankingRules,
    house_way: str,
    big_hand: FileRef | None = None,
    joker_bonus: FileRef | None = None,
    house_way_dir: Path | None = None,
) -> Provenance:
    return Provenance(
        game=game.value,
        wheel=ranking.wheel.value,
        joker_wild_in_low=ranking.joker_wild_in_low,
        house_way=FileRef.of(house_way, house_way_path(house_way, house_way_dir)),
        big_hand=big_hand,
        joker_bonus=joker_bonus,
    )


__all__ = ["FileRef", "Provenance", "house_way_path", "load_paytable_ref", "provenance", "sha256_file"]

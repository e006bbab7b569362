"""The rules a round is decided under, pinned by content (docs/audit-chain.md, "Rules pinned by
content").

At a round's opening the table's house way file, its pay table files and its table-rules
snapshot are hashed (SHA-256 of the exact bytes), kept in the store's evidence table
(storage/rules_store.py) and named by hash in ``round.opened`` (``evidence``). Replay, the
API and ``audit verify`` rebuild the round's rules from those bytes, refused when they no
longer hash to the pin, so editing a way's file never changes how an old round replays: the
edit is a new version that new rounds use. Records older than the pins replay by name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from ..game.house_way import HouseWay
from ..game.house_way.loader import WAYS_DIRECTORY, build_house_way, load_house_way
from ..game.paytables import DEFAULT_FILES, Bonus, paytable_from_mapping, paytables_dir
from ..game.side_wagers import SNAPSHOT_KEY, SideRules
from ..game.table_rules import TableRules
from ..round.events import RoundOpened
from ..round.rules import GameRoundRules
from ..storage.chain import canonical_payload
from ..storage.rules_store import EvidenceMismatchError, keep_evidence, load_evidence, sha256_hex
from ..storage.session import read_snapshot

HOUSE_WAY = "house_way"
TABLE_RULES = "table_rules"
PAYTABLE = "paytable."  # + the bonus: "paytable.big-hand", "paytable.joker-bonus"
_PAYTABLE_FIELDS = {Bonus.BIG_HAND: "big_hand", Bonus.JOKER: "joker_bonus"}


@dataclass(frozen=True)
class Content:
    """One pinned content: its key in ``round.opened``'s evidence, its kind, name and bytes."""

    key: str
    kind: str
    name: str
    content: bytes

    @property
    def sha256(self) -> str:
        return sha256_hex(self.content)


@dataclass(frozen=True)
class RulesVersion:
    """The table's rules as they are now, with the contents that pin them."""

    rules: GameRoundRules
    snapshot: dict[str, Any]  # what round.opened records as ``rules``
    contents: tuple[Content, ...]
    way_file: Path
    way_stamp: tuple[int, int] = field(default=(0, 0))  # (mtime_ns, size) when read
    side: SideFiles | None = None  # the side wagers' files as read at start

    @property
    def evidence(self) -> dict[str, str]:
        """What round.opened records as ``evidence``: key -> SHA-256."""
        return {item.key: item.sha256 for item in self.contents}


def table_rules_bytes(table_snapshot: Mapping[str, Any]) -> bytes:
    """The bytes a table-rules snapshot is pinned by: its canonical JSON (storage/chain.py)."""
    return canonical_payload(table_snapshot).encode("utf-8")


def way_from_bytes(content: bytes, name: str, source: str) -> HouseWay:
    """A house way built from a way file's exact bytes (HouseWayFileError if it is not one).

    Built once per content (cached by the bytes themselves: the same bytes are the same way,
    so the cache never needs clearing)."""
    return _built_way(content, name, source)


@lru_cache(maxsize=16)
def _built_way(content: bytes, name: str, source: str) -> HouseWay:
    from ..game.house_way.errors import HouseWayFileError

    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise HouseWayFileError(source, f"not valid TOML: {error}") from None
    way = build_house_way(data, source)
    if way.name != name:
        raise HouseWayFileError(source, f"the file names the way {way.name!r}, not {name!r}")
    return way


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return (info.st_mtime_ns, info.st_size)


def current_rules(
    table: TableRules,
    way_name: str,
    directory: Path | None = None,
    side: SideFiles | None = None,
) -> RulesVersion:
    """The table's rules from the files as they are now (the way built from the bytes hashed);
    ``side``: the side wagers' pay table files and rules, when the table offers them."""
    way_file = (WAYS_DIRECTORY if directory is None else directory) / f"{way_name}.toml"
    stamp = _stamp(way_file)
    way_bytes = way_file.read_bytes()
    rules = GameRoundRules(
        table=table,
        way=way_from_bytes(way_bytes, way_name, str(way_file)),
        side=None if side is None else side.rules,
    )
    snapshot = rules.snapshot()
    contents = [
        Content(HOUSE_WAY, "house-way", way_name, way_bytes),
        Content(TABLE_RULES, "table-rules", table.game.value, table_rules_bytes(snapshot["table"])),
    ]
    for bonus, name in _PAYTABLE_FIELDS.items():
        in_force = table.paytable(bonus)
        if in_force is None:
            continue
        file = paytables_dir() / DEFAULT_FILES[bonus]
        data = file.read_bytes()
        from_file = paytable_from_mapping(tomllib.loads(data.decode("utf-8")), bonus, source=str(file))
        if from_file.lines == in_force.lines:  # the shipped file is in force: pin its bytes
            contents.append(Content(PAYTABLE + bonus.value, "paytable", file.stem, data))
        else:  # a table given in the settings: pin its canonical JSON
            contents.append(
                Content(
                    PAYTABLE + bonus.value,
                    "paytable",
                    f"{bonus.value}-settings",
                    table_rules_bytes(snapshot["table"][name]),
                )
            )
    if side is not None:  # the side wagers' files, pinned by their bytes (their data is in the snapshot)
        contents += [Content(PAYTABLE + key, "paytable", name, data) for key, name, data in side.files]
    return RulesVersion(rules, snapshot, tuple(contents), way_file, stamp, side)


@dataclass(frozen=True)
class SideFiles:
    """The side wagers a table offers, read from their files once at start: the rules built
    from the files' data, and the files' bytes to pin (``(key, name, bytes)``: ``fortune``,
    ``progressive``)."""

    rules: SideRules
    files: tuple[tuple[str, str, bytes], ...]


def side_files(
    *,
    fortune: Path | None,
    progressive: Path | None,
    envy: Any = None,
    pool_id: str | None = None,
) -> SideFiles | None:
    """Read the side wagers' pay table files (None when the table offers neither); the rules
    are built from the very bytes that are pinned."""
    if fortune is None and progressive is None:
        return None
    files: list[tuple[str, str, bytes]] = []
    data: dict[str, Any] = {}
    for key, path in (("fortune", fortune), ("progressive", progressive)):
        if path is None:
            continue
        content = path.read_bytes()
        data[key] = tomllib.loads(content.decode("utf-8"))
        files.append((key, path.stem, content))
    rules = SideRules(
        fortune_data=data.get("fortune"),
        progressive_data=data.get("progressive"),
        pool_id=pool_id if progressive is not None else None,
        **({} if envy is None else {"envy": envy}),
    )
    return SideFiles(rules, tuple(files))


def refreshed(version: RulesVersion) -> RulesVersion:
    """``version``, or a new one when its way file changed on disk (a new version for new rounds)."""
    if _stamp(version.way_file) == version.way_stamp:
        return version
    found = current_rules(version.rules.table, version.rules.way.name, version.way_file.parent, version.side)
    return version if found.evidence == version.evidence else found


def keep_version(session: Session, *, table_id: str, version: RulesVersion) -> dict[str, str]:
    """Store the version's contents by hash (chained the first time each is stored)."""
    for item in version.contents:
        keep_evidence(session, table_id=table_id, kind=item.kind, name=item.name, content=item.content)
    return version.evidence


def rules_from_snapshot(snapshot: Mapping[str, Any]) -> GameRoundRules:
    """A round's rules from its ``round.opened`` snapshot alone (``{"table": TableRules as
    JSON, "house_way": name}``), the house way loaded by name from config/house_ways: for a
    round that pinned no contents by hash."""
    return GameRoundRules(
        table=TableRules.model_validate(snapshot["table"]),
        way=load_house_way(snapshot["house_way"]),
        side=SideRules.from_snapshot(snapshot.get(SNAPSHOT_KEY)),
    )


class PinnedRules:
    """``rules_for`` of the recorder: a round's rules from the contents its opening pinned."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine
        self._ways: dict[str, HouseWay] = {}  # by SHA-256: a pinned content never changes

    def __call__(self, opened: RoundOpened) -> GameRoundRules:
        if not opened.evidence:
            return rules_from_snapshot(opened.rules)
        if self.engine is None:
            raise ValueError("rules pinned by hash need the store to load them")
        with read_snapshot(self.engine) as session:
            return self.load(session, opened)

    def load(self, session: Session, opened: RoundOpened) -> GameRoundRules:
        """The round's rules, loaded by the hashes it names; EvidenceError when they cannot be."""
        pins = opened.evidence
        if not pins:
            return rules_from_snapshot(opened.rules)
        table_pin = pins.get(TABLE_RULES)
        found = sha256_hex(table_rules_bytes(opened.rules["table"]))
        if table_pin != found:
            raise EvidenceMismatchError(
                f"round {opened.round_id}: its table rules hash to {found}, its opening pinned {table_pin}"
            )
        side = opened.rules.get(SNAPSHOT_KEY) or {}
        for key, pin in pins.items():
            if key.startswith(PAYTABLE):
                stored = load_evidence(session, sha256=pin)  # present and whole, or refused
                name = key.removeprefix(PAYTABLE)
                if name in ("fortune", "progressive") and tomllib.loads(
                    stored.content.decode("utf-8")
                ) != side.get(name):
                    raise EvidenceMismatchError(
                        f"round {opened.round_id}: its {name} pay table is not the file its opening pinned"
                    )
        way_pin = pins.get(HOUSE_WAY)
        if way_pin is None:
            raise EvidenceMismatchError(f"round {opened.round_id}: its opening pins no house way")
        way = self._ways.get(way_pin)
        if way is None:
            stored = load_evidence(session, sha256=way_pin)
            way = way_from_bytes(stored.content, str(opened.rules["house_way"]), f"house way {way_pin[:12]}")
            self._ways[way_pin] = way
        return GameRoundRules(
            table=TableRules.model_validate(opened.rules["table"]),
            way=way,
            side=SideRules.from_snapshot(opened.rules.get(SNAPSHOT_KEY)),
        )


__all__ = [
    "HOUSE_WAY",
    "PAYTABLE",
    "TABLE_RULES",
    "Content",
    "PinnedRules",
    "RulesVersion",
    "SideFiles",
    "current_rules",
    "keep_version",
    "refreshed",
    "rules_from_snapshot",
    "side_files",
    "table_rules_bytes",
    "way_from_bytes",
]

"""Which table a computation is for: the configured table (``settings.load_settings``), with
the game, house way or pay-table files given on the command line instead."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..game.cards import Game
from ..game.paytables import Bonus, PayTable
from ..game.table_rules import TableRules
from ..settings import TableSettings, load_settings
from .provenance import FileRef, Provenance, load_paytable_ref, paytable_path, provenance


@dataclass(frozen=True)
class AnalysedTable:
    settings: TableSettings
    rules: TableRules
    house_way: str
    big_hand: PayTable | None
    joker_bonus: PayTable | None
    provenance: Provenance


def _paytable(
    bonus: Bonus, given: Path | None, configured: PayTable | None
) -> tuple[PayTable | None, FileRef | None]:
    if given is not None:
        return load_paytable_ref(bonus, given)
    if configured is None:
        return None, None
    source = Path(configured.source) if configured.source and Path(configured.source).is_file() else None
    table, ref = load_paytable_ref(bonus, paytable_path(bonus, source))
    if table != configured:  # the configured table is not the file's (built in memory)
        raise ValueError(f"the table's {bonus.value} pay table is not a file; give it with its option")
    return configured, ref


def analysed_table(
    config: Path | None = None,
    game: Game | None = None,
    house_way: str | None = None,
    big_hand: Path | None = None,
    joker_bonus: Path | None = None,
) -> AnalysedTable:
    """The configured table, overridden by what is given."""
    settings = load_settings(config, game=game, house_way=house_way)
    rules = settings.table_rules()
    big_table, big_ref = _paytable(Bonus.BIG_HAND, big_hand, rules.big_hand)
    joker_table, joker_ref = _paytable(Bonus.JOKER, joker_bonus, rules.joker_bonus)
    prov = provenance(settings.game, rules.ranking, settings.house_way, big_ref, joker_ref)
    return AnalysedTable(settings, rules, settings.house_way, big_table, joker_table, prov)


__all__ = ["AnalysedTable", "analysed_table"]

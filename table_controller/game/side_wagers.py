"""The round's side wagers: the Fortune Bonus with its Envy Bonus and the progressive wager,
settled from the card read (progressive-research.md §1.2-§1.8; docs/progressive.md, "At the
table").

A table offers them by its settings (``[fortune]``, ``[progressive]``); ``SideRules`` is what
a round is decided under, kept in the round's rules snapshot as the pay tables' own data (the
parsed files, pinned by their bytes' SHA-256), so an old round replays under the tables it
was played under.

- Each position's **seven** cards are read against the Fortune table, however the hand is set
  (§1.1), so a fouled or unset hand is still paid on its seven cards.
- Envy goes to every other envy-eligible position once per qualifying hand; the dealer's hand
  never qualifies; a player-banker's hand qualifies as ``EnvyRules`` say (§1.8 q2).
- The progressive wager is collected (its contributions go to the pool's meters when the
  wagers lock); a fixed or "to 1" line is paid by the table here; a meter line is a *claim*
  on the pool, whose amount the pool decides when the hit is resolved
  (game/progressive.py): it is not part of the table's money of the round.

Pure: no I/O. Integer cents; nothing is rounded (odds are whole numbers, envy whole cents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import Card
from .evaluator import DEFAULT_RULES, RankingRules
from .fortune import (
    EnvyEligibility,
    EnvyRules,
    FortuneAmount,
    FortuneHand,
    FortunePayTable,
    Reason,
    fortune_hand,
    fortune_paytable_from_mapping,
    settle_fortune,
)
from .money import Cents
from .progressive_paytable import (
    AwardKind,
    ProgressivePayTable,
    ProgressivePayTableError,
    progressive_paytable_from_mapping,
)

SNAPSHOT_KEY: Final = "side"  # the key of the round's rules snapshot that holds them


class SideWagerError(ValueError):
    """A side wager the table does not take (not offered, not the fixed amount, no main wager)."""


@dataclass(frozen=True, slots=True)
class SideRules:
    """What a round's side wagers are decided under: the Fortune table and its envy rules, the
    progressive table and the pool it contributes to. ``fortune_data`` and ``progressive_data``
    are the pay tables as their files hold them (parsed TOML), which the snapshot keeps."""

    fortune_data: Mapping[str, Any] | None = None
    envy: EnvyRules = field(default_factory=EnvyRules)
    progressive_data: Mapping[str, Any] | None = None
    pool_id: str | None = None
    fortune: FortunePayTable | None = field(init=False, default=None)
    progressive: ProgressivePayTable | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if self.fortune_data is not None:
            object.__setattr__(self, "fortune", fortune_paytable_from_mapping(self.fortune_data))
        if self.progressive_data is not None:
            if not self.pool_id:
                raise ProgressivePayTableError("a progressive wager needs the pool it contributes to")
            object.__setattr__(self, "progressive", progressive_paytable_from_mapping(self.progressive_data))

    @property
    def offered(self) -> bool:
        return self.fortune is not None or self.progressive is not None

    def snapshot(self) -> dict[str, Any]:
        """JSON data for the round's rules snapshot (``from_snapshot`` reads it back)."""
        return {
            "fortune": None if self.fortune_data is None else dict(self.fortune_data),
            "envy": {
                "minimum_wager": self.envy.minimum_wager,
                "eligibility": self.envy.eligibility.value,
                "player_banker_hand_qualifies": self.envy.player_banker_hand_qualifies,
                "trigger_needs_wager": self.envy.trigger_needs_wager,
            },
            "progressive": None if self.progressive_data is None else dict(self.progressive_data),
            "pool_id": self.pool_id,
        }

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any] | None) -> SideRules | None:
        """The rules a snapshot holds; None for a snapshot without side wagers (older rounds)."""
        if not data:
            return None
        envy = dict(data.get("envy") or {})
        if "eligibility" in envy:
            envy["eligibility"] = EnvyEligibility(envy["eligibility"])
        return cls(
            fortune_data=data.get("fortune"),
            envy=EnvyRules(**envy),
            progressive_data=data.get("progressive"),
            pool_id=data.get("pool_id"),
        )

    def check_wager(self, position: int, fortune: Cents, progressive: Cents) -> None:
        """A side wager the table takes: offered, whole cents, the progressive its fixed amount
        (§1.6; a toke on the progressive is refused by the pay table, PRG-21)."""
        for name, amount, offered in (
            ("fortune", fortune, self.fortune is not None),
            ("progressive", progressive, self.progressive is not None),
        ):
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise SideWagerError(f"position {position}: the {name} wager must be whole cents >= 0")
            if amount and not offered:
                raise SideWagerError(f"position {position}: this table offers no {name} wager")
        if progressive and self.progressive is not None and progressive != self.progressive.wager:
            raise SideWagerError(
                f"position {position}: the progressive wager is {self.progressive.wager} cents, "
                f"got {progressive}"
            )


@dataclass(frozen=True, slots=True)
class EnvyPaid:
    """One envy amount a position received: whose hand triggered it and its line."""

    from_position: int
    hand: str
    amount: Cents


@dataclass(frozen=True, slots=True)
class MeterClaim:
    """A progressive line that pays from a pool's meter: the amount is the pool's to decide."""

    level: str
    share_bp: int


@dataclass(frozen=True, slots=True)
class SidePosition:
    """One position's side wagers settled (cents, from the player's side)."""

    position: int
    hand: str  # the Fortune line of its seven cards
    fortune_wager: Cents
    fortune_odds: int | None
    fortune_net: Cents  # +odds x wager, or -wager; 0 without a wager
    envy_eligible: bool
    envy: tuple[EnvyPaid, ...]
    progressive_wager: Cents
    progressive_award: str | None  # the line's award in words, None when it loses
    progressive_net: Cents  # a fixed or odds award less the wager, or -wager; a meter claim: -wager
    meter_claim: MeterClaim | None

    @property
    def envy_total(self) -> Cents:
        return sum(paid.amount for paid in self.envy)

    @property
    def net(self) -> Cents:
        """The position's side result paid at the table (meter awards come from the pool)."""
        return self.fortune_net + self.envy_total + self.progressive_net

    @property
    def paid(self) -> Cents:
        """What the table pays on top of the wagers returned: wins, envy, fixed awards' gain."""
        return max(self.fortune_net, 0) + self.envy_total + max(self.progressive_net, 0)


@dataclass(frozen=True, slots=True)
class SideSettlement:
    """Every side-wagering position's result for one round, in position order, and the hands
    that triggered envy (``qualifying``, by position)."""

    positions: tuple[SidePosition, ...]
    qualifying: Mapping[int, str] = field(default_factory=dict)

    @property
    def wagered(self) -> Cents:
        return sum(p.fortune_wager + p.progressive_wager for p in self.positions)

    @property
    def paid(self) -> Cents:
        return sum(p.paid for p in self.positions)

    @property
    def collected(self) -> Cents:
        """Side wagers the house took (lost Fortune wagers, progressive wagers that won no
        fixed award: a progressive wager that won a fixed award is counted in its net)."""
        return sum(max(-p.fortune_net, 0) + max(-p.progressive_net, 0) for p in self.positions)

    @property
    def house_result(self) -> Cents:
        """What the house gained (negative: lost) on the side wagers at the table."""
        return -sum(p.net for p in self.positions)

    def position(self, number: int) -> SidePosition | None:
        return next((p for p in self.positions if p.position == number), None)

    def totals(self) -> dict[str, Cents]:
        return {
            "side_wagered": self.wagered,
            "side_paid": self.paid,
            "side_collected": self.collected,
            "side_house_result": self.house_result,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "positions": [
                {
                    "position": p.position,
                    "hand": p.hand,
                    "fortune_wager": p.fortune_wager,
                    "fortune_odds": p.fortune_odds,
                    "fortune_net": p.fortune_net,
                    "envy_eligible": p.envy_eligible,
                    "envy": [
                        {"from_position": e.from_position, "hand": e.hand, "amount": e.amount} for e in p.envy
                    ],
                    "progressive_wager": p.progressive_wager,
                    "progressive_award": p.progressive_award,
                    "progressive_net": p.progressive_net,
                    "meter_claim": None
                    if p.meter_claim is None
                    else {"level": p.meter_claim.level, "share_bp": p.meter_claim.share_bp},
                }
                for p in self.positions
            ],
            "qualifying": {str(position): hand for position, hand in sorted(self.qualifying.items())},
            "totals": self.totals(),
        }


def settle_side(
    rules: SideRules,
    hands: Mapping[int, Sequence[Card]],
    wagers: Mapping[int, tuple[Cents, Cents]],
    *,
    dealer_position: int,
    player_banker_position: int | None = None,
    ranking: RankingRules = DEFAULT_RULES,
) -> SideSettlement:
    """Settle one round's side wagers from the card read (module docstring).

    ``hands``: the seven cards of every occupied position and the dealer's (discarded piles
    left out, §1.8 q3); ``wagers``: (Fortune, progressive) cents by position.
    """
    fortune_wagers = {p: f for p, (f, _g) in wagers.items() if f}
    progressive_wagers = {p: g for p, (_f, g) in wagers.items() if g}
    fortune_result = None
    if rules.fortune is not None:
        fortune_result = settle_fortune(
            hands,
            fortune_wagers,
            rules.fortune,
            dealer_position=dealer_position,
            player_banker_position=player_banker_position,
            progressive_wagers=progressive_wagers,
            rules=rules.envy,
            ranking=ranking,
        )
    elif fortune_wagers:
        raise SideWagerError("a Fortune wager on a table that offers none")
    if progressive_wagers and rules.progressive is None:
        raise SideWagerError("a progressive wager on a table that offers none")
    positions = []
    for position in sorted(set(fortune_wagers) | set(progressive_wagers) | _eligible(fortune_result)):
        hand = fortune_hand(hands[position], ranking)
        fortune_net, odds, eligible = 0, None, False
        envy: tuple[EnvyPaid, ...] = ()
        if fortune_result is not None and any(r.position == position for r in fortune_result.positions):
            result = fortune_result.of(position)
            eligible = result.envy_eligible
            fortune_net = sum(a.amount for a in result.amounts if a.reason is not Reason.ENVY)
            odds = next((a.odds for a in result.amounts if a.reason is not Reason.ENVY), None)
            envy = tuple(_envy(a) for a in result.amounts if a.reason is Reason.ENVY)
        wager = progressive_wagers.get(position, 0)
        award_words: str | None = None
        progressive_net = 0
        claim: MeterClaim | None = None
        if wager:
            assert rules.progressive is not None
            award = rules.progressive.award(hand)
            progressive_net = -wager
            if award is not None:
                award_words = award.describe()
                if award.kind is AwardKind.METER:
                    claim = MeterClaim(award.level, award.share_bp)
                else:
                    progressive_net = award.gross(wager, 0) - wager
        positions.append(
            SidePosition(
                position=position,
                hand=hand.label,
                fortune_wager=fortune_wagers.get(position, 0),
                fortune_odds=odds,
                fortune_net=fortune_net,
                envy_eligible=eligible,
                envy=envy,
                progressive_wager=wager,
                progressive_award=award_words,
                progressive_net=progressive_net,
                meter_claim=claim,
            )
        )
    qualifying = {} if fortune_result is None else {p: h.label for p, h in fortune_result.qualifying.items()}
    return SideSettlement(tuple(positions), qualifying)


def _eligible(result: Any) -> set[int]:
    return set() if result is None else {r.position for r in result.positions}


def _envy(amount: FortuneAmount) -> EnvyPaid:
    assert amount.from_position is not None
    return EnvyPaid(amount.from_position, FortuneHand(amount.hand).label, amount.amount)


__all__ = [
    "SNAPSHOT_KEY",
    "EnvyPaid",
    "MeterClaim",
    "SidePosition",
    "SideRules",
    "SideSettlement",
    "SideWagerError",
    "settle_side",
]

"""A simulated gaming day at table PG-1, worked out by hand (docs/accounting.md, "A worked
day"): three rounds settled by the game core, two buy-ins into the drop, a fill, a credit, a
voided fill, the opener and the closer. Gaming day 2026-12-03 in New York (EST, UTC-5): 06:00
local is 11:00 UTC; every time below is UTC.

The rounds (banker 9h 9d Kc 7s 4h | Qd 5c, tests/game/test_banking.py's hands):
  A (15:00) house banks: seat 2 $100 wins both (+$100 - $5.00 commission = +$95), seat 5 $50
    pushes, seat 7 $25 loses: house -$95 + $25 = -$70.00
  B (15:30) house banks: seat 2 $40 wins (+$40 - $2 = +$38), seat 7 $200 loses: house +$162.00
  C (16:00) seat 3 banks $100, the house's hand wagers $20 (position 6 = seat 1): positions 2, 5,
    7 are seats 4, 7, 2. Seat 4 $25 wins (+$23.75), seat 7 $10 pushes, seat 2 $40 loses; the bank
    wins $40 + $20 - $25 = $35, pays $1.75: +$33.25; the house: $1.25 + $1.75 - $20 = -$17.00
  computed result: -7,000 + 16,200 - 1,700 = 7,500 cents

The tray: opener $1 x 100, $5 x 200, $25 x 200, $100 x 50 = 100 + 1,000 + 5,000 + 5,000 = $11,100.
  - $500 of chips for seat 2's cash, $1,000 for seat 7's marker (the drop: $500 + $1,000)
  - the rounds: -$70 + $162 - $17 = +$75 (money between the players and the banker never
    touches the tray)
  - fill $25 x 40 = $1,000 in; credit $100 x 20 = $2,000 out; fill 3 ($5 x 100) voided
  closer: 11,100 - 1,500 + 75 + 1,000 - 2,000 = $8,675 = $1 x 85, $5 x 118, $25 x 200, $100 x 30
  win = drop + (closer - opener) + credits - fills = 1,500 + (8,675 - 11,100) + 2,000 - 1,000
      = $75.00 = the computed result; hold = 75 / 1,500 = 5.00%
"""

from datetime import UTC, date, datetime

from table_controller.accounting.chips import Chips, CountKind, InventoryCount
from table_controller.accounting.drop import DropEntry, DropKind, DropSource
from table_controller.accounting.facts import SettledRound, settled_round
from table_controller.accounting.gaming_day import GamingDayCalendar
from table_controller.accounting.slips import SlipKind, deliver, request_slip, void_slip
from table_controller.game.banking import Bank
from table_controller.game.cards import parse_cards
from table_controller.game.setting import Setting
from table_controller.game.settlement import BankerHand, PositionHand, settle_round
from table_controller.game.table_rules import TableRules

CALENDAR = GamingDayCalendar("America/New_York")
DAY = date(2026, 12, 3)
PERIOD = CALENDAR.day_period(DAY)
TABLE = "PG-1"
OPENER_CHIPS = Chips.of({100: 100, 500: 200, 2500: 200, 10000: 50})
CLOSER_CHIPS = Chips.of({100: 85, 500: 118, 2500: 200, 10000: 30})


def at(hour: int, minute: int = 0, day: int = 3) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=UTC)


def _setting(high: str, low: str) -> Setting:
    return Setting(high=parse_cards(high), low=parse_cards(low))


def _hand(position: int, high: str, low: str, wager: int) -> PositionHand:
    return PositionHand(position, parse_cards(f"{high} {low}"), _setting(high, low), wager)


BANKER = BankerHand(parse_cards("9h 9d Kc 7s 4h Qd 5c"), _setting("9h 9d Kc 7s 4h", "Qd 5c"))


def _wins(position: int, wager: int) -> PositionHand:
    return _hand(position, "Th Td As 8c 3s", "Kd Jc", wager)


def _pushes(position: int, wager: int) -> PositionHand:
    return _hand(position, "Jh Js Ah 6c 2s", "Tc 4d", wager)


def _loses(position: int, wager: int) -> PositionHand:
    return _hand(position, "8h 8d Ad 6h 2h", "Ts 3h", wager)


def rounds() -> list[SettledRound]:
    rules = TableRules()
    a = settle_round(rules, BANKER, [_wins(2, 10_000), _pushes(5, 5_000), _loses(7, 2_500)])
    b = settle_round(rules, BANKER, [_wins(2, 4_000), _loses(7, 20_000)])
    c = settle_round(
        rules,
        BANKER,
        [_wins(2, 2_500), _pushes(5, 1_000), _loses(7, 4_000)],
        bank=Bank(seat=3, amount=10_000, house_wager=2_000),
        house_hand=_hand(6, "7h 7d Qs 6d 5s", "Jd 2d", 2_000),
    )
    return [
        settled_round(a, round_id="r-a", table_id=TABLE, opened_at=at(15), settled_at=at(15, 2),
                      theoretical_win=250, theoretical_variance=1_000_000),
        settled_round(b, round_id="r-b", table_id=TABLE, opened_at=at(15, 30), settled_at=at(15, 31),
                      theoretical_win=180, theoretical_variance=3_000_000),
        settled_round(c, round_id="r-c", table_id=TABLE, opened_at=at(16), settled_at=at(16, 1)),
    ]  # fmt: skip


def count(kind: CountKind, chips: Chips, when: datetime, shift: str | None = None) -> InventoryCount:
    return InventoryCount(kind, TABLE, DAY, shift, when, chips, dealer="Ana", supervisor="Ben")


def slips():
    fill = request_slip(
        SlipKind.FILL, number=101, table_id=TABLE, chips=Chips.of({2500: 40}), at=at(18, 50), by="Cara"
    )
    credit = request_slip(
        SlipKind.CREDIT,
        number=102,
        table_id=TABLE,
        chips=Chips.of({10000: 20}),
        at=at(0, 50, day=4),
        by="Cara",
    )
    wrong = request_slip(
        SlipKind.FILL, number=103, table_id=TABLE, chips=Chips.of({500: 100}), at=at(19), by="Cara"
    )
    return [
        deliver(fill, at=at(19), runner="Dan", table_signer="Ana"),
        deliver(credit, at=at(1, day=4), runner="Dan", table_signer="Ben"),
        void_slip(deliver(wrong, at=at(19, 5), runner="Dan", table_signer="Ana"),
                  at=at(19, 6), by="Cara", approved_by="Ben", reason="sent to the wrong table"),
    ]  # fmt: skip


def drop() -> list[DropEntry]:
    return [
        DropEntry(TABLE, DAY, None, DropKind.CASH, 50_000, DropSource.COUNT_FILE),
        DropEntry(TABLE, DAY, None, DropKind.MARKER, 100_000, DropSource.TABLE, "M-7001"),
    ]

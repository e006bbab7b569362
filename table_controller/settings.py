"""The table's settings: one validated object (pydantic-settings).

Where a value comes from, strongest first: a command-line flag (``--data-dir``...), a
``TABLE_`` environment variable (nested with ``__``: ``TABLE_LIMITS__MAX_MAIN=50000``), the
TOML file given with ``--config`` (default ``config/table.toml`` when it exists), then the
defaults below. Unknown keys and unsafe values are refused at start with the field named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .game.banking import DEFAULT_CO_BANK_SHARE_BP, BankingPolicy, HouseWagerPolicy
from .game.cards import Game
from .game.deal import DEFAULT_DICE_DIRECTION, DiceDirection
from .game.fortune import DEFAULT_ENVY_MINIMUM, DEFAULT_FORTUNE_FILE, EnvyEligibility, load_fortune_paytable
from .game.money import Cents
from .game.paytables import paytables_dir
from .game.progressive_paytable import DEFAULT_PROGRESSIVE_FILE, load_progressive_paytable, progressive_dir
from .game.table_rules import TableRules
from .shipped import CONFIG_DIR

DEFAULT_CONFIG_FILE = CONFIG_DIR / "table.toml"


class Limits(BaseModel):
    """Table limits per position, in integer cents."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_main: Cents = Field(default=500, gt=0)
    max_main: Cents = Field(default=100_000, gt=0)
    max_bonus: Cents = Field(default=2_500, ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Limits:
        if self.min_main > self.max_main:
            raise ValueError(f"min_main {self.min_main} is above max_main {self.max_main}")
        return self


def _side_file(name: str, directory: Path) -> Path:
    """A pay table named by file name (in the shipped folder) or by path."""
    path = Path(name)
    return path if path.is_absolute() or len(path.parts) > 1 else directory / path


class FortuneSettings(BaseModel):
    """The Fortune Bonus and its Envy Bonus at this table (docs/progressive.md, "At the table");
    off by default. ``paytable``: a file of ``config/paytables`` or a path. The envy answers
    of progressive-research.md §1.8 (questions 1-3) with the sources' defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    paytable: str = DEFAULT_FORTUNE_FILE
    max_wager: Cents = Field(default=30_000, gt=0)  # $300 (Seatac's limit, §1.1)
    envy_minimum: Cents = Field(default=DEFAULT_ENVY_MINIMUM, gt=0)  # §1.3: "at least $5"
    envy_eligibility: EnvyEligibility = EnvyEligibility.FORTUNE
    player_banker_hand_qualifies: bool = True  # §1.8 q2: only the dealer's hand is excluded
    trigger_needs_wager: bool = False  # §1.8 q3: "another player ... holds"

    @property
    def file(self) -> Path:
        return _side_file(self.paytable, paytables_dir())

    @model_validator(mode="after")
    def _loads(self) -> FortuneSettings:
        if self.enabled:
            load_fortune_paytable(self.file)  # a PayTableError (a ValueError) names the file
        return self


class ProgressiveSettings(BaseModel):
    """The progressive wager at this table (docs/progressive.md); off by default. ``paytable``:
    a file of ``config/progressive`` or a path; ``pool_id``: the pool's id (default: the
    table's id), which keys its meters and its chain. ``link_db_url``: the floor's PostgreSQL,
    where a pool **linked** across tables keeps its meters (table/progressive_link.py);
    without it the pool stands alone in the table's own store. ``simultaneous_window_seconds``:
    how long a linked table's meter hit waits for hits at other tables to resolve with it
    (§1.8 question 4, docs/progressive.md, "A pool linked across tables")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    paytable: str = DEFAULT_PROGRESSIVE_FILE
    pool_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$")
    link_db_url: str | None = None
    simultaneous_window_seconds: float = Field(default=2.0, ge=0, le=30)

    @field_validator("link_db_url")
    @classmethod
    def _link_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql:", "postgresql+psycopg:")):
            raise ValueError("link_db_url: the floor's store, a postgresql: URL")
        return value

    @property
    def file(self) -> Path:
        return _side_file(self.paytable, progressive_dir())

    @model_validator(mode="after")
    def _loads(self) -> ProgressiveSettings:
        if self.enabled:
            load_progressive_paytable(self.file)
        return self


class ShufflerSettings(BaseModel):
    """Where the shuffler is: any pyserial URL (``/dev/ttyUSB0``, ``socket://h:p``...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str | None = None
    baudrate: int = Field(default=115_200, gt=0)


class DiceSettings(BaseModel):
    """The dice: a USB shaker (``usb = "vid:pid[:serial]"``), a serial-variant shaker
    (``url``), or the RNG where no shaker is fitted (``source = "rng"``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Literal["shaker", "rng"] = "shaker"
    usb: str | None = None
    url: str | None = None
    # SHAKEs unanswered in a row (each waited ``device_timeout``) before the ``no-answer`` fault
    # stops play (dice-shaker.md 4); one silence is only shaken again
    no_answer_tries: int = Field(default=2, ge=1, le=20)

    @model_validator(mode="after")
    def _one_way_to_the_shaker(self) -> DiceSettings:
        if self.source == "shaker" and self.usb and self.url:
            raise ValueError("give the shaker's usb id or its serial url, not both")
        return self


class AutoDealerSettings(BaseModel):
    """The auto-dealer (``run --simulate``, or ``enabled = true`` with real devices in a demo):
    simulated wagers and player settings, the dealer's setting by the house way
    (table_controller/table/autodealer.py). Rates are probabilities per player hand."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    seed: int | None = None  # None: a fresh random seed per run
    actor: str = Field(
        default="auto-dealer", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"
    )
    bonus_rate: float = Field(default=0.3, ge=0, le=1)  # Double Joker: a position also makes bonus wagers
    other_setting_rate: float = Field(default=0.15, ge=0, le=1)  # a legal setting other than the house way
    foul_rate: float = Field(default=0.02, ge=0, le=1)  # an illegal setting (a foul, 004)
    player_banks: bool = False  # a simulated player takes the bank when the table offers it
    co_bank_rate: float = Field(default=0.5, ge=0, le=1)  # ... and co-banks with the house

    @model_validator(mode="after")
    def _rates(self) -> AutoDealerSettings:
        if self.other_setting_rate + self.foul_rate > 1:
            raise ValueError(
                f"other_setting_rate {self.other_setting_rate} + foul_rate {self.foul_rate} is more than 1"
            )
        return self


class BankingSettings(BaseModel):
    """Player banking (table_controller/game/banking.py; docs/settlement.md, 8): when the bank
    is offered to a player, what the house's own hand wagers against a player-banker, the
    house's share of a co-banked bank, and whether Double Joker allows it at all (003: "The
    Dealer is always considered position #1")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: BankingPolicy = BankingPolicy.NEVER
    house_wager: HouseWagerPolicy = HouseWagerPolicy.BANKER_LAST_WAGER
    co_bank_share_bp: int = Field(default=DEFAULT_CO_BANK_SHARE_BP, gt=0, lt=10_000)
    allow_in_double_joker: bool = False  # a departure from 003 when on (game/departures.py)


class SimulatorSettings(BaseModel):
    """The simulators ``run --simulate`` starts as child processes (``python -m simulators``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int | None = None
    pile_interval: float = Field(default=0.2, ge=0, le=10)  # seconds between piles
    shake_duration: float = Field(default=0.0, ge=0, le=10)  # seconds a shake takes
    start_timeout: float = Field(default=10.0, gt=0, le=120)  # seconds to wait for a simulator's port


class HttpSettings(BaseModel):
    """The API's HTTP edge (docs/api.md, "TLS, limits and slow-downs"): TLS served by uvicorn
    itself or by a reverse proxy in front, bounded request headers, and the slow-down of a
    client that keeps presenting bad tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tls_certfile: Path | None = None  # PEM certificate chain: uvicorn serves HTTPS itself
    tls_keyfile: Path | None = None  # its private key (PEM)
    allow_plain_http: bool = False  # plain HTTP from off the loopback (a closed pit network only)
    trusted_proxies: list[str] = Field(default_factory=lambda: ["127.0.0.1", "::1"])
    max_header_bytes: int = Field(default=16_384, ge=1_024, le=1_048_576)  # the request head, all headers
    max_headers: int = Field(default=100, ge=10, le=1_000)
    bad_tokens_free: int = Field(default=10, ge=1, le=1_000_000)  # bad tokens a client may present per window
    bad_token_window: float = Field(default=60.0, gt=0, le=3_600)  # seconds a bad token is remembered
    bad_token_max_delay: float = Field(default=60.0, ge=1, le=3_600)  # longest 429 Retry-After, seconds
    # browser sessions (api/sessions.py): the key their cookies are signed with, kept in this file
    # (made on first start, mode 0600) so a restart, or another table of the floor given the same
    # file, keeps browsers signed in; without it each start draws a new key and signs them out
    session_secret_file: Path | None = None
    session_hours: float = Field(default=12.0, gt=0, le=24 * 7)  # a browser session's longest life

    @model_validator(mode="after")
    def _tls_pair(self) -> HttpSettings:
        if (self.tls_certfile is None) != (self.tls_keyfile is None):
            raise ValueError("give tls_certfile and tls_keyfile together, or neither")
        return self


class AuditSettings(BaseModel):
    """The record as evidence (docs/audit-chain.md): signed checkpoints and the daemon's own check.

    ``key_file`` is the Ed25519 private key the daemon signs checkpoints with (made by
    ``table-controller audit keygen``; kept outside the database), ``public_key`` its public
    half (hex), which ``audit verify`` and the daemon check signatures with. Without a key no
    checkpoint is written. ``checkpoint_file`` defaults to ``checkpoints.jsonl`` in data_dir."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key_file: Path | None = None
    public_key: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    checkpoint_file: Path | None = None
    checkpoint_every_rounds: int = Field(default=100, ge=0, le=100_000)  # 0: at shutdown only
    check_every_rounds: int = Field(default=10, ge=0, le=100_000)  # while playing; 0: at start only
    check_rounds: int = Field(default=50, ge=1, le=100_000)  # newest rounds re-derived by that check
    # the signed manifest of the release (table-controller audit release) and the public half of
    # the key IT signs releases with; at start a mismatch is a code-changed finding (record/release.py)
    release_manifest: Path | None = None
    release_public_key: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _key_pair(self) -> AuditSettings:
        if self.key_file is not None and self.public_key is None:
            raise ValueError("audit.key_file needs audit.public_key (its public half) beside it")
        if self.release_manifest is not None and self.release_public_key is None:
            raise ValueError(
                "audit.release_manifest needs audit.release_public_key (IT's signing key) beside it"
            )
        return self


class AccountingSettings(BaseModel):
    """The table's accounting (docs/accounting.md, "Storage, API and pages"): where the gaming day
    starts (local wall-clock time in ``time_zone``), the chips in use (cents) and the variance
    (absolute cents) above which a reconciled day raises an alert to the pit and surveillance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gaming_day_starts: str = Field(default="06:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
    denominations: tuple[Cents, ...] = (100, 500, 2_500, 10_000, 50_000, 100_000, 500_000)
    alert_above_cents: Cents = Field(default=0, ge=0)

    @field_validator("denominations")
    @classmethod
    def _denominations(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value or any(d <= 0 for d in value) or list(value) != sorted(set(value)):
            raise ValueError("denominations: positive whole cents, ascending, each once")
        return value


class RatingsSettings(BaseModel):
    """Rated players (docs/accounting.md, "Ratings"): when a rating ends idle (minutes since the
    player's last round or buy-in, or that many settled rounds sat out), how often the table
    folds its seats, and where closed ratings are pushed (``push_url``, none: kept in the outbox
    for the export only) with the retry's first wait, doubled each time up to the longest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    idle_minutes: int = Field(default=30, ge=1, le=24 * 60)
    idle_rounds: int | None = Field(default=None, ge=1, le=10_000)
    sweep_seconds: float = Field(default=15.0, gt=0, le=3600)
    push_url: str | None = Field(default=None, max_length=500, pattern=r"^https?://[^\s]+$")
    push_timeout_seconds: float = Field(default=5.0, gt=0, le=120)
    push_retry_seconds: float = Field(default=30.0, gt=0, le=3600)
    push_retry_max_seconds: float = Field(default=3600.0, gt=0, le=86_400)


def flags_env_toml(
    settings_cls: type[BaseSettings],
    init_settings: PydanticBaseSettingsSource,
    env_settings: PydanticBaseSettingsSource,
) -> tuple[PydanticBaseSettingsSource, ...]:
    """Where settings come from, strongest first: flags, the environment, then the TOML file
    named in ``model_config`` (no .env or secrets files): a table's and the floor's alike."""
    toml_file = settings_cls.model_config.get("toml_file")
    sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
    if toml_file:
        sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_file))
    return tuple(sources)


_Settings = TypeVar("_Settings", bound=BaseSettings)


def read_settings(
    settings_cls: type[_Settings], config_file: Path | None, overrides: Mapping[str, Any]
) -> _Settings:
    """``settings_cls`` with ``config_file`` as its TOML file (flags_env_toml reads it from
    ``model_config``) and the flags in ``overrides`` over it, a None meaning not given: a
    table's settings and the floor's are read alike."""

    class _FromFile(settings_cls):  # type: ignore[valid-type, misc]
        model_config = SettingsConfigDict(toml_file=config_file)

    settings: _Settings = _FromFile(**{k: v for k, v in overrides.items() if v is not None})
    return settings


class TableSettings(BaseSettings):
    """Everything the daemon needs to run one table."""

    model_config = SettingsConfigDict(
        env_prefix="TABLE_", env_nested_delimiter="__", extra="forbid", frozen=True
    )

    table_id: str = "table-1"
    game: Game = Game.STANDARD
    house_way: str = "house-way-002"
    rules: dict[str, Any] = Field(default_factory=dict)  # TableRules fields other than game
    limits: Limits = Limits()
    data_dir: Path = Path("var")
    db_url: str | None = None  # default: SQLite in data_dir
    # a read-only copy of the store (a PostgreSQL streaming replica) the API's reads use; commands
    # and who a token belongs to stay on db_url (docs/floor.md, "Reads off the primary")
    read_db_url: str | None = None
    # a read from read_db_url more than this far behind the primary says so in the answer
    # (docs/floor-replica.md, "How lag is shown")
    read_lag_warn_seconds: float = Field(default=5.0, gt=0)
    pit: str | None = Field(
        default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.-]*$"
    )
    api_url: str | None = Field(default=None, max_length=255)  # where the floor links to this table's pages
    # seconds between the daemon's heartbeats on the floor (floor_tables.seen_at; docs/round-lifecycle.md)
    floor_heartbeat_seconds: float = Field(default=5.0, gt=0, le=3600)
    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    shuffler: ShufflerSettings = ShufflerSettings()
    dice: DiceSettings = DiceSettings()
    # seconds to wait for a device's answer: a SHAKE's roll (dice-shaker.md 4: the host waits
    # 10 s) and a STATUS after its request (shuffler.md 5); table.toml lists the same value
    device_timeout: float = Field(default=10.0, gt=0, le=600)
    step_delay: float = Field(default=0.0, ge=0, le=60)  # seconds between the steps of a round (a human pace)
    misdeal_hold_after: int = Field(default=2, ge=1, le=20)  # consecutive misdeals that hold the table
    dice_direction: DiceDirection = DEFAULT_DICE_DIRECTION  # 000 counter-clockwise, or 004 clockwise
    banking: BankingSettings = BankingSettings()
    fortune: FortuneSettings = FortuneSettings()
    progressive: ProgressiveSettings = ProgressiveSettings()
    time_zone: str = "UTC"  # IANA zone of the gaming day: today's band of actual against theoretical win
    auto_dealer: AutoDealerSettings = AutoDealerSettings()
    simulator: SimulatorSettings = SimulatorSettings()
    api: bool = True  # serve the pit and surveillance API inside the daemon (docs/api.md)
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)  # 0: any free port (tests)
    audit: AuditSettings = AuditSettings()
    http: HttpSettings = HttpSettings()
    # a void or a dealer override of a round whose wagers total more than this (cents) waits for a
    # second pit user's confirmation (docs/api.md, "Two people")
    second_pit_above: Cents = Field(default=200_000, ge=0)
    accounting: AccountingSettings = AccountingSettings()
    ratings: RatingsSettings = RatingsSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return flags_env_toml(settings_cls, init_settings, env_settings)

    @field_validator("table_id")
    @classmethod
    def _table_id(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}", value):
            raise ValueError(
                "table_id: 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        if value in ("people", "evidence", "floor"):  # the store's own chains (docs/audit-chain.md)
            raise ValueError(f"table_id {value!r} is reserved for the store's own chain of that name")
        if value.startswith("progressive."):  # a progressive pool's chain (storage/progressive.py)
            raise ValueError(f"table_id {value!r}: 'progressive.' begins the name of a pool's chain")
        return value

    @field_validator("time_zone")
    @classmethod
    def _time_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(value)
        except Exception:  # ZoneInfoNotFoundError, or not a zone key at all
            raise ValueError(
                f"unknown time zone {value!r}: an IANA name such as America/Los_Angeles"
            ) from None
        return value

    @field_validator("db_url", "read_db_url")
    @classmethod
    def _db_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("sqlite:", "postgresql:", "postgresql+psycopg:")):
            raise ValueError("must be a sqlite: or postgresql: URL")
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _rules_and_way(cls, data: Any, handler: ModelWrapValidatorHandler[TableSettings]) -> TableSettings:
        """Every mistake of the configuration in one refusal: the fields' own, then the table
        rules for the game and the house way, each checked even when another is wrong, so a
        bad way file, bad rules and a bad limit are named together, not one per start."""
        problems: list[InitErrorDetails] = []
        settings = None
        try:
            settings = handler(data)
        except ValidationError as error:
            problems += [_problem(e["loc"], e["msg"], e["input"], e["type"]) for e in error.errors()]
        if isinstance(data, dict):
            problems += _rules_problems(cls, data)
        if problems:
            raise ValidationError.from_exception_data(cls.__name__, problems)
        assert settings is not None
        return settings

    def table_rules(self) -> TableRules:
        return TableRules.model_validate({"game": self.game, **self.rules})

    @property
    def pool_id(self) -> str | None:
        """The progressive pool this table contributes to, or None when it offers none."""
        if not self.progressive.enabled:
            return None
        return self.progressive.pool_id or self.table_id

    @property
    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'table.sqlite3').resolve()}"


def _problem(loc: tuple[int | str, ...], msg: str, given: Any, kind: str = "value_error") -> InitErrorDetails:
    """One problem of a refusal, its words kept as they are."""
    return {"type": PydanticCustomError(kind, msg), "loc": loc, "input": given}


def _rules_problems(cls: type[TableSettings], data: dict[str, Any]) -> list[InitErrorDetails]:
    """What is wrong with the table rules (for the game given) and with the house way, from
    the values as given: checked whatever else is wrong."""
    from .game.house_way import HouseWayError, load_house_way

    fields = cls.model_fields
    problems: list[InitErrorDetails] = []
    rules = data.get("rules", {})
    if isinstance(rules, dict):
        if "game" in rules:
            problems.append(
                _problem(("rules", "game"), "set the game with 'game', not inside 'rules'", rules["game"])
            )
        try:
            game = Game(data.get("game", fields["game"].default))
        except ValueError:
            game = None  # the field's own error names it: the rules cannot be judged for no game
        if game is not None and "game" not in rules:
            try:
                TableRules.model_validate({"game": game, **rules})
            except ValidationError as error:
                problems += [  # a whole-rules problem shows the rules as given (without the game)
                    _problem(("rules", *e["loc"]), e["msg"], e["input"] if e["loc"] else rules, e["type"])
                    for e in error.errors()
                ]
            except ValueError as error:  # a pay table file that does not load (PayTableError)
                problems.append(_problem(("rules",), str(error), rules))
    way = data.get("house_way", fields["house_way"].default)
    if isinstance(way, str):
        try:
            load_house_way(way)  # an unknown or malformed way is refused at start
        except HouseWayError as error:
            problems.append(_problem(("house_way",), str(error), way))
    return problems


def load_settings(config_file: Path | None = None, **overrides: Any) -> TableSettings:
    """Settings from flags (``overrides``), the environment and the TOML file, in that order."""
    if config_file is None and DEFAULT_CONFIG_FILE.is_file():
        config_file = DEFAULT_CONFIG_FILE
    if config_file is not None and not Path(config_file).is_file():
        raise FileNotFoundError(f"no config file {config_file}")

    return read_settings(TableSettings, config_file, overrides)

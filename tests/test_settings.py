"""Settings: one validated object; flags > TABLE_ environment > TOML file > defaults."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from table_controller.game.cards import Game
from table_controller.game.table_rules import FoulRule
from table_controller.settings import DEFAULT_CONFIG_FILE, TableSettings, load_settings


def write(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_the_shipped_config_file_loads():
    settings = load_settings(DEFAULT_CONFIG_FILE)
    assert settings.table_id == "table-1" and settings.game is Game.STANDARD
    assert settings.limits.min_main == 500 and settings.table_rules().foul_rule is FoulRule.FORFEIT


def test_flags_beat_the_environment_which_beats_the_file(tmp_path, monkeypatch):
    config = write(tmp_path, 'table_id = "from-file"\ngame = "double-joker"\n[limits]\nmax_main = 20000\n')
    monkeypatch.setenv("TABLE_TABLE_ID", "from-env")
    monkeypatch.setenv("TABLE_LIMITS__MAX_MAIN", "30000")
    settings = load_settings(config)
    assert settings.table_id == "from-env" and settings.limits.max_main == 30000
    assert settings.game is Game.DOUBLE_JOKER  # only in the file
    settings = load_settings(config, table_id="from-flag", data_dir=None)
    assert settings.table_id == "from-flag"


def test_double_joker_rules_come_with_the_game(tmp_path):
    settings = load_settings(write(tmp_path, 'game = "double-joker"\n'))
    rules = settings.table_rules()
    assert rules.commission.kind == "none" and rules.premium_multiple == 3 and rules.big_hand is not None


def test_default_database_is_sqlite_in_the_data_dir(tmp_path):
    settings = TableSettings(data_dir=tmp_path)
    assert settings.database_url == f"sqlite:///{tmp_path.resolve()}/table.sqlite3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tabel_id = 'typo'\n", "tabel_id"),
        ("[limits]\nmin_main = 5000\nmax_main = 1000\n", "min_main 5000 is above max_main 1000"),
        ("[limits]\nmin_main = 0\n", "min_main"),
        ("house_way = 'no-such-way'\n", "no-such-way"),
        ("[rules]\npremium_multiple = 7\n", "premium_multiple"),
        ("[rules]\ngame = 'double-joker'\n", "set the game with 'game'"),
        ("db_url = 'mysql://x'\n", "db_url must be a sqlite: or postgresql: URL"),
        ("table_id = 'bad id!'\n", "table_id"),
        ("[dice]\nusb = '1209:0007'\nurl = '/dev/ttyS0'\n", "not both"),
    ],
)
def test_unsafe_or_unknown_values_are_refused_naming_the_field(tmp_path, text, message):
    with pytest.raises((ValidationError, ValueError)) as refused:
        load_settings(write(tmp_path, text))
    assert message in str(refused.value)


def test_a_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no config file"):
        load_settings(tmp_path / "nope.toml")

"""Settings: one validated object; flags > TABLE_ environment > TOML file > defaults."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from drivers.dice_shaker.driver import DiceShakerDriver
from table_controller.conductor.dice import ShakerAdapter
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
        ("db_url = 'mysql://x'\n", "must be a sqlite: or postgresql: URL"),
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


# -- the shipped file lists every setting with its default ---------------------------------------------


DOCS = Path(__file__).resolve().parents[1] / "docs" / "protocols"


def _listed_keys(text: str) -> dict[tuple[str, str], tuple[object, bool]]:
    """(section, key) -> (value, commented) for every key of the file, commented lines included."""
    found: dict[tuple[str, str], tuple[object, bool]] = {}
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        header = re.match(r"^\[([A-Za-z_]+)\]", stripped)
        if header:
            section = header.group(1)
            continue
        commented = stripped.startswith("#")
        body = stripped.lstrip("#").strip() if commented else stripped
        if "=" not in body:
            continue
        try:
            parsed = tomllib.loads(body)
        except tomllib.TOMLDecodeError:
            continue  # prose that happens to hold an "="
        for key, value in parsed.items():
            found[(section, key)] = (value, commented)
    return found


def _fields(model: type[BaseModel], section: str = ""):
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _fields(annotation, name)
        else:
            yield section, name, info


def test_the_shipped_file_lists_every_setting_with_its_default():
    listed = _listed_keys(DEFAULT_CONFIG_FILE.read_text())
    missing, wrong = [], []
    for section, name, info in _fields(TableSettings):
        if name == "rules" and not section:  # a table of TableRules fields: the game's defaults
            assert any(s == "rules" for s, _ in listed), "[rules] is not listed"
            continue
        if (section, name) not in listed:
            missing.append(f"[{section}] {name}" if section else name)
            continue
        value, commented = listed[(section, name)]
        default = info.get_default(call_default_factory=True)
        if default is None:
            if not commented:  # a None default cannot be written in TOML: it is shown commented
                wrong.append(f"{section}.{name}: set to {value!r}, default None")
        elif TypeAdapter(info.annotation).validate_python(value) != default:
            wrong.append(f"{section}.{name}: {value!r} in the file, {default!r} in settings.py")
    assert missing == [] and wrong == []
    rules = tomllib.loads(DEFAULT_CONFIG_FILE.read_text())["rules"]
    assert TableSettings(rules=rules).table_rules() == TableSettings().table_rules()


def test_the_device_timeout_is_the_documented_roll_timeout():
    """dice-shaker.md 4: the host waits 10 s for a SHAKE's answer; settings, the driver and the
    conductor's shaker port must say the same."""
    text = (DOCS / "dice-shaker.md").read_text()
    row = next(
        line for line in text.splitlines() if "`DiceShakerDriver.roll_timeout`" in line and "|" in line
    )
    documented = float(re.search(r"\|\s*(\d+(?:\.\d+)?) s", row).group(1))
    import inspect

    assert TableSettings().device_timeout == documented
    assert inspect.signature(DiceShakerDriver.__init__).parameters["roll_timeout"].default == documented
    assert inspect.signature(ShakerAdapter.__init__).parameters["roll_timeout"].default == documented


def test_every_mistake_of_a_config_file_is_named_in_one_refusal_and_run_exits_2(tmp_path):
    """Three mistakes (an unknown house way, a premium no casino may choose under 003, a
    minimum above the maximum) are all named at once, by the settings and by ``run``."""
    from typer.testing import CliRunner

    from table_controller.cli.main import app

    mistakes = "house_way = 'no-such-way'\n[rules]\npremium_multiple = 7\n"
    config = write(tmp_path, mistakes + "[limits]\nmin_main = 5000\nmax_main = 1000\n")
    with pytest.raises(ValidationError) as refused:
        load_settings(config)
    where = sorted(".".join(map(str, e["loc"])) for e in refused.value.errors())
    assert where == ["house_way", "limits", "rules"]
    result = CliRunner().invoke(app, ["run", "--config", str(config), "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    said = result.stderr
    assert said.startswith("invalid settings:\n")
    assert "house_way: " in said and "no-such-way" in said
    assert "rules: " in said and "premium_multiple must be one of (1, 2, 3, 4)" in said
    assert "limits: " in said and "min_main 5000 is above max_main 1000" in said
    assert not (tmp_path / "table.sqlite3").exists()  # nothing started

"""A person's name: the request body's schema (``UserName``) and the store's own check
(``check_user_name``) accept and refuse the same names, so the body needs no validator of its own."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from table_controller.storage.errors import InvalidFieldError
from table_controller.storage.users import NAME_MAX, UserCreate, check_user_name

NAME_CHARS = st.sampled_from("abcxyz019_.-AZ !\n\u00e9")


def _store_accepts(name: str) -> bool:
    try:
        check_user_name(name)
    except InvalidFieldError:
        return False
    return True


def _body_accepts(name: str) -> bool:
    try:
        UserCreate(name=name, role="pit")
    except ValidationError:
        return False
    return True


@given(st.text(NAME_CHARS, max_size=NAME_MAX + 2))
def test_the_body_and_the_store_accept_the_same_names(name):
    assert _body_accepts(name) == _store_accepts(name)


@pytest.mark.parametrize(
    ("name", "accepted"),
    [
        ("ann", True),
        ("0.pit-boss_2", True),
        ("a" * NAME_MAX, True),
        ("a" * (NAME_MAX + 1), False),
        ("", False),
        ("-ann", False),
        (".ann", False),
        ("Ann", False),
        ("ann\n", False),
        ("device:shuffler", False),
    ],
)
def test_a_name_is_lowercase_letters_digits_and_three_marks(name, accepted):
    assert _body_accepts(name) is accepted and _store_accepts(name) is accepted

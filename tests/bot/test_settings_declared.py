"""bot.settings: the declared ranges and the number reader (its doctests run here: bot/ is not a doctest path)."""

from __future__ import annotations

import doctest

import pytest

import bot.settings
from bot.settings import CLAIM_SECONDS, TURN_SECONDS, InvalidSetting, check_setting, parse_whole_number


def test_doctests():
    result = doctest.testmod(bot.settings)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(("typed", "number"), [
    ("60", 60), (" 60\n", 60), ("６０", 60), ("\u300060\u3000", 60), ("007", 7),
    ("²", None), ("₆₀", None), ("٦٠", None), ("६०", None), ("-5", None), ("+5", None), ("5.0", None), ("1e2", None),
    ("6 0", None), ("", None), (None, None), ("1234567", None), ("Ⅻ", None), ("①", None),
])
def test_parse_whole_number(typed, number):
    assert parse_whole_number(typed) == number


@pytest.mark.parametrize(("field", "allowed"), [("turn_seconds", TURN_SECONDS), ("claim_seconds", CLAIM_SECONDS)])
def test_timer_ranges(field, allowed):
    check_setting(field, allowed.low)
    check_setting(field, allowed.high)
    for bad in (allowed.low - 1, allowed.high + 1, True, float(allowed.low), str(allowed.low)):
        with pytest.raises(InvalidSetting):
            check_setting(field, bad)

"""What ``/score`` and ``/record`` share: the option checks, the engine's :class:`Situation` from the options, the
itemised breakdown, the message cut to Discord's limit and the score card. Not an extension: a module both cogs
import (so neither imports the other for it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.errors import UserError
from bot.i18n import item_name, rule_value, seat_name, t, variant_name
from bot.options import shown_value
from bot.posting import MESSAGE_LIMIT
from bot.settings import DEALER_STREAK, HAND_LENGTH, WUHU_MODES
from cogs.choices import SEATS, SITUATIONS, WINS
from engine.tiles import Hand
from engine.variants import ScoreResult, Situation, Variant, variant_keys
from render import ScoreScene, render_score

#: Discord's limit on a message's text; a longer breakdown is cut and sent whole as :data:`BREAKDOWN_FILE`.
BREAKDOWN_FILE = "score.txt"


def check_options(lang: str, *, hand: Any, variant: Any, win: Any, winner: Any, discarder: Any, situation: Any,
                  mode: Any, dealer_streak: Any) -> None:
    """Refuse option values Discord's client would never send (the payload can be forged): each choice option
    must be one of its choices, the dealer streak within :data:`bot.settings.DEALER_STREAK` and the hand within
    :data:`bot.settings.HAND_LENGTH` characters. Raises :class:`UserError` with the option's name in ``lang``."""
    checks: list[tuple[str, Any, tuple[Any, ...], str]] = [  # option, value sent, its choices, their names' keys
        ("variant", variant, variant_keys(), "variant"), ("win", win, WINS, "win"),
        ("winner", winner, tuple(SEATS), "seat"), ("discarder", discarder, tuple(SEATS), "seat"),
        ("situation", situation, SITUATIONS, "situation"), ("mode", mode, WUHU_MODES, "mode"),
    ]
    for option, value, choices, names in checks:
        if value is not None and not any(type(value) is type(c) and value == c for c in choices):
            allowed = " / ".join(t(f"choice.{names}.{c}", lang) for c in choices)
            name_key = f"score.{option}.name"
            raise UserError("score.bad_option", option=t(name_key, lang), value=shown_value(value), allowed=allowed)
    if dealer_streak is not None and dealer_streak not in DEALER_STREAK:
        raise UserError("score.bad_streak", low=DEALER_STREAK.low, high=DEALER_STREAK.high, value=shown_value(dealer_streak))
    if not isinstance(hand, str) or len(hand) > HAND_LENGTH.high:
        raise UserError("score.bad_hand_length", high=HAND_LENGTH.high, length=len(str(hand)))


def check_variant_options(v: Variant, lang: str, *, mode: Any, dealer_streak: Any,
                          names: tuple[str, str] = ("score.mode.name", "score.streak.name")) -> None:
    """Refuse an option the variant has no use for, as ``mjbot score`` does: Wuhu's ``mode`` (315/525) in a variant
    without modes, Hefei's ``dealer_streak`` in one that does not score it. Ignoring it would let a player believe
    they scored, recorded or opened a table with it. ``names``: the keys of the command's names for the two
    options. Raises :class:`UserError` in ``lang``.

    >>> from engine.variants import get_variant
    >>> check_variant_options(get_variant("wuhu"), "en", mode=525, dealer_streak=None)
    >>> try:
    ...     check_variant_options(get_variant("wuhu"), "zh", mode=None, dealer_streak=3)
    ... except UserError as e:
    ...     print(e.message("zh"))
    选项「庄数」是合肥的庄数：芜湖不计庄数。什么都没有做：请去掉这个选项，或选择合肥。
    """
    if mode is not None and not v.modes:
        raise UserError("score.mode_not_in_variant", option=t(names[0], lang), variant=variant_name(v.key, lang))
    if dealer_streak is not None and not v.scored_streak:
        raise UserError("score.streak_not_in_variant", option=t(names[1], lang), variant=variant_name(v.key, lang))


def build_situation(*, win: str | None, winner: str | None, discarder: str | None, situation: str | None,
                    dealer_streak: int | None) -> Situation:
    """The engine's :class:`Situation` from the command's options, with friendly defaults:

    - winner S, or E for 天胡;
    - self-drawn unless a discarder is named or ``win`` is ``discard``; 地胡 is on the dealer's (E) discard;
    - ``win=discard`` (or 抢杠) without a discarder: the seat before the winner in turn order.

    >>> s = build_situation(win=None, winner=None, discarder="W", situation=None, dealer_streak=None)
    >>> s.winner, s.discarder, s.dealer_streak, s.kong_draw
    (1, 2, 1, False)
    >>> build_situation(win="discard", winner="N", discarder=None, situation=None, dealer_streak=None).discarder
    2
    """
    flags: dict[str, Any] = {s: situation == s for s in SITUATIONS}
    win_seat = "ESWN".index(winner) if winner else (0 if flags["heavenly"] else 1)
    if win == "self" and discarder:
        raise UserError("score.win_conflict")
    if discarder:
        from_seat: int | None = "ESWN".index(discarder)
    elif win == "self":
        from_seat = None
    elif flags["earthly"] and win_seat != 0:
        from_seat = 0
    elif win == "discard" or flags["rob_kong"]:
        from_seat = (win_seat + 3) % 4
    else:
        from_seat = None
    return Situation(winner=win_seat, discarder=from_seat, dealer_streak=dealer_streak or 1, **flags)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _item_value(kind: str, value: int) -> str:
    return f"×{value}" if kind == "mul" else str(value)


def breakdown_text(result: ScoreResult, variant: Variant, situation: Situation, rules: Mapping[str, Any],
                   lang: str) -> str:
    """The reply's text: title, every item with its value, notes, what each payer owes and the payments."""
    key = variant.key
    if situation.discarder is None:
        how = t("score.how.self", lang)
    elif situation.rob_kong:
        how = t("score.how.rob_kong", lang, discarder=seat_name(situation.discarder, lang))
    else:
        how = t("score.how.discard", lang, discarder=seat_name(situation.discarder, lang))
    title = t("score.title", lang, variant=variant_name(key, lang), winner=seat_name(situation.winner, lang), how=how)
    extras = []
    if "mode" in rules:
        extras.append(t("score.mode", lang, mode=rules["mode"]))
    if variant.scored_streak and situation.dealer_streak != 1:
        extras.append(t("score.streak", lang, n=situation.dealer_streak))
    for s in SITUATIONS:
        if getattr(situation, s):
            extras.append(t(f"choice.situation.{s}", lang))
    lines = [f"**{title}**" + (" · " + " · ".join(extras) if extras else "")]
    lines.append(f"__{t('score.items', lang)}__")
    refs = [variant.rule_for(item.code) for item in result.items]
    ref = next((r for r in refs if r), "")
    if ref:  # where the "(W5)" after each item name leads, with a ruling of this breakdown as the example
        lines.append(f"_{t('score.rule_ref', lang, ref=ref)}_")
    for item in result.items:
        name = _with_rule(item_name(item.zh, item.en, lang), variant.rule_for(item.code))
        value = _item_value(item.kind, item.value)
        lines.append(f"• {name}: {value}" if item.kind != "info" else f"• _{name}: {value}_")
    if result.notes:
        lines.append(f"__{t('score.notes', lang)}__")
        for note in result.notes:
            name = _with_rule(item_name(note.zh, note.en, lang), variant.rule_for(note.code))
            lines.append(f"• {name}" + (f": {note.value}" if note.value else ""))
    if result.per_payer:
        owed = " · ".join(f"{seat_name(s, lang)} {v}" for s, v in sorted(result.per_payer.items()))
        lines.append(f"{t('score.per_payer', lang)}: {owed}")
    lines.append(f"__{t('score.payments', lang)}__ ({t('score.unit', lang)})")
    lines.append(_payment_line(result.payments, result.winner, lang))
    if any(result.jiao_payments):
        lines.append(f"{t('score.stacks', lang)}: {_payment_line(result.stack_payments, None, lang)}")
        lines.append(f"{t('score.jiao', lang)}: {_payment_line(result.jiao_payments, None, lang)}")
    changed = [r for r in variant.house_rules if rules.get(r.key) != r.default and r.key != "mode"]
    if changed:
        text = ", ".join(f"{item_name(r.zh, r.en, lang)} = {rule_value(rules[r.key], lang)}" for r in changed)
        lines.append(t("score.rules_used", lang, rules=text))
    return "\n".join(lines)


def _with_rule(name: str, rule: str) -> str:
    """An item's name followed by the ruling it comes from, as ``/rules`` and docs/rules/ number them: "压档 (W5)"."""
    return f"{name} ({rule})" if rule else name


def fit_message(text: str, lang: str, limit: int = MESSAGE_LIMIT) -> tuple[str, str | None]:
    """The message text within Discord's ``limit``, and the whole breakdown for :data:`BREAKDOWN_FILE` when it
    had to be cut (else None). A cut message keeps the title, as many items as fit, a pointer to the file and the
    payments (from the payments heading on), so what each seat pays is always in the message itself.

    >>> fit_message("short", "en")
    ('short', None)
    >>> body = chr(10).join(["**Title**"] + [f"• item {i}: {i}" for i in range(50)] + ["__Payments__", "E -3 · S +3"])
    >>> text, whole = fit_message(body, "en", limit=120)
    >>> len(text) <= 120, whole == body, text.splitlines()[0], text.splitlines()[-1]
    (True, True, '**Title**', 'E -3 · S +3')
    """
    if len(text) <= limit:
        return text, None
    lines = text.splitlines()
    tail_at = next((i for i, line in enumerate(lines) if line.startswith(f"__{t('score.payments', lang)}__")),
                   len(lines))
    head, middle, tail = lines[:1], lines[1:tail_at], lines[tail_at:]
    note = t("score.full_in_file", lang, file=BREAKDOWN_FILE)
    budget = limit - len("\n".join([*head, note, *tail])) - 1
    kept: list[str] = []
    for line in middle:
        if budget - len(line) - 1 < 0:
            break
        kept.append(line)
        budget -= len(line) + 1
    out = "\n".join([*head, *kept, note, *tail])
    if len(out) > limit:  # the title and payments alone are too long: cannot happen with real hands, but be safe
        out = out[: limit - 1] + "…"
    return out, text


def _payment_line(payments: tuple[int, ...], winner: int | None, lang: str) -> str:
    parts = []
    for seat, amount in enumerate(payments):
        mark = f" ({t('score.winner_mark', lang)})" if seat == winner else ""
        parts.append(f"{seat_name(seat, lang)} {_signed(amount)}{mark}")
    return " · ".join(parts)


def score_scene(hand: Hand, result: ScoreResult, situation: Situation, title: str = "") -> ScoreScene:
    """What the score card shows: the engine's items and payments (with their 交 part in a variant that splits
    them), the winner, and who dealt in or whose kong was robbed."""
    names = ("", "", "", "")  # no players here: the card spells out the winds
    return ScoreScene.from_result(hand, result, names, discarder=situation.discarder, title=title,
                                  robbed_kong=situation.rob_kong)


def render_image(scene: ScoreScene, lang: str) -> bytes:
    """PNG bytes of the score card for ``scene``. Runs in a worker thread."""
    return render_score(scene, lang=lang)

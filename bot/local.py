"""``mjbot local``: play a whole match in a plain terminal against three AI players.

Your hand, the rivers, the melds, the scores and your legal actions as numbered choices; no colour needed. It shows
what the Discord hand shows: the discards that keep you ready with the tiles you would wait on and how many of each
are still unseen, why a win or a claim is not offered (花 short, 八支 short, 漏胡, Hefei's one claim ...), a kong
replacement draw as such, and at each hand's end the shuffled wall with the check of its commitment.
Texts in ``zh``, ``zh-TW`` or ``en``; honours read 东 南 西 北 白 发 中.

Input: a tile as the hand notation writes it (``8m``, ``五万``, ``5筒``, ``东``, ``红中``) discards it (or, with no discard
to make, takes the one action on that tile), or the number of an action. The numbers stay put: an action keeps its
number from one turn to the next as long as it is offered (the same tile, the same number) and the menu is that long,
new ones take the free numbers (the numbers are always 1 to n). A bad input is answered in one line (the board is not printed again); ``?`` prints the help and the marks of
the rivers. EOF (Ctrl-D) or ``q`` quits cleanly (exit 0), Ctrl-C exits 130. How to play: docs/local.md.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai import choose
from engine.analysis import is_complete, is_seven_pairs
from engine.errors import EngineError
from engine.hints import Hint, ready_discards
from engine.table import Action, Event, Table, verify_commitment
from engine.tiles import HONOR, NUM_KINDS, SEATS, Hand, Meld, parse_hand, suit_of
from engine.variants import Situation, Variant, get_variant
from engine.variants.chizhou import honour_triplets, shown_hua
from text.catalog import text
from text.hant import named, to_hant
from text.lang import resolve
from text.width import colon, ljust

from .local_review import HandReviews

HUMAN = 0

_HONOURS_ZH = "东南西北白发中"
_SUIT_ZH = "万筒条"


#: a Chinese keyboard's full-width forms (？ ｑ １ and the ideographic space) read as the ASCII they look like
FULL_WIDTH = {0xFF01 + i: 0x21 + i for i in range(94)} | {0x3000: 0x20}

def _tr(lang: str, key: str, **params: Any) -> str:
    """The catalogue's ``local.<key>`` (data/locale) in ``lang``."""
    return text(f"local.{key}", lang, **params)


def tile_label(k: int, lang: str) -> str:
    """A tile as a player reads it: honours by their character (东 南 西 北 白 发 中), suited tiles as 5m (English) or
    5万 (Chinese).

    >>> tile_label(27, "en"), tile_label(33, "zh"), tile_label(4, "zh"), tile_label(4, "en"), tile_label(32, "zh-TW")
    ('东', '中', '5万', '5m', '發')
    """
    if k >= HONOR:
        ch = _HONOURS_ZH[k - HONOR]
        return to_hant(ch) if lang == "zh-TW" else ch
    rank = k % 9 + 1
    if lang == "en":
        return f"{rank}{'mps'[suit_of(k)]}"
    suit = _SUIT_ZH[suit_of(k)]
    return f"{rank}{to_hant(suit) if lang == 'zh-TW' else suit}"


def _name_label(name: str, lang: str) -> str:
    """A tile given by name (``"5m"``, ``"1z"``) in events, as :func:`tile_label`."""
    rank, suit = int(name[0]), name[1]
    return tile_label((rank - 1) + 9 * "mpsz".index(suit), lang)


def _tiles(ks: Sequence[int], lang: str) -> str:
    return " ".join(tile_label(k, lang) for k in ks)


def item_label(item: Mapping[str, Any], lang: str) -> str:
    """A score item's name in the chosen language (English, or Chinese converted for zh-TW)."""
    return named(str(item["zh"]), str(item["en"]), lang)


class Local:
    """One terminal session: the table, the language, and the hand's own dealer (the winds a line is labelled
    with stay those of the hand being played, even after the deal has passed)."""

    def __init__(self, t: Table, lang: str) -> None:
        self.t = t
        self.lang = lang
        self.V: Variant = get_variant(t.variant)
        self.dealer = t.dealer  # the dealer of the hand the events belong to
        # the numbers of the last menu of each kind (discards, claims ...) of this hand: an action keeps its number
        self.numbers: dict[str, dict[tuple[str, int | None], int]] = {}
        self.numbered_hand = -1

    def tr(self, key: str, **params: Any) -> str:
        return _tr(self.lang, key, **params)

    def who(self, seat: int, dealer: int | None = None) -> str:
        w = (seat - (self.dealer if dealer is None else dealer)) % 4
        wind = SEATS[w] if self.lang == "en" else tile_label(HONOR + w, self.lang)
        return f"{self.t.players[seat]}({wind})"

    # -------------------------------------------------------------------------------------------- the state

    def state(self) -> str:
        v, lang = self.t.view(HUMAN), self.lang
        variant = self.variant_name()
        mode = f" {v['rules']['mode']}" if "mode" in v["rules"] else ""
        where = self.tr("di", n=v["di"]) if v["di"] is not None else self.tr("quan", n=v["quan"])
        lines = [self.tr("head", variant=variant, mode=mode, n=v["hand_no"] + 1, where=where,
                         dealer=self.who(v["dealer"]), streak=v["dealer_streak"], wall=v["wall_count"])]
        stacks, jiao = v["stacks"], v["jiao"]
        if stacks is not None and jiao is not None:
            lines.append(self.tr("stacks", line="  ".join(
                self.tr("stack_jiao", who=self.who(s), stack=stacks[s], jiao=f"{jiao[s]:+d}") for s in range(4))))
        lines.append(self.tr("totals", line="  ".join(f"{self.who(s)} {v['totals'][s]:+d}" for s in range(4))))
        if v["last_four"]:
            lines.append(self.tr("last_tiles"))
        for s in range(4):
            river = " ".join(tile_label(e["tile"], lang) + ("*" if e["status"] == "claimed" else "")
                             + ("!" if e["status"] == "won" else "") + ("_" if e["status"] == "dead" else "")
                             for e in v["rivers"][s])
            melds = " ".join(self._meld(m) for m in v["melds"][s])
            alarm = ""
            if v["alarms"][s]:
                alarm = f"  {self.tr('alarm_tag')} " + text("render.list_sep", lang).join(
                    self._alarm_name(c) for c in v["alarms"][s])
            c = colon(lang)
            lines.append(f"  {ljust(self.who(s), 10)} {self.tr('river')}{c}{river or '-'}")
            if melds or alarm:
                lines.append(f"  {'':10} {self.tr('melds')}{c}{melds}{alarm}")
        hand = list(v["hand"])
        drawn = v["drawn"]
        if drawn is not None and drawn in hand:
            hand.remove(drawn)
        line = self.tr("hand", tiles=_tiles(hand, lang))
        if drawn is not None:
            line += self.tr("drew", tile=tile_label(drawn, lang))
        lines.append(line)
        if self.t.variant == "chizhou":  # the 花 gate (C5) refuses wins: the count it will read, before it does
            shown = shown_hua(self.t.melds[HUMAN])
            closed = len(honour_triplets(self.t.counts[HUMAN]))
            lines.append(self.tr("hua_now", n=shown + closed, shown=shown, closed=closed)
                         + (self.tr("hua_big") if v["rules"].get("big_hands_skip_hua") else ""))
        if v["last_discard"] and v["claim"]:
            ld = v["last_discard"]
            lines.append(self.tr("discarded", who=self.who(ld["seat"]), tile=tile_label(ld["tile"], lang)))
        lines += self.hints()
        why = self.why_no_self_win()
        if why:
            lines.append(why)
        return "\n".join(lines)

    def _meld(self, m: Mapping[str, Any]) -> str:
        body = _tiles(m["tiles"], self.lang)
        if m["kind"] == "concealed_kong":
            return f"({body})"
        src = f" <-{self.who(m['fed_by'])}" if m.get("fed_by") is not None else ""
        return f"[{body}{src}]"

    def _alarm_name(self, code: str) -> str:
        zh, en = self.V.alarm_names.get(code, (code, code))
        return named(zh, en, self.lang)

    # -------------------------------------------------------------------------------------------- hints

    def _hand_and_situation(self, counts: Sequence[int], tile: int, discarder: int | None) -> tuple[Hand, Situation]:
        t = self.t
        by_wind = tuple(
            tuple(Meld(m.kind, m.tile, None if m.fed_by is None else t.wind(m.fed_by), m.claimed, m.added)
                  for m in t.melds[(t.dealer + w) % 4])
            for w in range(4)
        )
        w = t.wind(HUMAN)
        concealed = tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))
        sit = Situation(winner=w, discarder=None if discarder is None else t.wind(discarder),
                        last_tiles=t.last_four >= 0, dealer_streak=t.streak, melds_by_seat=by_wind)
        return Hand(concealed, by_wind[w], tile), sit

    def _legal(self, counts: Sequence[int], tile: int, discarder: int | None) -> bool:
        hand, sit = self._hand_and_situation(counts, tile, discarder)
        return self.V.can_win(hand, sit, self.t.rules)

    def _refusal(self, counts: Sequence[int], tile: int, discarder: int | None) -> str | None:
        """Why a complete shape may not win (the scorer's message: 花 short, no 八支 ...), or None when it may."""
        hand, sit = self._hand_and_situation(counts, tile, discarder)
        if self.V.can_win(hand, sit, self.t.rules):
            return None
        try:
            self.V.score(hand, sit, self.t.rules)
        except EngineError as e:
            return e.message(self.lang)
        return None

    def _shape(self, counts: Sequence[int]) -> bool:
        """Pair + 4 sets (or seven pairs where the variant has them) with the tile added (14-tile counts)."""
        return is_complete(counts) or bool(self.V.seven_pairs and not self.t.melds[HUMAN] and is_seven_pairs(counts))

    def hint_items(self) -> list[Hint]:
        """The discards that keep the hand ready with each wait and its unseen count (``[(None, waits)]`` for a
        13-tile ready hand): what the Discord hand shows, from the same :mod:`engine.hints`."""
        return ready_discards(self.t.variant, self.t.view(HUMAN))

    def hints(self) -> list[str]:
        if self.t.phase != "play" or self.t.turn != HUMAN or self.t.last_four >= 0:
            return []
        items = self.hint_items()
        lines = []
        for k, ws in items:
            wt = " ".join(self.tr("hint_left", tile=tile_label(w, self.lang), n=n) for w, n in ws)
            if k is None:
                lines.append(self.tr("hint_ready", waits=wt))
            else:
                lines.append(self.tr("hint_line", tile=tile_label(k, self.lang), waits=wt))
        if items and items[0][0] is not None:
            lines.insert(0, self.tr("hint_title"))
        return lines

    def why_no_self_win(self) -> str | None:
        """On the human's turn: the drawn tile completes the shape but the win is not offered - say why."""
        t = self.t
        drawn = t.drawn[HUMAN]
        if t.phase != "play" or t.turn != HUMAN or drawn is None or t.after_claim:
            return None
        if any(a.type == "win" for a in t.legal_actions(HUMAN)) or not self._shape(t.counts[HUMAN]):
            return None
        c = list(t.counts[HUMAN])
        c[drawn] -= 1
        why = self._refusal(c, drawn, None)
        return self.tr("self_no_win", why=why) if why else None

    def before_discard(self, seat: int, tile: int) -> dict[str, Any]:
        """Before another seat's discard of ``tile``, what the human might expect of it: whether it completes the
        human's shape (and why the scorer would refuse that win), whether the human could pung it, and the state
        that decides (漏胡, the passed-peng lock, the claim rules, the discard reaching the last tiles)."""
        t = self.t
        c = list(t.counts[HUMAN])
        c[tile] += 1
        shape = self._shape(c)
        reserve = self.V.reserve
        return {
            "seat": seat, "tile": tile, "shape": shape,
            "refusal": self._refusal(t.counts[HUMAN], tile, seat) if shape else None,
            "could_pung": t.counts[HUMAN][tile] >= 2, "furiten": t.furiten[HUMAN],
            "final": bool(reserve) and t.live <= reserve, "locked": tile in t.pung_lock[HUMAN],
            "claim_ok": self.V.claim_allowed(t.melds[HUMAN], "pung", [tile] * 3, t.rules),
        }

    def after_discard(self, before: Mapping[str, Any]) -> list[str]:
        """After another seat's discard: why the human was not offered a win or a pung it might expect."""
        t = self.t
        tile = before["tile"]
        offered = {a.type for a in t.window.get(HUMAN, [])} if t.phase in ("claim", "rob") else set()
        lines = []
        label = tile_label(tile, self.lang)
        final = before["final"]
        if before["shape"] and "win" not in offered:
            if before["refusal"]:
                why = before["refusal"]
            elif before["furiten"]:
                why = self.tr("why_furiten")
            elif final and "win" not in self.V.final_discard:
                why = self.tr("why_final_win")
            else:
                why = None
            if why:
                lines.append(self.tr("why_not_win", tile=label, why=why))
        if before["could_pung"] and "pung" not in offered and "win" not in offered:
            variant = self.variant_name()
            if final:
                why = self.tr("why_final")
            elif before["locked"]:
                why = self.tr("why_pung_lock")
            elif not before["claim_ok"]:
                why = self.tr("why_chi_limit") if self.V.allows_chi else self.tr("why_claim_rule", variant=variant)
            else:
                why = None
            if why:
                lines.append(self.tr("why_not_claim", what=self.tr("what_pung"), tile=label, why=why))
        return lines

    # -------------------------------------------------------------------------------------------- the menu

    def menu(self, acts: Sequence[Action]) -> list[tuple[int, Action]]:
        """The actions with their numbers, in the engine's order. The numbers are always 1 to n; an action offered
        in the last menu of the same kind this hand keeps its number when it is still in that range (the same tile,
        the same number); the others take the free ones, smallest first.

        >>> t = Table.new("hefei", 5)
        >>> ui = Local(t, "en")
        >>> first = dict((a.tile, n) for n, a in ui.menu(t.legal_actions(HUMAN)))
        >>> kept = [a.tile for a in t.legal_actions(HUMAN)][1:]  # as if the first tile left the hand
        >>> again = ui.menu([a for a in t.legal_actions(HUMAN) if a.tile in kept])
        >>> all(first[a.tile] == n for n, a in again)
        True
        """
        hand_no = self.t.view(HUMAN)["hand_no"]
        if hand_no != self.numbered_hand:
            self.numbers, self.numbered_hand = {}, hand_no
        kind = "play" if self.t.phase == "play" else "claim"
        old = self.numbers.get(kind, {})
        numbers: dict[int, int] = {}  # index in acts -> number
        for i, a in enumerate(acts):
            n = old.get((a.type, a.tile))
            if n is not None and n not in numbers.values() and n <= len(acts):
                numbers[i] = n
        free = (n for n in range(1, len(acts) + 1) if n not in numbers.values())
        for i in range(len(acts)):
            if i not in numbers:
                numbers[i] = next(free)
        self.numbers[kind] = {(a.type, a.tile): numbers[i] for i, a in enumerate(acts)}
        return [(numbers[i], a) for i, a in enumerate(acts)]

    def read(self, raw: str, menu: Sequence[tuple[int, Action]]) -> Action | str:
        """The action ``raw`` names (a number of ``menu``, or a tile), or the one line that says why it names none."""
        if raw.isdigit():  # (``²`` is a digit that int() refuses; 5,000 digits are past int()'s limit)
            number = int(raw.lstrip("0") or "0") if raw.isdecimal() and len(raw.lstrip("0")) <= 4 else None
            for n, a in menu:
                if n == number:
                    return a
            return self.pick_line(menu)
        try:
            h = parse_hand(raw)
        except EngineError:
            return self.pick_line(menu)
        if len(h.concealed) != 1 or h.melds or h.win_tile is not None:
            return self.pick_line(menu)
        k = h.concealed[0]
        acts = [a for _, a in menu if a.tile == k]
        discards = [a for a in acts if a.type == "discard"]
        if discards:
            return discards[0]
        if len(acts) == 1:
            return acts[0]
        label = tile_label(k, self.lang)
        if acts:
            return self.tr("tile_many", tile=label)
        if not self.V.tile_counts(self.t.rules)[k]:  # 东 in Hefei, a 2 in Hefei's 84-tile deck
            return self.tr("tile_not_in_variant", variant=self.variant_name(), tile=label)
        if any(a.type == "discard" for _, a in menu):  # the player's turn to discard: a tile not in the hand
            return self.tr("tile_not_held", tile=label)
        return self.tr("tile_none", tile=label)

    def pick_line(self, menu: Sequence[tuple[int, Action]]) -> str:
        numbers = sorted(n for n, _ in menu)
        return self.tr("pick" if len(numbers) > 1 else "pick_one", numbers=", ".join(map(str, numbers)))

    def variant_name(self) -> str:
        return named(self.V.zh, self.V.en, self.lang)

    def honours(self, kind: str) -> str:
        """How the honours this variant's wall holds are typed, for the start line (``kind`` ""), the help
        (``"_help"``) and the help's Chinese forms (``"_zh"``), after the list's separator: every honour in Chizhou,
        红中 alone in Wuhu, nothing in Hefei."""
        have = self.V.tile_counts(self.t.rules)[HONOR:NUM_KINDS]
        if not any(have):
            return ""
        which = "all" if all(have) else "red"
        return text("render.list_sep", self.lang) + self.tr(f"honours_{which}{kind}")

    def legend(self) -> str:
        """What the marks in a river mean: the claims the variant has (chi in Chizhou only), the last four tiles'
        mark only where the variant has them."""
        return self.tr("legend", claims=self.tr("claims_chi" if self.V.allows_chi else "claims"),
                       laid=self.tr("legend_laid") if self.V.reserve else "")

    # -------------------------------------------------------------------------------------------- actions, events

    def describe(self, a: Action, phase: str | None = None) -> str:
        """An action as the menu writes it; ``phase``: the table's phase when it was offered (default: now)."""
        lang, phase = self.lang, self.t.phase if phase is None else phase
        if a.type == "chi" and a.tile is not None:
            return self.tr("act_chi", tiles=_tiles([a.tile, a.tile + 1, a.tile + 2], lang))
        if a.type == "win":
            return self.tr("act_win_self" if phase == "play" else "act_win")
        if a.type == "pass":
            return self.tr("act_lay" if phase == "play" else "act_pass")
        if a.type == "next_hand":
            return self.tr("act_next")
        assert a.tile is not None
        return self.tr(f"act_{a.type}", tile=tile_label(a.tile, lang))

    def event(self, e: Event) -> str | None:
        d, lang = e.data, self.lang
        who = self.who(e.seat) if e.seat is not None else ""
        if e.type == "hand_start":
            self.dealer = int(d["dealer"])
            dice = " + ".join(f"{a}+{b}" for a, b in d["dice"])
            return self.tr("hand_start", n=d["hand_no"] + 1, dice=dice, commit=d["commitment"][:16])
        if e.type == "timeout":
            return self.tr("timeout", who=who)
        if e.type == "discard" and e.seat != HUMAN:
            return self.tr("ai_discards", who=who, tile=_name_label(d["tile"], lang))
        if e.type == "draw" and d.get("replacement"):
            if e.seat == HUMAN:
                return self.tr("replacement_you", tile=_name_label(d["tile"], lang))
            return self.tr("replacement_ai", who=who)
        if e.type == "pung":
            return self.tr("pung", who=who, tile=_name_label(d["tile"], lang))
        if e.type == "chi":
            return self.tr("chi", who=who, tile=_name_label(d["tile"], lang),
                           tiles=" ".join(_name_label(x, lang) for x in d["tiles"]))
        if e.type == "kong":
            return self.tr(f"kong_{d['kind']}", who=who, tile=_name_label(d["tile"], lang))
        if e.type == "add_kong":
            return None  # the kong event (or the rob window) follows
        if e.type == "rob_window":
            return self.tr("rob_window", who=who, tile=_name_label(d["tile"], lang))
        if e.type == "alarm":
            return self.tr("alarm", who=who, name=named(d["zh"], d["en"], lang))
        if e.type == "last_four":
            return self.tr("last_four")
        if e.type == "lay_aside":
            return self.tr("lay_aside", who=who, tile=_name_label(d["tile"], lang)) if "tile" in d else None
        if e.type == "win":
            return self.win(e)
        if e.type == "hand_end":
            return self.hand_end(d)
        if e.type == "di_end":
            return self.tr("di_end", n=d["di"])
        if e.type == "match_end":
            return self.tr("match_end", line="  ".join(f"{self.t.players[s]} {d['totals'][s]:+d}" for s in range(4)))
        return None

    def win(self, e: Event) -> str:
        d, lang = e.data, self.lang
        assert e.seat is not None
        if d["self_drawn"]:
            how = self.tr("how_kong" if d["kong_draw"] else "how_self")
        elif d["rob_kong"]:
            how = self.tr("how_rob", from_=self.who(d["from"]))
        else:
            how = self.tr("how_ron", from_=self.who(d["from"]))
        tiles = " ".join(_name_label(x, lang) for x in d["hand"])
        melds = " ".join("[" + " ".join(_name_label(x, lang) for x in m["tiles"]) + "]" for m in d["melds"])
        # "胡 5，门清 10" / "win = 5; concealed hand (门清) = 10": an English label may end in a number, hold a comma
        # or a colon of its own ("flowers (花): needed to win, not paid = 2")
        items = ("; " if lang == "en" else "，").join(
            f"{item_label(i, lang)}{' = ' if lang == 'en' else ' '}{i['value']}"
            + ("x" if i.get("kind") == "mul" else "") for i in d["items"])
        lines = [self.tr("win", who=self.who(e.seat), tile=_name_label(d["tile"], lang), how=how),
                 # the concealed tiles, the winning one after "+" (as the notation writes it), the melds
                 self.tr("win_hand", tiles=f"{tiles} + {_name_label(d['tile'], lang)} {melds}".strip()),
                 self.tr("win_items", items=items)]
        lines += [self.tr("note", text=item_label(n, lang)) for n in d["notes"]]
        lines.append(self.tr("win_pay", line=self._pay_line(d["settled"])))
        return "\n".join(lines)

    def _pay_line(self, pays: Sequence[int], dealer: int | None = None) -> str:
        return "  ".join(f"{self.who(s, dealer)} {pays[s]:+d}" for s in range(4))

    def hand_end(self, d: Mapping[str, Any]) -> str:
        dealer = int(d["dealer"])  # the hand's own dealer: the deal may already have passed
        line = self._pay_line(d["payments"], dealer)
        lines = [self.tr("drawn_hand" if d["draw"] else "settle", line=line)]
        reveal = d["reveal"]
        lines.append(self.tr("reveal", wall=" ".join(_name_label(x, self.lang) for x in reveal["wall"])))
        ok = verify_commitment(d["commitment"], reveal)
        lines.append(self.tr("verify_ok", salt=reveal["salt"], commit=d["commitment"][:16]) if ok
                     else self.tr("verify_bad"))
        return "\n".join(lines)


def run_local(
    variant: str,
    seed: int | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., Any] = print,
    mode: int | None = None,
    rules: Sequence[str] = (),
    lang: str = "zh",
    difficulty: str = "normal",
    review: bool = False,
) -> int:
    """Play a whole match in the terminal; returns the exit code (0, also on quit or EOF; 130 on Ctrl-C; 2 on a bad
    variant or house rule). ``rules``: ``KEY=VALUE`` house rules; ``lang``: ``zh``, ``zh-TW`` or ``en``;
    ``difficulty``: the three AI players' (easy, normal, strong); ``review``: print the AI's review of the player's
    decisions after every hand and over the match at its end (``r`` at a prompt shows the last hand's anyway)."""
    lang = resolve(lang)
    if seed is None:
        seed = random.SystemRandom().randrange(10**9)
    try:
        V = get_variant(variant)
        settings = V.parse_rules(list(rules)) if rules else {}
        if mode is not None and any(r.key == "mode" for r in V.house_rules):
            settings["mode"] = mode
        t = Table.new(variant, seed, settings, players=(_tr(lang, "you"), "AI-1", "AI-2", "AI-3"))
    except EngineError as e:  # as mjbot score says it: on stderr, after "error:"
        print(text("cli.error", lang, error=e.message(lang)), file=sys.stderr)
        return 2
    ui = Local(t, lang)
    reviews = HandReviews(variant, seed, settings, t.players, [], HUMAN, lang, lambda k: tile_label(k, lang),
                          ui.describe)
    try:
        return _play(t, ui, V, seed, input_fn, print_fn, difficulty, reviews, review)
    except KeyboardInterrupt:  # Ctrl-C, at a prompt or while the AI plays: the usual exit status of an interrupt
        print_fn(ui.tr("bye"))
        return 130


def _play(t: Table, ui: Local, V: Variant, seed: int, input_fn: Callable[[str], str],
          print_fn: Callable[..., Any], difficulty: str, reviews: HandReviews, review: bool) -> int:
    actions = reviews.actions  # every action applied: a finished hand's review replays them
    assert isinstance(actions, list)
    finished: list[int] = []  # the hands that have ended, in order
    rng = random.Random(f"local|{seed}")
    print_fn(ui.tr("start", variant=ui.variant_name(), seed=seed, honours=ui.honours("")))
    print_fn(ui.legend())
    for ev in t.start_events:
        line = ui.event(ev.for_seat(HUMAN))
        if line:
            print_fn(line)
    while t.phase != "over":
        waiting = t.awaited()
        if HUMAN in waiting:
            acts = t.legal_actions(HUMAN)
            if t.phase != "ended":
                print_fn(ui.state())
            menu = ui.menu(acts)
            for n, a in menu:
                print_fn(f"  {n}) {ui.describe(a)}")
            while True:  # a bad input is answered in one line; the board is not printed again
                try:
                    raw = input_fn("> ")
                except EOFError:
                    print_fn(ui.tr("bye"))
                    return 0
                raw = raw.translate(FULL_WIDTH).strip().lower()
                if raw in ("q", "quit", "exit"):
                    print_fn(ui.tr("bye"))
                    return 0
                if raw in ("?", "h", "help"):
                    print_fn(ui.tr("help", honours=ui.honours("_help"), honours_zh=ui.honours("_zh")))
                    print_fn(ui.legend())
                    continue
                if raw in ("r", "m"):  # the AI's review of the last finished hand, or of the match so far
                    for line in reviews.asked(finished, raw):
                        print_fn(line)
                    for n, a in menu:  # the choices again: the review has pushed them up the screen
                        print_fn(f"  {n}) {ui.describe(a)}")
                    continue
                if raw == "" and len(menu) == 1:
                    raw = str(menu[0][0])
                got = ui.read(raw, menu)
                if isinstance(got, Action):
                    a = got
                    break
                print_fn(got)
        else:
            s = waiting[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t.view(s), s, la, difficulty, rng)
        check = None
        if a.type == "discard" and a.seat != HUMAN and a.tile is not None and t.phase == "play":
            check = ui.before_discard(a.seat, a.tile)
        hand_no, was_over = t.hand_no, t.phase in ("ended", "over")
        events = t.apply(a)
        actions.append(a)
        ended = not was_over and t.phase in ("ended", "over")
        if ended:
            finished.append(hand_no)
        for ev in events:
            if ended and review and ev.type == "match_end":  # the hand's review before the match's end
                for line in reviews.hand_lines(hand_no):
                    print_fn(line)
            line = ui.event(ev.for_seat(HUMAN))
            if line:
                print_fn(line)
        if check is not None:
            for line in ui.after_discard(check):
                print_fn(line)
        if ended and t.phase == "ended":
            if review:
                for line in reviews.hand_lines(hand_no):
                    print_fn(line)
            else:
                print_fn(ui.tr("review_hint"))
    if review:
        for line in reviews.match_lines(finished):
            print_fn(line)
        return 0
    reviews.offer_at_end(finished, input_fn, print_fn)
    return 0

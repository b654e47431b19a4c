"""The ``mjbot`` command: run the bot, check a set-up, score a hand, simulate, or play in the terminal.

``mjbot --help`` lists the commands and ``mjbot COMMAND --help`` their options; everything printed points only at
things an installed copy has (these helps, ``mjbot check``, ``mjbot local``), never at files of the source tree.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from engine.ai import DIFFICULTIES
from engine.errors import EngineError
from engine.tiles import SEATS, parse_hand
from engine.variants import VARIANT_KEYS
from text import catalog
from text.lang import LANGS, resolve

from . import cli_lang
from .cli_args import application_id as _application_id
from .cli_args import count as _count
from .cli_args import seat as _seat
from .cli_args import streak as _streak

log = logging.getLogger(__name__)

NOTATION = """\
hand notation:
  123m 456p 789s   tiles: digits then the suit, m 万, p 筒/饼, s 条/索 (一二三万 works too)
  1z-7z            honours 东 南 西 北 白 发 中 (or the characters: 东东东, 东风, 红中, 发财, 白板)
  [555p]           a pung; [5555p] an exposed kong; (5555p) a concealed kong; [345s] a chi
  [555p:W]         the meld was fed by seat W (Wuhu 包, Chizhou 承包)
  +5m              the winning tile, always last
  Melds go after the concealed tiles, in the order made; spaces are ignored.
  Seats are E S W N; E is the dealer.

examples:
  mjbot score 23456799m345p67s+8s --variant wuhu --from W
  mjbot score 123456789m1p789s+1p --variant hefei --from W --json
  mjbot score 111m222p333s5z[777z:W]+5z --variant chizhou --from N --rule big_hands_skip_hua=on

exit status: 0 scored, 1 the hand is malformed, impossible, not complete or not allowed to win (the message says
which), 2 wrong options."""

VARIANTS = VARIANT_KEYS  # the variants the engine registers
# The exit status of a setting to fix (no token or a malformed one, a token Discord refuses, a bad MJBOT_* value, a
# database that cannot be used): `mjbot run` and `mjbot check` alike. deploy/mjbot.service does not restart on it
# (RestartPreventExitStatus=2): restarting would not help. Exit status 1 is a failure that a restart may cure.
SETTING_TO_FIX = 2


def version() -> str:
    """The installed distribution's version (``importlib.metadata``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("mjbot")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "0+unknown"


def _build_parser() -> argparse.ArgumentParser:
    p = cli_lang.Parser(prog="mjbot", description="Anhui mahjong (Wuhu, Hefei, Chizhou) for Discord.")
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = p.add_subparsers(dest="command")

    r = sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)",
                       description="Run the bot. Without --shard-ids and --shard-count one process runs every shard "
                                   "(Discord's recommended count). Several processes, each running some of the "
                                   "shards, share one PostgreSQL database; each plays the tables of its own shards' "
                                   "servers.")
    r.add_argument("--shard-ids", default=None, metavar="A-B|A,B,...",
                   help="the shards this process runs, e.g. 0-3 or 0,2,5 (default: MJBOT_SHARD_IDS, else every one)")
    r.add_argument("--shard-count", default=None, metavar="N",
                   help="how many shards the bot has in all (default: MJBOT_SHARD_COUNT, else Discord's "
                        "recommended count)")

    c = sub.add_parser("check", help="check the set-up before going live (token, database, images, commands, invite)",
                       description="One line per check with ✓ or ✗; exit status 0 only when all pass. The token is "
                                   "never printed.")
    c.add_argument("--application-id", type=_application_id, default=None, metavar="ID",
                   help="the application id for the invite link (default: read from the token)")
    c.add_argument("--shard-ids", default=None, metavar="A-B|A,B,...", help="as for mjbot run")
    c.add_argument("--shard-count", default=None, metavar="N", help="as for mjbot run")

    s = sub.add_parser("score", help="score a winning hand", epilog=NOTATION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("hand", help="the hand, e.g. 23456799m345p67s+8s (notation below)")
    s.add_argument("--variant", required=True, choices=VARIANTS)
    s.add_argument("--mode", type=int, choices=(315, 525), default=None, help="Wuhu scoring (default 315)")
    s.add_argument("--winner", type=_seat, default=1, metavar="SEAT", help="E S W N (E is the dealer; default S)")
    s.add_argument("--from", dest="discarder", type=_seat, default=None, metavar="SEAT",
                   help="won on SEAT's discard (with --rob-kong: SEAT's added kong); default self-drawn")
    s.add_argument("--kong-draw", action="store_true", help="the winning tile was a kong replacement")
    s.add_argument("--rob-kong", action="store_true", help="won by robbing SEAT's added kong (Hefei, Chizhou)")
    s.add_argument("--last-tiles", action="store_true", help="won in the last-four-tiles phase (Wuhu, Hefei)")
    s.add_argument("--heavenly", action="store_true", help="heavenly hand (天胡): the dealer wins on the dealt tiles (Wuhu only)")
    s.add_argument("--earthly", action="store_true", help="earthly hand (地胡): won on the dealer's first discard (Wuhu only)")
    s.add_argument("--dealer-streak", type=_streak, default=None, metavar="N",
                   help="Hefei only: the dealer streak (庄数), default 1")
    s.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="a house rule")
    _lang_option(s, "the language of the breakdown and of errors")
    s.add_argument("--json", action="store_true", help="one JSON object on the last line")
    s.set_defaults(subparser=s)

    m = sub.add_parser("sim", help="simulate hands of four AI players",
                       description="Four AI players play N hands (new matches as needed) and the invariants are "
                                   "checked: every settlement sums to 0, every tile is accounted for. The same seed "
                                   "plays the same games.")
    m.add_argument("--variant", choices=VARIANTS, default=None,
                   help="the rule set; without it every variant plays N hands, and the totals are given with each "
                        "variant's own figures under \"variants\"")
    m.add_argument("--hands", type=int, required=True, metavar="N", help="hands to play (per variant)")
    m.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the deals and of the AI (default 0)")
    m.add_argument("--mode", type=int, choices=(315, 525), default=None,
                   help="Wuhu only: 315 or 525 scoring (default 315)")
    m.add_argument("--difficulty", choices=DIFFICULTIES, default="normal",
                   help="how the four AI players play (default normal)")
    m.add_argument("--json", action="store_true",
                   help="one JSON object on the last line (hands, wins, self_draws, draws, zero_sum, "
                        "tiles_conserved, hands_per_s, ...)")
    m.set_defaults(subparser=m)

    d = sub.add_parser("duel", help="duplicate 1v3: how much one AI difficulty wins against another, in 子 a hand",
                       description="Every deal (a seeded wall and dealer, one hand with the default rules) is played "
                                   "four times, the tested difficulty in each chair and the base one in the others. "
                                   "Prints the tested chair's 子 a hand with a 95% interval over the deals, its win, "
                                   "deal-in and draw rates and its decision time (mean, p99).")
    d.add_argument("--variant", required=True, choices=VARIANTS, help="the rule set")
    d.add_argument("--test", required=True, choices=DIFFICULTIES, help="the difficulty measured (one chair)")
    d.add_argument("--base", required=True, choices=DIFFICULTIES, help="the difficulty of the other three chairs")
    d.add_argument("--deals", type=_count(1, MAX_DEALS), required=True, metavar="N",
                   help="deals to play (each four times)")
    d.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the deals (default 0)")
    d.add_argument("--jobs", type=_count(1, MAX_JOBS), default=1, metavar="N",
                   help="worker processes (default 1; the same figures, the timing aside)")
    d.add_argument("--json", action="store_true", help="one JSON object on the last line")
    d.set_defaults(subparser=d)

    db = sub.add_parser("db", help="the database: copy it between SQLite and PostgreSQL")
    dbsub = db.add_subparsers(dest="db_command", required=True)
    cp = dbsub.add_parser("copy", help="copy a whole database (a file, sqlite:///path or postgresql://...) and verify "
                                       "the copy: row counts, every server's ledger sums, every match replayed")
    cp.add_argument("source")
    cp.add_argument("destination")
    cp.add_argument("--force", action="store_true", help="replace the destination's data if it has any")

    loc = sub.add_parser("local", help="play a table in the terminal against three AI players",
                         description="A whole match in this terminal, you and three AI players; nothing connects "
                                     "to Discord. Type a tile (8m, 五万) or an action's number; ? for help.")
    loc.add_argument("--variant", required=True, choices=VARIANTS, help="the rule set")
    loc.add_argument("--seed", type=int, default=None, metavar="S",
                     help="the seed of the deals (default: a random one, printed at the start; the same seed "
                          "deals the same walls)")
    loc.add_argument("--mode", type=int, choices=(315, 525), default=None,
                     help="Wuhu only: 315 or 525 scoring (default 315)")
    loc.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                     help="a house rule, e.g. mode=525 (Wuhu) or contracts=off (Chizhou); repeat for more")
    _lang_option(loc, "the language of the table")
    loc.add_argument("--difficulty", choices=DIFFICULTIES, default="normal",
                     help="how the three AI players play (default normal)")
    loc.add_argument("--review", action="store_true",
                     help="after every hand, the AI's review of your decisions (expected 子 of your choice and the "
                          "best, the loss, why), and over the match at its end; without it, type r (the last hand) "
                          "or m (the match so far) at a prompt")
    loc.set_defaults(subparser=loc)
    return p


def _lang_option(p: argparse.ArgumentParser, what: str) -> None:
    """The one language option of every command: the same choices and default everywhere."""
    p.add_argument("--lang", choices=LANGS, default=cli_lang.DEFAULT_LANG,
                   help=f"{what}: zh (简体中文, the default), zh-TW (繁體中文) or en (English)")


def _refuse_what_does_not_apply(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """An option that the chosen variant has no use for is refused (exit 2, with the reason), never ignored."""
    variant = getattr(args, "variant", None)
    if variant is None:
        return
    from engine.variants import get_variant
    from text.hant import named

    lang = resolve(getattr(args, "lang", None) or "en")  # score and local speak the player's language
    V = get_variant(variant)
    name = named(V.zh, V.en, lang)

    def refuse(key: str, **params: Any) -> None:
        p.error(catalog.text(f"cli.{key}", lang, variant=name, **params))

    mode = getattr(args, "mode", None)
    if mode is not None and not V.modes:
        refuse("mode_not_in_variant")
    for r in getattr(args, "rule", None) or ():
        key, _, value = str(r).partition("=")
        if mode is not None and key.strip() == "mode" and value.strip() != str(mode):
            refuse("mode_conflict", mode=mode, rule=r)
    if getattr(args, "dealer_streak", None) is not None and not V.scored_streak:
        refuse("streak_not_in_variant")


def _lenient_streams() -> None:
    """A terminal or pipe that is not UTF-8 (a Chinese Windows console's GBK, an ASCII locale) or a line of invalid
    bytes must not end a command in a traceback: what the output's encoding cannot show is written as ``?`` and an
    undecodable input byte reads as U+FFFD (an input the command then answers as any it does not understand)."""
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        with contextlib.suppress(AttributeError, ValueError, OSError):  # a replaced or closed stream: left as it is
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]  # a TextIOWrapper's, when it is one


def main(argv: Sequence[str] | None = None) -> int:
    _lenient_streams()
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C before a command took it over: no traceback (while the modules load: launch)
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # whoever read the output went away (``mjbot local ... | head``): stop quietly
        # the interpreter flushes stdout as it exits: into nothing now, not the closed pipe again
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EIO):
            raise
        # the output cannot be written (a full disk, `> /dev/full`, a terminal gone): one line, if stderr can
        with contextlib.suppress(OSError):
            print(f"mjbot: cannot write the output: {e.strerror}", file=sys.stderr)
        with contextlib.suppress(OSError, ValueError):  # nor flush into it again at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None = None) -> int:
    with cli_lang.speaking(sys.argv[1:] if argv is None else argv):
        args = _build_parser().parse_args(argv)
        if getattr(args, "subparser", None) is not None:
            _refuse_what_does_not_apply(args.subparser, args)
    command = args.command or "run"
    if command == "score":
        return _score(args)
    if command == "sim":
        return _sim(args)
    if command == "duel":
        return _duel(args)
    if command == "local":
        from .local import run_local

        return run_local(args.variant, args.seed, mode=args.mode, rules=args.rule, lang=args.lang,
                         difficulty=args.difficulty, review=args.review)
    if command == "check":
        return _check(args)
    if command == "db":
        from .store.copy import copy_main

        return copy_main(args.source, args.destination, force=args.force)
    return _run(getattr(args, "shard_ids", None), getattr(args, "shard_count", None))


def with_shard_flags(config: Any, ids: str | None, count: str | None) -> Any:
    """``config`` with the shards of ``--shard-ids`` / ``--shard-count`` (each flag given wins over its variable).
    Raises :class:`~bot.config.ConfigError` naming the setting at fault."""
    import dataclasses
    import os

    from .config import ConfigError
    from .shards import COUNT_ENV, COUNT_FLAG, IDS_ENV, IDS_FLAG, ShardError, parse_shards

    if ids is None and count is None:
        return config
    for flag, value in ((IDS_FLAG, ids), (COUNT_FLAG, count)):
        if value is not None and not value.strip():
            raise ConfigError(f"{flag} is empty: give a value, or leave the flag out")
    ids_text, ids_name = (ids, IDS_FLAG) if ids is not None else (os.environ.get(IDS_ENV), IDS_ENV)
    count_text, count_name = (count, COUNT_FLAG) if count is not None else (os.environ.get(COUNT_ENV), COUNT_ENV)
    if not (count_text or "").strip():
        count_name = COUNT_FLAG  # given nowhere: the flag is what to add
    try:
        plan = parse_shards(ids_text, count_text, ids_name=ids_name, count_name=count_name)
    except ShardError as e:
        raise ConfigError(str(e)) from None
    return dataclasses.replace(config, shards=plan)


def _check(args: argparse.Namespace) -> int:
    import asyncio

    from .check import run_checks
    from .config import Config, ConfigError

    try:
        config = with_shard_flags(Config.from_env(), args.shard_ids, args.shard_count)
    except ConfigError as e:
        print(f"✗ configuration: {e}")
        return SETTING_TO_FIX
    ok = asyncio.run(run_checks(config, args.application_id, emit=lambda line: print(line, flush=True)))
    return 0 if ok else SETTING_TO_FIX


def _run(shard_ids: str | None = None, shard_count: str | None = None) -> int:
    from .check import check_token
    from .config import Config, ConfigError

    try:
        config = with_shard_flags(Config.from_env(), shard_ids, shard_count)
    except ConfigError as e:
        print(f"mjbot: {e}", file=sys.stderr)
        return SETTING_TO_FIX
    from .shards import shard_problem

    refused = shard_problem(config)
    if refused is not None:
        print(f"mjbot: {refused}", file=sys.stderr)
        return SETTING_TO_FIX
    if not config.token:
        from .check import no_token

        print(no_token(), file=sys.stderr)
        return SETTING_TO_FIX
    token = check_token(config)  # the same rule as `mjbot check`: a malformed token is never sent to Discord
    if not token.ok:
        print(f"mjbot: {token.text}", file=sys.stderr)
        return SETTING_TO_FIX
    problem = database_problem(config.db_path)
    if problem is not None:  # before connecting to Discord: one line, no traceback
        print(f"mjbot: {problem}", file=sys.stderr)
        return SETTING_TO_FIX
    from .app import run

    return run(config)


def database_problem(path: object) -> str | None:
    """Open the database at ``path`` as the bot will (create, migrate, check it reads back sound and takes a
    write), close it, and say in one line what makes it unusable; None when it can be used. Takes at most the
    store's busy timeout (5 s) when another process holds the database locked."""
    import asyncio

    from .store import Store, StoreError

    async def check() -> None:
        store = await Store.open(path)  # type: ignore[arg-type]  # a path or a sqlite:/// URL, as MJBOT_DB gives it
        await store.close()

    try:
        asyncio.run(check())
    except StoreError as e:
        return e.message("en")
    except OSError as e:
        return f"cannot open the database {path}: {e.strerror or e}"
    return None


def _score(args: argparse.Namespace) -> int:
    from engine.variants import Situation, get_variant

    lang = resolve(args.lang)
    try:
        hand = parse_hand(args.hand)
        variant = get_variant(args.variant)
        rules = variant.parse_rules(args.rule)
        if variant.modes and args.mode is not None:
            rules["mode"] = args.mode
        situation = Situation(
            winner=args.winner,
            discarder=args.discarder,
            kong_draw=args.kong_draw,
            rob_kong=args.rob_kong,
            last_tiles=args.last_tiles,
            heavenly=args.heavenly,
            earthly=args.earthly,
            dealer_streak=1 if args.dealer_streak is None else args.dealer_streak,
        )
        variant.check_entered(situation, hand)
        result = variant.score(hand, situation, rules)
    except EngineError as e:
        if args.json:
            print(json.dumps({"ok": False, "code": e.code, "error": e.message(lang)}, ensure_ascii=False))
        else:
            print(catalog.text("cli.error", lang, error=e.message(lang)), file=sys.stderr)
        return 1
    except Exception:  # never a traceback for a player: log it for us, answer plainly
        log.debug("scoring failed for %r", args.hand, exc_info=True)
        msg = catalog.text("cli.internal", lang)
        if args.json:
            print(json.dumps({"ok": False, "code": "internal", "error": msg}, ensure_ascii=False))
        else:
            print(msg, file=sys.stderr)
        return 1
    if args.json:
        out = result.as_json()
        for item in out["items"] + out["notes"]:  # the ruling each line comes from (docs/rules/, e.g. "W5")
            item["rule"] = variant.rule_for(item["code"])
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(format_result(result, lang))
    return 0


def format_result(result, lang: str = "zh") -> str:
    """A readable itemised breakdown of a :class:`~engine.variants.ScoreResult`; each line names the ruling it comes
    from ("压档 (W5)", written out in docs/rules/)."""
    from engine.variants import get_variant
    from text.hant import to_hant

    en = lang == "en"
    rule_for = get_variant(result.variant).rule_for

    def name(item) -> str:
        text = item.en if en else (to_hant(item.zh) if lang == "zh-TW" else item.zh)
        rule = rule_for(item.code)
        return f"{text} ({rule})" if rule else text

    from text.width import colon, ljust, width

    lines = []
    columns = max((width(name(i)) for i in result.items), default=0)  # by display width: 支数 takes 4 columns
    for item in result.items:
        mark = {"mul": "×", "info": ""}.get(item.kind, "+")
        lines.append(f"  {ljust(name(item), columns)}  {mark}{item.value}")
    for note in result.notes:
        lines.append(f"  * {name(note)}")
    pay = "  ".join(f"{catalog.text(f'render.wind.{SEATS[s]}', lang)} {result.payments[s]:+d}" for s in range(4))
    header = catalog.text("cli.breakdown", lang)
    footer = catalog.text("cli.payments", lang)
    return f"{header}{colon(lang).rstrip()}\n" + "\n".join(lines) + f"\n{footer}{colon(lang)}{pay}"


def timed_simulate(simulate: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Run the engine's (clock-free) self-play and add the timing: ``seconds``, ``cpu_seconds``, ``hands_per_s``
    (hands per second of CPU time on one core) and ``wall_hands_per_s``."""
    import time

    t0, c0 = time.perf_counter(), time.process_time()
    out: dict[str, Any] = simulate(*args, **kwargs)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    out["seconds"] = round(dt, 3)
    out["cpu_seconds"] = round(cpu, 3)
    out["hands_per_s"] = round(out["hands"] / cpu, 1) if cpu > 0 else 0.0
    out["wall_hands_per_s"] = round(out["hands"] / dt, 1) if dt > 0 else 0.0
    return out


def combine_sims(each: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The results of several variants' simulations as one: counts summed (lists seat by seat), the invariants
    true only when true in every variant, the speed over all hands; each variant's own result under ``variants``.

    >>> a = {"variant": "wuhu", "seed": 0, "hands": 2, "zero_sum": True, "won_by_seat": [1, 0, 0, 0],
    ...      "seconds": 1.0, "cpu_seconds": 1.0, "hands_per_s": 2.0, "wall_hands_per_s": 2.0}
    >>> b = dict(a, variant="hefei", hands=4, zero_sum=False, won_by_seat=[0, 1, 0, 0], cpu_seconds=3.0)
    >>> out = combine_sims({"wuhu": a, "hefei": b})
    >>> out["variant"], out["hands"], out["zero_sum"], out["won_by_seat"], out["hands_per_s"]
    ('all', 6, False, [1, 1, 0, 0], 1.5)
    >>> out["variants"]["hefei"]["hands"]
    4
    """
    out: dict[str, Any] = {"variant": "all"}
    for result in each.values():
        for k, v in result.items():
            if k in ("variant", "hands_per_s", "wall_hands_per_s"):
                continue
            if k not in out:
                out[k] = list(v) if isinstance(v, list) else v
            elif isinstance(v, bool):
                out[k] = out[k] and v
            elif isinstance(v, (int, float)) and k != "seed":
                out[k] = round(out[k] + v, 3) if isinstance(v, float) else out[k] + v
            elif isinstance(v, list):
                out[k] = [x + y for x, y in zip(out[k], v, strict=True)]
    cpu, dt = out.get("cpu_seconds", 0), out.get("seconds", 0)
    out["hands_per_s"] = round(out["hands"] / cpu, 1) if cpu > 0 else 0.0
    out["wall_hands_per_s"] = round(out["hands"] / dt, 1) if dt > 0 else 0.0
    out["variants"] = each
    return out


def _sim(args: argparse.Namespace) -> int:
    from engine.selfplay import simulate

    if args.hands < 0:
        print("--hands must be 0 or more", file=sys.stderr)
        return 2
    try:
        if args.variant is None:  # every variant, N hands each: the totals, and each variant's own figures
            each = {v: timed_simulate(simulate, v, args.hands, seed=args.seed, difficulty=args.difficulty,
                                      mode=args.mode if v == "wuhu" else None) for v in VARIANTS}
            out = combine_sims(each)
        else:
            out = timed_simulate(simulate, args.variant, args.hands, seed=args.seed, difficulty=args.difficulty,
                                 mode=args.mode)
    except KeyboardInterrupt:  # Ctrl-C: the usual status of an interrupted command, no traceback
        print("interrupted", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        for k, v in out.items():
            if k == "variants":
                for name, own in v.items():
                    print(f"{name}: " + ", ".join(f"{kk} {vv}" for kk, vv in own.items() if kk != "variant"))
            else:
                print(f"{k}: {v}")
    return 0


def _ignore_interrupt() -> None:
    """A duel's worker process leaves Ctrl-C to the parent (which stops it): no traceback from each worker."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def timed_duel(variant: str, test: str, base: str, deals: int, seed: int = 0, jobs: int = 1) -> dict[str, Any]:
    """The engine's (clock-free) duel with the tested difficulty's decisions timed by ``time.perf_counter``, the
    deals spread over ``jobs`` processes (the same figures whatever ``jobs``, the timing aside; never more processes
    than deals), plus ``seconds``."""
    import time

    from engine.duel import play_deal, summarise

    t0 = time.perf_counter()
    args = [(variant, test, base, d, seed, time.perf_counter) for d in range(deals)]
    jobs = min(jobs, deals)  # a process with no deal to play is only started to be stopped
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, initializer=_ignore_interrupt) as ex:
            try:
                results = list(ex.map(play_deal, *zip(*args, strict=True), chunksize=max(1, deals // (jobs * 8))))
            except KeyboardInterrupt:  # stop the workers now rather than after their deals
                for proc in list((getattr(ex, "_processes", None) or {}).values()):
                    proc.terminate()
                ex.shutdown(wait=False, cancel_futures=True)
                raise
    else:
        results = [play_deal(*a) for a in args]
    out = summarise(variant, test, base, seed, results)
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


MAX_DEALS = 100_000
"""The most deals one duel plays (each four times): about a day of strong decisions on one core; the goals are
measured on 2,000. A larger count would only build its list of deals until memory runs out."""
MAX_JOBS = 64
"""The most worker processes a duel starts."""


def _duel(args: argparse.Namespace) -> int:
    try:
        out = timed_duel(args.variant, args.test, args.base, args.deals, args.seed, args.jobs)
    except KeyboardInterrupt:  # Ctrl-C: the usual status of an interrupted command, no traceback
        print("interrupted", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        deals = f"{out['deals']} deal" + ("s" if out["deals"] != 1 else "")
        print(f"{args.variant}: {args.test} vs 3 x {args.base}, {deals} ({out['hands']} hands)")
        ci = (f"95% {out['ci95_low']:+.2f} .. {out['ci95_high']:+.2f}" if out["deals"] > 1  # one deal has no spread
              else "95% interval: 2 deals or more")
        print(f"  子 a hand: {out['mean_per_hand']:+.2f}  ({ci})")
        print(f"  win {out['win_rate']:.1%}  deal-in {out['deal_in_rate']:.1%}  drawn {out['draw_rate']:.1%}")
        if out["decision_ms_mean"] is not None:
            print(f"  decision ms: mean {out['decision_ms_mean']:.2f}  p99 {out['decision_ms_p99']:.2f}")
    return 0

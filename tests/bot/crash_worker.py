"""The real bot, playing under the harness, for the crash test: killed with SIGKILL at random moments.

``python tests/bot/crash_worker.py`` is a fork server: it imports the bot once, then for every line
``go DB SEED TABLES`` on stdin it forks a child that boots the bot exactly as in production (``create_bot`` + the
setup hooks: the store opens, the cogs load, every unfinished match is resumed through the store's recorder), prints
``pid N`` then ``ready``, and plays TABLES tables in channels of one server for ever: scripted humans (1-2 per
table) press My hand on the table message and a control on the private panel they get, AI seats fill the rest, the
Next hand button starts the next hand, a finished match is followed by a new one. Every recorded action prints
``a``. ``wait N`` reaps child N and prints ``dead N SIGNAL``. Children write with single ``os.write`` calls, so
lines never interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import random
import signal
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.tables import TableManager  # noqa: E402
from tests.harness import GUILD_ID, Harness  # noqa: E402
from tests.harness.fake import FakeDiscord, user_payload  # noqa: E402

VARIANTS = ("wuhu", "hefei", "chizhou")
#: Short matches so that many of them finish across the kills.
SHORT = {"wuhu": {"di_per_match": 1}, "hefei": {"quan_per_match": 1}, "chizhou": {"quan_per_match": 1}}
CHANNEL0 = 1_250_000_000_000_000_000
USER0 = 1_260_000_000_000_000_000


def say(line: str) -> None:
    os.write(1, (line + "\n").encode())


def ops(msg) -> dict[str, str]:
    out: dict[str, str] = {}
    for c in msg.buttons():
        cid = c.get("custom_id", "")
        if cid.startswith("mjt:"):
            out.setdefault(cid.split(":")[4], cid)
            if cid.split(":")[4] == "d":
                out["d"] = cid  # the right-most discard
    return out


async def open_match(h: Harness, ch: int, rng: random.Random) -> None:
    humans = [USER0 + (ch - CHANNEL0) * 10 + k for k in range(rng.randint(1, 2))]
    await h.slash("table new", variant=rng.choice(VARIANTS), user=humans[0], channel=ch)
    for u in humans[1:]:
        await h.slash("table join", user=u, channel=ch)
    for _ in range(4 - len(humans)):
        await h.slash("table addbot", user=humans[0], channel=ch)
    await h.slash("table start", user=humans[0], channel=ch)


async def one_move(h: Harness, ch: int, rng: random.Random) -> None:
    mgr = h.bot.tables
    lt = mgr.by_channel.get(ch)
    if lt is None or lt.closed:
        await open_match(h, ch, rng)
        return
    if not lt.started:  # a lobby a kill interrupted, restored at start-up: filled and started
        host = lt.host_id
        for _ in range(sum(1 for s in lt.seats if s is None)):
            await h.slash("table addbot", user=host, channel=ch)
        await h.slash("table start", user=host, channel=ch)
        return
    tb = lt.table
    if tb is None or lt.message_id is None:
        return
    table_msg = h.fake.find_message(lt.message_id)
    humans = [s.user_id for s in lt.seats if s is not None and s.user_id is not None]
    if tb.phase == "ended":
        await h.click(table_msg, custom_id=ops(table_msg)["next"], user=rng.choice(humans))
        return
    waiting = [s for s in tb.awaited() if lt.seats[s] is not None and lt.seats[s].user_id is not None]
    if not waiting:
        return
    user = lt.seats[waiting[0]].user_id
    panel = (await h.click(table_msg, custom_id=ops(table_msg)["hand"], user=user)).reply
    o = ops(panel)
    pick = o.get("w") or (o.get("x") if "x" in o and rng.random() < 0.8 else None) or o.get("d") or o.get("x")
    if pick:
        await h.click(panel, custom_id=pick, user=user)


async def child(db: str, seed: int, tables: int) -> None:
    rng = random.Random(seed)
    channels = [CHANNEL0 + k for k in range(tables)]
    fake = FakeDiscord(1_200_000_000_000_000_001, user_payload(1_200_000_000_000_000_001, "mjbot", bot=True))
    for ch in channels:
        fake.add_channel(ch, GUILD_ID)
    TableManager.render_images = False  # also for the tables resumed during the boot
    h = await Harness.boot(db, fake=fake)
    h.ignored_task_names.add("mjbot-table-timer")
    mgr = h.bot.tables
    mgr.timers.turn = mgr.timers.claim = mgr.timers.next_hand = 3600.0
    store = h.bot.store
    for v, rules in SHORT.items():
        await store.set_house_rules(GUILD_ID, 1, v, rules)
    real = store.record_action

    async def record_action(*a, **kw):
        got = await real(*a, **kw)
        say("a")
        return got

    store.record_action = record_action
    say("ready")
    while True:
        for ch in channels:
            await one_move(h, ch, rng)


def _die_with(parent: int) -> None:
    """This child is killed when the fork server ends, however it ends (Linux: PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before that was set
        os._exit(1)


def main() -> int:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    from bot.app import extension_names

    extension_names()  # import every cog once here, not in each life of the bot
    server = os.getpid()
    alive: set[int] = set()
    try:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "go":
                pid = os.fork()
                if pid == 0:
                    try:
                        _die_with(server)
                        say(f"pid {os.getpid()}")
                        asyncio.run(child(words[1], int(words[2]), int(words[3])))
                    except BaseException:  # the bot died by itself: what killed it, for the test's report
                        traceback.print_exc()
                        sys.stderr.flush()
                    finally:
                        os._exit(1)
                alive.add(pid)
                continue
            if words[0] == "wait":
                pid = int(words[1])
                _, status = os.waitpid(pid, 0)
                alive.discard(pid)
                say(f"dead {pid} {os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)}")
    finally:
        # the test stopped early (a failure): a bot still playing would hold the test's pipe open for ever
        for pid in alive:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The harness answers as Discord does: messages with ids, files kept, DMs closed with 403 / 50007, 429s retried.

These drive the real bot's discord.py client (channel sends, DMs) through the fake transport, plus slash commands.
"""

from __future__ import annotations

import asyncio
import io

import discord
import pytest

from tests.harness import ADMIN_PERMISSIONS, CH_DM, Harness

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


async def test_boot_follows_the_interfaces_contract(harness: Harness):
    bot = harness.bot
    assert bot.user is not None and bot.user.id == bot.application_id
    assert bot.store is not None and not bot.store.closed
    assert "cogs.errors" in bot.extensions
    assert bot.tree.get_command("score") is not None
    # nothing was synced or sent while booting
    assert harness.fake.requests == []


async def test_channel_messages_are_kept_with_ids_and_files(harness: Harness):
    channel = harness.bot.get_partial_messageable(harness.channel_id)
    sent = await channel.send("hello", file=discord.File(io.BytesIO(PNG), filename="a.png"))
    [msg] = harness.channel()
    assert sent.id == msg.id and msg.content == "hello"
    assert msg.files == {"a.png": PNG} and msg.images == [PNG]
    assert sent.attachments[0].filename == "a.png"
    edited = await sent.edit(content="edited", attachments=[])
    assert edited.content == "edited" and harness.channel()[0].attachments == []
    assert harness.channel()[0].history[0]["content"] == "hello"
    await sent.delete()
    assert harness.channel() == []


async def test_closed_dms_get_403_code_50007(harness: Harness):
    open_user, closed_user = 501, 502
    harness.fake.close_dms(closed_user)
    dm = await harness.bot.create_dm(discord.Object(open_user))
    await dm.send("your hand")
    assert [m.content for m in harness.dms(open_user)] == ["your hand"]
    assert harness.fake.channels[dm.id].type == CH_DM

    closed = await harness.bot.create_dm(discord.Object(closed_user))
    with pytest.raises(discord.Forbidden) as info:
        await closed.send("your hand")
    assert info.value.code == 50007 and info.value.status == 403
    assert harness.dms(closed_user) == []
    # the same DM channel comes back for the same user
    again = await harness.bot.create_dm(discord.Object(open_user))
    assert again.id == dm.id


async def test_429_is_retried_by_discord_py_after_retry_after(harness: Harness):
    harness.fake.rate_limit(r"^/channels/\d+/messages$", method="POST", times=2, retry_after=0.01)
    channel = harness.bot.get_partial_messageable(harness.channel_id)
    await channel.send("after two 429s")
    statuses = [r.status for r in harness.fake.requests_to(r"^/channels/\d+/messages$")]
    assert statuses == [429, 429, 200]
    assert [m.content for m in harness.channel()] == ["after two 429s"]
    assert harness.fake.requests[0].response["retry_after"] == 0.01


async def test_429_on_the_interaction_webhook_is_retried(harness: Harness):
    harness.fake.rate_limit(r"/callback$", times=1, retry_after=0.01)
    r = await harness.slash("score", hand="bad", variant="hefei")
    assert [q.status for q in harness.fake.requests_to("/callback$")] == [429, 200]
    assert r.reply.ephemeral


async def test_every_request_is_recorded_and_routes_are_known(harness: Harness):
    await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", discarder="W")
    paths = [(q.method, q.path) for q in harness.fake.requests]
    assert paths[0][0] == "POST" and paths[0][1].endswith("/callback")
    assert any(p.startswith("/webhooks/") for _, p in paths)
    assert harness.fake.unknown_routes == []


async def test_second_callback_is_refused_like_discord(harness: Harness):
    data, rec = harness.slash_payload("score", hand="1234678922m345s+5m", variant="hefei")
    await harness.send(data, rec)
    status = harness.fake.handle("POST", f"https://discord.com/api/v10/interactions/{rec.id}/{rec.token}/callback",
                                 {"data": '{"type": 4, "data": {"content": "again"}}'})
    assert status.status == 400 and (await status.json())["code"] == 40060


async def test_slash_payloads_are_checked_against_the_command(harness: Harness):
    with pytest.raises(TypeError):
        harness.slash_payload("score", hand="1m", colour="red")
    with pytest.raises(ValueError):
        harness.slash_payload("score", hand="1m", variant="tokyo")
    with pytest.raises(TypeError):
        harness.slash_payload("score")
    with pytest.raises(LookupError):
        harness.slash_payload("nope")


async def test_command_sync_carries_the_translations(harness: Harness):
    await harness.bot.tree.sync()
    [score] = [c for c in harness.fake.commands[None] if c["name"] == "score"]
    assert score["name_localizations"]["zh-CN"] == "算分"
    assert score["description_localizations"]["zh-TW"].startswith("計算")
    hand = next(o for o in score["options"] if o["name"] == "hand")
    assert hand["name_localizations"]["zh-CN"] == hand["name_localizations"]["zh-TW"] == "手牌"
    assert hand["name_localizations"]["en-US"] == "hand"
    variant = next(o for o in score["options"] if o["name"] == "variant")
    assert {c["value"]: c["name_localizations"]["zh-CN"] for c in variant["choices"]} == {
        "wuhu": "芜湖", "hefei": "合肥", "chizhou": "池州"}


async def test_permissions_and_locale_reach_the_interaction(harness: Harness):
    seen = {}

    async def listener(interaction: discord.Interaction):
        seen["perms"] = interaction.permissions.manage_guild
        seen["locale"] = interaction.locale

    harness.bot.add_listener(listener, "on_interaction")
    await harness.slash("score", hand="x", permissions=ADMIN_PERMISSIONS, locale="zh-TW")
    assert seen == {"perms": True, "locale": discord.Locale.taiwan_chinese}


async def test_settle_waits_for_work_but_not_for_timers(harness: Harness):
    import asyncio

    done = []

    async def work():
        await asyncio.to_thread(sum, range(1000))
        await asyncio.sleep(0)
        done.append("work")

    async def timer():
        await asyncio.sleep(3600)
        done.append("timer")

    queue: asyncio.Queue[int] = asyncio.Queue()

    async def worker():
        while True:
            await queue.get()
            done.append("item")

    tasks = [asyncio.create_task(work()), asyncio.create_task(timer()), asyncio.create_task(worker())]
    await harness.settle(timeout=5)
    assert done == ["work"]
    queue.put_nowait(1)
    await harness.settle(timeout=5)
    assert done == ["work", "item"]
    for t in tasks:
        t.cancel()



async def test_settle_does_not_wait_for_a_timer_armed_just_as_it_looks(harness: Harness):
    """A task that arms a timer (a table's turn timer) and ends: when settle() looked in the turn between the timer
    task's creation and its first step, the timer was not parked yet, so it was taken for work and waited for until
    it fired, past the limit (a failure seen once, on a loaded machine, in a process of the cluster tests). Every
    turn of the arming is tried."""
    import asyncio

    timers = []

    async def timer():
        await asyncio.sleep(3600)

    async def arm(turns: int):
        for _ in range(turns):
            await asyncio.sleep(0)
        timers.append(asyncio.create_task(timer()))

    try:
        for turns in range(12):
            asyncio.create_task(arm(turns))
            await harness.settle(timeout=1)  # raised TimeoutError for some of these turns
        assert len(timers) == 12
    finally:
        for t in timers:
            t.cancel()


async def test_settle_counts_a_stall_of_the_whole_process_as_a_short_gap_not_its_length(harness: Harness):
    """A loaded or paused machine can stop the test's process for longer than settle()'s limit. The work it held up
    gets its turns of the loop after the stall, and settle() waits for it; a clock deadline would fail on the first
    look after the stall (here the stall, 1.5 s, is longer than the limit, 1 s, and counts as 0.2 s)."""
    import asyncio
    import time

    harness.STALL = 0.2

    done = []

    async def work():
        await asyncio.to_thread(time.sleep, 0.01)
        for _ in range(50):  # turns of the loop it still needs once the stall is over
            await asyncio.sleep(0)
        done.append("work")

    task = asyncio.create_task(work())
    asyncio.get_running_loop().call_soon(time.sleep, 1.5)  # the whole process stops (the loop with it)
    await harness.settle(timeout=1)
    assert done == ["work"] and task.done()


async def test_settle_still_charges_a_task_that_holds_the_loop_at_every_turn(harness: Harness):
    """A task that holds the loop 0.1 s at each of its turns (a bug) is charged all of that time: settle() gives up
    after about as many turns as fit in its limit (before its limit counted such turns at most one wait each, and a
    test with such a bug ran for minutes before it failed)."""
    import asyncio
    import time

    turns = []

    async def hog():
        while True:
            time.sleep(0.1)
            turns.append(1)
            await asyncio.sleep(0)

    task = asyncio.create_task(hog())
    with pytest.raises(TimeoutError):
        await harness.settle(timeout=1)
    task.cancel()
    # 1 s of 0.1 s turns and the few turns settle() gives the loop before each look (15 here; 60 or more when such
    # a turn counted at most one slice); a slower machine only makes fewer
    assert len(turns) <= 20

async def test_settle_does_not_wait_for_a_scheduler_loop_found_mid_run_once_it_is_back_on_its_timer(harness: Harness):
    """A ``discord.ext.tasks`` loop (the bot's schedulers) that settle() finds in the middle of a run (awaiting its
    statements) was waited for until it ended, which a loop never does: settle() timed out with the loop parked on
    its timer. Once it waits for its next run it is not at work."""
    import asyncio

    from discord.ext import tasks

    runs = []

    @tasks.loop(minutes=5)
    async def scheduler() -> None:
        for _ in range(20):  # a round over several turns of the event loop
            await asyncio.sleep(0)
        runs.append(1)

    scheduler.start()
    try:
        await harness.settle(timeout=2)  # raised TimeoutError: "tasks still running" (the loop, on its timer)
        assert runs == [1] and scheduler.is_running()
    finally:
        scheduler.cancel()


async def test_deferred_update_then_edit_and_ephemeral_followup(harness: Harness):
    """Callback type 6 (deferred update) + editing the original = editing the clicked message; followups with
    ephemeral=True are seen by the clicker only."""

    class Probe(discord.ui.View):
        @discord.ui.button(label="Go", custom_id="probe:go")
        async def go(self, interaction: discord.Interaction, button: discord.ui.Button):
            await interaction.response.defer()
            await interaction.edit_original_response(content="updated", view=None)
            await interaction.followup.send("just for you", ephemeral=True)
            await interaction.followup.send("for everyone")

    channel = harness.bot.get_partial_messageable(harness.channel_id)
    sent = await channel.send("press", view=Probe())
    message = harness.fake.find_message(sent.id)
    assert message.buttons()[0]["label"] == "Go"
    r = await harness.click(message, label="Go", user=11)
    assert r.callback_type == 6
    assert harness.fake.find_message(sent.id).content == "updated"
    assert harness.fake.find_message(sent.id).components == []
    assert [m.content for m in harness.channel()] == ["updated", "for everyone"]
    assert [m.content for m in harness.channel(viewer=11)] == ["updated", "just for you", "for everyone"]
    assert [m.content for m in r.followups] == ["just for you", "for everyone"]


async def test_score_in_a_dm_uses_the_defaults(harness: Harness):
    r = await harness.slash("score", hand="23456799m345p67s+8s", guild=False, discarder="W", locale="en-US")
    assert r.reply.content.startswith("**Wuhu") and r.guild_id is None
    assert harness.fake.channels[r.channel_id].type == CH_DM


async def test_expired_interaction_tokens_fail_like_discord(harness: Harness):
    data, rec = harness.slash_payload("score", hand="bad", variant="wuhu")
    harness.fake.expire(rec)
    await harness.send(data, rec)  # the bot's reply fails; it is logged, and no second reply is attempted
    [callback] = harness.fake.requests_to("/callback$")
    assert callback.status == 404 and callback.response["code"] == 10062
    assert len(harness.fake.requests) == 1
    assert harness.channel(viewer=harness.user_id) == []


async def test_commands_in_a_thread(harness: Harness):
    thread = harness.add_channel(thread=True, name="table-1")
    seen = {}

    async def listener(interaction: discord.Interaction):
        seen["channel"] = interaction.channel

    harness.bot.add_listener(listener, "on_interaction")
    r = await harness.slash("score", hand=EXAMPLE, variant="hefei", channel=thread)
    assert isinstance(seen["channel"], discord.Thread) and seen["channel"].parent_id == harness.channel_id
    assert harness.channel(thread)[0].id == r.reply.id and harness.channel() == []


EXAMPLE = "1234678922m345s+5m"


async def test_settle_does_not_wait_for_a_table_writer_that_keeps_retrying(harness: Harness):
    """A table's writer (bot/tables/publisher.py) retrying through a long 5xx storm lives on and sleeps between its
    tries: settle() returns once it finds it parked, instead of waiting for it to finish (it never does) until
    settle's timeout whenever it first found it between two sleeps."""
    rounds = 0

    async def writer() -> None:
        nonlocal rounds
        while True:
            rounds += 1
            for _ in range(20):  # a try: working
                await asyncio.sleep(0)
            await asyncio.sleep(0.005)  # parked until the next try

    task = asyncio.get_running_loop().create_task(writer(), name="mjbot-outbox-test")
    try:
        await harness.settle()
        assert rounds < 50  # a few of its tries, not the thousands of a 10 s timeout
    finally:
        task.cancel()

"""Playing tables: one lifecycle per channel's table, from the lobby to the last hand's summary.

Modules (each readable in one sitting):

* :mod:`.state` - :class:`LiveTable` and its explicit :class:`State` (lobby -> starting -> playing <-> between ->
  finished | aborted), changed only under the table's lock; no Discord;
* :mod:`.manager` - :class:`TableManager`: lobbies, start, actions, AI seats, timers, store stalls, pauses, end;
  records through the store's :class:`~bot.store.tables.TableRecorder` (the one write path); no Discord;
* :mod:`.publisher` - every Discord write of a table, through a per-table outbox (retries, the coalescing table
  message, DM fallback, superseded controls removed); :mod:`.kept` - its lobby and vote messages and the message
  ids a restart needs (written right after each post);
* :mod:`.announce`, :mod:`.scenes` - engine events and views to texts and render scenes;
* :mod:`.admin` - table management (issue 15): 托管, replace / restore, kick, dissolve by vote (a mixin of the
  manager; away seats and "I'm back" reused; stored with an audit row through ``bot.store.table_admin``);
* :mod:`.gone` - a table or lobby whose channel was deleted, or whose server removed the bot, ended at once (a mixin
  of the manager; ``cogs.tables`` hears the gateway's events);
* :mod:`.resume` - unfinished matches, their open dissolve votes and the lobbies back after a restart (lobbies and
  votes are stored by ``bot.store.lobbies`` before a change is shown); :mod:`.strings` - the messages.

API (raising :class:`Refusal` with a message key when a player may not do something; nothing changes then)::

    mgr = TableManager(bot)                       # bot.tables; cogs.tables sets mgr.ui
    lt = await mgr.open_lobby(guild, channel, host_id, host_name, host_lang, variant, rules, guild_settings)
    await mgr.lobby_posted(lt, message_id)        # the lobby message (the /table new or /table show answer)
    await mgr.join(lt, user_id, name, lang); await mgr.leave(lt, user_id); await mgr.add_ai(lt, "normal", user_id)
    mgr.check_place(lt, guild_id, channel_id); mgr.may_manage(lt, user_id, manage_guild)
    await mgr.start(lt)                           # record the match, deal, post, DM, let the AI play
    outcome = await mgr.act(table_id, user_id, seat, seq, op, arg)   # a control: d/w/p/k/c/x (+ tile) or "next"
    await mgr.back(table_id, user_id); await mgr.end(lt, by_name); await mgr.repost(lt)
    text, png, view = await mgr.hand_message(lt, seat, lang)   # a seat's private hand with its controls
    await mgr.autoplay(lt, user_id, on); await mgr.replace(lt, by, member); await mgr.restore(lt, by, member)
    await mgr.kick(lt, by, member)                # lobby only
    vote, passed = await mgr.propose_dissolve(table_id, user_id); await mgr.vote_posted(lt, vote, ch, msg, text)
    vote = await mgr.cast_vote(table_id, vote.number, user_id, yes, (ch, msg))   # vote.shown: its message's text
    await resume_tables(mgr); await mgr.close()
    mgr.timers = Timers(turn=..., claim=..., next_hand=..., vote=60)   # injectable delays (None: server settings)
    mgr.render_images = False                     # benchmarks / tests (bot.observe: the scenes drawn)
    await mgr.publisher.drain()                   # wait until every Discord write is sent (tests)
"""

from __future__ import annotations

from .manager import TIMER_TASK_NAME, Outcome, TableManager, action_of
from .resume import resume_tables
from .scenes import hand_scene, hint, score_scenes, table_scene
from .state import LiveTable, Refusal, Seat, State, Timers
from .strings import discard_label, tile_label, wind_label

__all__ = [
    "TIMER_TASK_NAME",
    "LiveTable",
    "Outcome",
    "Refusal",
    "Seat",
    "State",
    "TableManager",
    "Timers",
    "action_of",
    "hand_scene",
    "hint",
    "resume_tables",
    "score_scenes",
    "table_scene",
    "discard_label",
    "tile_label",
    "wind_label",
]

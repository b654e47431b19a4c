"""The AI pool's worker processes (:class:`Workers`), each reached through a socket that the event loop writes and
reads itself.

The pool (:mod:`bot.tables.aipool`) decides when to ask, what to do with a late or failed answer and when to replace
the processes; this module carries a call to a process and its answer back.

- **No thread between the loop and a worker.** Each process is given one end of a ``socket.socketpair()``; the loop
  holds the other as an :mod:`asyncio` transport (``loop.create_connection(sock=...)``), writes each call there and
  is woken by the answer (:class:`_Answers`). The executor the pool used until 2026-12-04 carried each call through
  two threads of the bot's process and back through one, each waiting for the busy loop to let it run: a third of
  a decision's time from the loop (``benchmarks/bench_handoff.py``, docs/benchmarks.md).
- **The frames** are those of :mod:`multiprocessing.connection` (a length in 4 bytes, big-endian; -1 and 8 bytes
  past 2 GiB), so the worker reads and writes with ``Connection.recv_bytes`` / ``send_bytes``; a call is a pickled
  ``(fn, args)``, ``fn`` importable by name, and an answer a pickled ``(True, result)`` or ``(False, error)``. An
  error of the call comes back as itself with the worker's traceback in a note, or as a RuntimeError that names it
  when the bot's future could not carry it (:func:`_portable`).
- **One call at a time per process**, the others queued on the loop, so no write ever waits for a worker to read
  and an answer always belongs to the call sent last.
- **A process that ends** (killed, crashed, never started) closes its socket: every call waiting on the pool fails
  with ``BrokenProcessPool`` and so does every later submit; the pool replaces them all (:class:`Workers`).
- **A worker ends with the bot**: its socket closes when the bot's process does, and a thread of the worker checks
  once a second that the bot is still its parent (a worker busy with a long call, or hung, would not see its socket
  close). It runs :data:`WORKER_NICE` nicer than the bot and keeps its garbage collector's walk short
  (:func:`_start_worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import threading
import time
import traceback
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

WORKER_NICE = 10
"""The workers run this much nicer than the bot: on a machine with no core to spare (two cores, both workers busy
with strong AI seats) the event loop, which answers the players' clicks, gets the CPU first and the AI waits."""


_in_worker = False
"""True in a worker process of the pool (set by :func:`_start_worker`)."""


def in_worker() -> bool:
    """Whether this process is one of the pool's workers."""
    return _in_worker


def _start_worker(parent: int) -> None:
    """Run in each worker as it starts: import the engine (and its caches) before the first real decision, and
    end the worker when the bot's process is gone (killed: a worker busy with a long call would not see its socket
    close until the call ends, and a hung one never would).

    The garbage collector: a worker's decisions leave no reference cycles (measured: the AIs' decisions of whole
    games, every difficulty and variant, with the collector off, left none for it to find), and what a worker keeps
    (the strong AI's caches: 70,000-90,000 tracked objects after 2,400 strong decisions) only grows. Left in the
    collector's generations, it made a full collection of 100-150 ms every few hundred decisions, each holding the
    decisions queued behind it (the clicks waiting on them). So the start-up's objects and, after each decision, what
    it left are frozen (``gc.freeze``: the collector no longer walks them; they are still freed when nothing refers
    to them); only a reference cycle made by a decision and still alive at its end would never be collected."""
    global _in_worker
    import engine.strong  # noqa: F401

    _in_worker = True
    gc.collect()
    gc.freeze()

    with contextlib.suppress(OSError, AttributeError):  # (AttributeError: no os.nice on Windows)
        os.nice(WORKER_NICE)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="mjbot-ai-parent-watch", daemon=True).start()


def noop() -> int:
    """A task that does nothing: the worker that answers it has started and imported the engine."""
    return 0


def _serve(sock: socket.socket, parent: int) -> None:
    """A worker process's life: start (:func:`_start_worker`), then answer the calls that come on ``sock`` one after
    another, each a pickled ``(fn, args)`` in a :mod:`multiprocessing.connection` frame, with a pickled ``(True,
    result)`` or ``(False, exception)``, until the bot's end of the socket closes (the bot ended it, or died).

    Ctrl-C in a terminal reaches the whole process group: a started worker ignores it and is ended by the bot (or,
    the bot gone, by its parent watch), so that it prints no traceback of its own. A worker still starting (the
    interpreter's start-up and imports, before this runs: a second or so after a pool starts) is ended by it and
    may print one; the bot is stopping then anyway. (Starting the workers with SIGINT already ignored would mean
    setting it in the bot's main thread, around each start, which runs in a thread so as not to hold the loop;
    blocking it in the starting thread does not reach the worker.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(sock.detach())
    _start_worker(parent)
    while True:
        try:
            call = conn.recv_bytes()
        except (EOFError, OSError):
            return
        out: tuple[bool, Any]
        try:
            fn, args = pickle.loads(call)
            out = (True, fn(*args))
        except Exception as e:  # an error of the call itself (the AI's: a bug) goes back to the bot, told where
            out = (False, _portable(e))
        try:
            answer = pickle.dumps(out, pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            answer = pickle.dumps((False, RuntimeError(f"the worker's answer could not be sent: {e!r}")))
        try:
            conn.send_bytes(answer)
        except OSError:  # the bot's end is gone
            return


def _portable(e: Exception) -> Exception:
    """An error raised by a call in a worker, as the bot gets it: the error itself with the worker's traceback in a
    note; or, when the error could not be set on the bot's future (StopIteration: asyncio refuses it there, as Python
    refuses it out of a generator) or would not unpickle in the bot (a class that needs keyword arguments), a
    RuntimeError that names it, with the same note."""
    note = "in the AI worker:\n" + "".join(traceback.format_exception(e))
    if not isinstance(e, StopIteration):
        try:
            pickle.loads(pickle.dumps(e, pickle.HIGHEST_PROTOCOL))
        except Exception:
            pass
        else:
            e.add_note(note)
            return e
    err = RuntimeError(f"{type(e).__module__}.{type(e).__qualname__}: {e}")
    err.add_note(note)
    return err


def _frame(blob: bytes) -> tuple[bytes, bytes]:
    """``blob`` framed as :meth:`multiprocessing.connection.Connection.recv_bytes` reads it: its length in 4 bytes
    (big-endian), or -1 and the length in 8 bytes past 2 GiB."""
    n = len(blob)
    return (struct.pack("!i", n) if n <= 0x7FFFFFFF else struct.pack("!iQ", -1, n)), blob


class _Answers(asyncio.Protocol):
    """The event loop's end of one worker's socket (an :mod:`asyncio` transport: the loop reads and writes it itself,
    no thread between)."""

    def __init__(self, pool: Workers, i: int) -> None:
        self.pool, self.i = pool, i

    def data_received(self, data: bytes) -> None:
        self.pool._received(self.i, data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.pool._lost(self.i)


class Workers:
    """The pool's worker processes, each with its own socket, which the event loop writes and reads itself
    (``loop.create_connection``: no thread of the bot's process between the loop and a worker, where an executor's
    threads waited for the busy loop to let them run: ``benchmarks/bench_handoff.py``). A process runs one call at a
    time; the others wait in its queue on the loop (so no write ever waits for a worker to read).

    The decisions of one table go to the same process while it is free: each process keeps what it has priced (the
    strong AI's scored ready hands, :mod:`engine.strong.lookahead`), and the same table's next decisions find much of
    it there. A decision goes to its table's process (``key`` modulo the count) unless that one is busy and another is
    idle (then to the idle one), so no decision waits while a process has nothing to do; only processes that have
    started (``ready``) are picked. Broken as a whole: when one process dies (its socket closes) every call waiting
    on it fails with ``BrokenProcessPool``, and so does every later submit; the AI pool then replaces them all, as it
    does a pool with a hung process."""

    def __init__(self, workers: int, parent: int) -> None:
        self.parent = parent
        self.loop = asyncio.get_running_loop()  # whose transports these are (a pool is not carried to another loop)
        self.processes: list[BaseProcess | None] = [None] * workers  # started by :meth:`spawn`
        self._socks: list[socket.socket | None] = [None] * workers  # the loop's ends, until :meth:`connect`
        self._transports: list[asyncio.Transport | None] = [None] * workers
        self._connected: list[socket.socket | None] = [None] * workers  # the sockets the transports hold
        self._queues: list[deque[tuple[bytes, asyncio.Future[Any]]]] = [deque() for _ in range(workers)]
        self._running: list[asyncio.Future[Any] | None] = [None] * workers  # the call each process is answering
        self._inbox = [bytearray() for _ in range(workers)]  # an answer's bytes as they come
        self.busy = [0] * workers  # decisions submitted and not yet answered, per process (counted by the AI pool)
        # calls each process has answered: a decision waiting on a process that answered others meanwhile waits on
        # a busy process, not a hung one
        self.answered = [0] * workers
        self.ready = [False] * workers  # the process has started and imported the engine (answered the no-op)
        self.retired = False  # dropped by the AI pool (a failure or its close): its decisions are made in a thread
        self.broken: str | None = None  # why not (a process died)

    @property
    def _processes(self) -> dict[int, BaseProcess]:
        """Every started worker process by pid."""
        return {p.pid: p for p in self.processes if p is not None and p.pid is not None}

    def spawn(self) -> None:
        """Start the processes (``spawn``: tens of milliseconds each, so the AI pool calls this in a thread). A
        process started after the pool was retired is killed at once."""
        ctx = multiprocessing.get_context("spawn")
        for i in range(len(self.processes)):
            if self.retired:
                return
            ours, theirs = socket.socketpair()
            try:
                p = ctx.Process(target=_serve, args=(theirs, self.parent), name=f"mjbot-ai-{i}", daemon=True)
                p.start()
            except BaseException:
                ours.close()
                raise
            finally:
                theirs.close()  # the worker has its own copy
            self.processes[i] = p
            if self.retired:  # retired while this one started (kill(), on the loop, may not have seen it)
                p.kill()
                ours.close()
                return
            self._socks[i] = ours

    async def connect(self) -> None:
        """Attach the loop to each started process's socket."""
        loop = asyncio.get_running_loop()
        for i, sock in enumerate(self._socks):
            if sock is None:
                continue
            self._socks[i] = None
            if self.retired:
                sock.close()
                continue
            transport, _ = await loop.create_connection(partial(_Answers, self, i), sock=sock)
            self._transports[i] = transport
            self._connected[i] = sock  # (closed by the transport; by kill() itself once the loop is closed)
        if self.retired:
            self.kill()  # (what was started after a kill)
            raise BrokenProcessPool("the pool was retired while it started")

    def pick(self, key: int | None) -> int | None:
        """The process for a decision of table ``key`` (None: the least busy), among the ready ones; None when no
        process is ready yet (the pool is starting)."""
        n = len(self.processes)
        ready = [j for j in range(n) if self.ready[j]]
        if not ready:
            return None
        # (a process still running a call its caller dropped is not idle, though no decision waits on it)
        busy = [self.busy[j] or (self._running[j] is not None) for j in range(n)]
        if key is None:
            return min(ready, key=lambda j: busy[j])
        i = key % n
        if not self.ready[i] or busy[i]:
            idle = next((j for j in ready if not busy[j]), None)
            if idle is not None:
                return idle
            if not self.ready[i]:
                return min(ready, key=lambda j: busy[j])
        return i

    def started(self, i: int) -> bool:
        """Whether process ``i`` has been started."""
        return self.processes[i] is not None

    def submit(self, i: int, fn: Any, *args: Any) -> asyncio.Future[Any]:
        """``fn(*args)`` in process ``i`` (``fn`` importable by name: it is pickled by reference), as soon as the
        calls before it there are answered. The arguments are pickled now: what the caller changes afterwards is not
        seen. Cancelling the future drops a call still queued and discards the answer of one that is running."""
        transport = self._transports[i]
        if self.retired or self.broken or transport is None:
            raise BrokenProcessPool(self.broken or ("the pool was retired" if self.retired else
                                                    f"worker {i} is not started"))
        fut = asyncio.get_running_loop().create_future()
        self._queues[i].append((pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL), fut))
        self._send_next(i)
        return fut

    def _send_next(self, i: int) -> None:
        transport, queue = self._transports[i], self._queues[i]
        if self._running[i] is not None or transport is None:
            return
        while queue:
            call, fut = queue.popleft()
            if fut.cancelled():  # dropped while it waited
                continue
            self._running[i] = fut
            transport.writelines(_frame(call))
            return

    def _received(self, i: int, data: bytes) -> None:
        inbox = self._inbox[i]
        inbox += data
        while len(inbox) >= 4:
            (n,), head = struct.unpack_from("!i", inbox), 4
            if n == -1:
                if len(inbox) < 12:
                    return
                (n,), head = struct.unpack_from("!Q", inbox, 4), 12
            if len(inbox) < head + n:
                return
            answer = bytes(inbox[head:head + n])
            del inbox[:head + n]
            self._answer(i, answer)

    def _answer(self, i: int, answer: bytes) -> None:
        fut, self._running[i] = self._running[i], None
        self.answered[i] += 1
        if fut is not None and not fut.done():
            try:
                ok, value = pickle.loads(answer)
            except Exception as e:
                ok, value = False, RuntimeError(f"the worker's answer could not be read: {e!r}")
            if ok:
                fut.set_result(value)
            else:
                if not isinstance(value, Exception) or isinstance(value, StopIteration):  # (not for a future)
                    value = RuntimeError(f"the worker raised {value!r}")
                fut.set_exception(value)
        self._send_next(i)

    def _lost(self, i: int) -> None:
        """Process ``i``'s socket closed: the process ended (killed, crashed or never started), unless the pool was
        retired (which closes them)."""
        self._transports[i] = None
        if self.retired:
            return
        p = self.processes[i]
        if p is not None:
            with contextlib.suppress(Exception):
                p.join(0)  # reaped if it is gone already (its exit code then said)
        self.broken = (f"AI worker {i} (pid {p.pid if p else None}) ended"
                       + (f" with exit code {p.exitcode}" if p is not None and p.exitcode is not None else ""))
        for j in range(len(self.processes)):
            self._fail(j, self.broken)

    def _fail(self, i: int, why: str | None) -> None:
        """Every call of process ``i`` still waiting fails with ``BrokenProcessPool(why)`` (each its own), or is
        cancelled when ``why`` is None."""
        waiting = [self._running[i], *(fut for _call, fut in self._queues[i])]
        self._running[i] = None
        self._queues[i].clear()
        for fut in waiting:
            if fut is not None and not fut.done():
                if why is None:
                    fut.cancel()
                else:
                    fut.set_exception(BrokenProcessPool(why))

    def kill(self) -> None:
        """End the processes now, hung or not (a hung one never reads its socket), close their sockets, and cancel
        the calls still waiting."""
        self.retired = True
        for p in self.processes:
            if p is not None:
                with contextlib.suppress(Exception):  # already gone
                    p.kill()
        closed = self.loop.is_closed()  # (its transports can no longer be aborted: their sockets are closed here)
        for i, transport in enumerate(self._transports):
            self._transports[i] = None
            if transport is not None and not closed:
                transport.abort()
        for socks in (self._socks, self._connected):
            for i, sock in enumerate(socks):
                socks[i] = None
                if sock is not None and (closed or socks is self._socks):
                    sock.close()
        for i in range(len(self.processes)):
            self._fail(i, None)

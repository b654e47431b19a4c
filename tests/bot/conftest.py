"""Fixtures of the multi-process tests."""

from __future__ import annotations

import pytest

from bot.cluster import Cluster


@pytest.fixture
def stepped_cluster(monkeypatch):
    """The lease checks and queue polls run when a test calls ``cluster.step()``, not on a timer, and a process
    waits for no lease at its start (tests use it as ``pytestmark = pytest.mark.usefixtures("stepped_cluster")``)."""
    monkeypatch.setattr(Cluster, "tick", 3600.0)
    monkeypatch.setattr(Cluster, "lease_wait", 0.0)

"""The examples in render's docstrings hold (pytest collects doctests under engine/ only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["render.fonts", "render.tiles", "render.scene", "render.hand", "render.table", "render.match",
           "render.card"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0

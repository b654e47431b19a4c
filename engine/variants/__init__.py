"""The three rule sets. ``get_variant("wuhu")`` returns a :class:`~engine.variants.base.Variant`."""

from __future__ import annotations

from importlib import import_module

from ..errors import EngineError
from .base import HouseRule, Item, ScoreResult, Situation, Variant, settle

VARIANT_KEYS = ("wuhu", "hefei", "chizhou")

__all__ = ["VARIANT_KEYS", "HouseRule", "Item", "ScoreResult", "Situation", "Variant", "get_variant", "settle",
           "variant_keys"]


def variant_keys() -> tuple[str, ...]:
    """Every variant's key, read when asked: a variant registered after an import of this module is included."""
    return VARIANT_KEYS


def get_variant(key: str) -> Variant:
    """The variant named ``key`` (wuhu, hefei, chizhou)."""
    if key not in VARIANT_KEYS:
        raise EngineError("bad_rule_value", key="variant", value=key, expected="/".join(VARIANT_KEYS))
    variant: Variant = import_module(f"{__name__}.{key}").VARIANT
    return variant

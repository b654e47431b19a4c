"""Merge Python string dicts into the ``.po`` catalogues (data/locale/*/LC_MESSAGES/mjbot.po).

A dict maps a message key to ``(English, Simplified Chinese)`` or ``(English, Simplified, Traditional)``, the shape
code used before the catalogue (``bot.i18n.MESSAGES``) and the shape a branch may still add. For each key:

- ``en`` and ``zh_CN`` get the English and Simplified texts (added, or replaced when the dict's text differs);
- ``zh_TW`` gets the Traditional text **only when it differs** from the Simplified text converted by OpenCC
  (``text.hant.to_hant``): the Taiwan override. A Traditional text that OpenCC would produce anyway is dropped, and
  an override the dict no longer needs is removed.

Usage (from the repository root)::

    python tools/dicts_to_po.py some.module:MESSAGES some.module:COMMANDS
    python tools/dicts_to_po.py engine.foo:TEXTS --prefix engine.      # keys become engine.<key>
    python tools/dicts_to_po.py --check                                 # parse the files; report counts

Other keys in the files are kept, in their order; new keys go at the end. Review the diff (``git diff data/locale``)
and delete the dicts from the code afterwards: the catalogue is the only place strings live.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "data" / "locale"
DOMAIN = "mjbot"
FOLDERS = {"en": "en", "zh": "zh_CN", "zh-TW": "zh_TW"}
HEADER = {
    "en": "English: the source language. msgid is the message key, msgstr the text; {name} is a placeholder.",
    "zh": "Simplified Chinese. msgid is the message key; {name} placeholders as in the English catalogue.",
    "zh-TW": "Traditional Chinese (Taiwan): OVERRIDES ONLY. Every key not here is the Simplified text converted by "
             "OpenCC s2tw.\nAdd a key here only where Taiwan says it differently (放槍, 預設, 伺服器 ...).",
}

Entry = Sequence[str]


def po_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / FOLDERS[lang] / "LC_MESSAGES" / f"{DOMAIN}.po"


def load(lang: str, locale_dir: Path = LOCALE_DIR) -> Catalog:
    """The catalogue of ``lang``, or a new empty one when its file does not exist yet."""
    path = po_path(lang, locale_dir)
    if path.exists():
        with path.open("rb") as f:
            return read_po(f, locale=FOLDERS[lang], domain=DOMAIN)
    cat = Catalog(locale=FOLDERS[lang], domain=DOMAIN, project="mjbot", version="1", charset="utf-8", fuzzy=False,
                  header_comment="# " + HEADER[lang].replace("\n", "\n# "))
    return cat


def save(cat: Catalog, lang: str, locale_dir: Path = LOCALE_DIR) -> None:
    path = po_path(lang, locale_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, cat, width=0, omit_header=False, sort_output=False, ignore_obsolete=True, include_lineno=False)


def _set(cat: Catalog, key: str, text: str) -> bool:
    old = cat.get(key)
    if old is not None:
        if old.string == text:
            return False
        old.string = text  # the text replaced in place, the key keeps its position
        return True
    cat.add(key, text)  # a new message at the end
    return True


def merge(entries: Mapping[str, Entry], prefix: str = "", locale_dir: Path = LOCALE_DIR,
          hant=None) -> dict[str, int]:
    """Merge ``entries`` (key -> (en, zh[, zh-TW])) into the three catalogues; returns counts of what changed."""
    if hant is None:
        from text.hant import to_hant as hant
    cats = {lang: load(lang, locale_dir) for lang in FOLDERS}
    counts = {"en": 0, "zh": 0, "zh-TW overrides": 0, "zh-TW dropped": 0}
    for raw_key, texts in entries.items():
        key = prefix + raw_key
        if len(texts) not in (2, 3):
            raise ValueError(f"{key}: expected (en, zh) or (en, zh, zh-TW), got {len(texts)} texts")
        en, zh = texts[0], texts[1]
        counts["en"] += _set(cats["en"], key, en)
        counts["zh"] += _set(cats["zh"], key, zh)
        tw = texts[2] if len(texts) == 3 else None
        if tw is not None and tw != hant(zh):
            counts["zh-TW overrides"] += _set(cats["zh-TW"], key, tw)
        elif key in cats["zh-TW"]:
            del cats["zh-TW"][key]
            counts["zh-TW dropped"] += 1
    for lang, cat in cats.items():
        save(cat, lang, locale_dir)
    return counts


def _resolve(spec: str) -> Mapping[str, Entry]:
    module, _, name = spec.partition(":")
    if not name:
        raise SystemExit(f"{spec}: write module:NAME, e.g. some.module:MESSAGES")
    return getattr(importlib.import_module(module), name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dicts", nargs="*", help="module:NAME of a dict key -> (en, zh[, zh-TW])")
    parser.add_argument("--prefix", default="", help="put before every key (e.g. engine.)")
    parser.add_argument("--check", action="store_true", help="only parse the catalogues and print their sizes")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.check or not args.dicts:
        for lang in FOLDERS:
            print(f"{po_path(lang).relative_to(ROOT)}: {len(load(lang))} messages")
        return 0
    for spec in args.dicts:
        counts = merge(_resolve(spec), args.prefix)
        print(spec, ", ".join(f"{k}: {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Discord's documented limits on what a bot sends: the fake transport refuses a message or an interaction answer past
any of them as Discord does (400, 50035 Invalid Form Body), so every test of the suite checks them."""

from __future__ import annotations

from typing import Any


def _embed_problems(e: dict[str, Any]) -> list[str]:
    out = []
    total = 0
    for key, lim in (("title", 256), ("description", 4096)):
        v = e.get(key) or ""
        total += len(v)
        if len(v) > lim:
            out.append(f"embed {key} {len(v)} > {lim}")
    fields = e.get("fields") or []
    if len(fields) > 25:
        out.append(f"embed fields {len(fields)} > 25")
    for f in fields:
        n, v = f.get("name") or "", f.get("value") or ""
        total += len(n) + len(v)
        if len(n) > 256:
            out.append(f"field name {len(n)} > 256")
        if len(v) > 1024:
            out.append(f"field value {len(v)} > 1024")
        if not v.strip() or not n.strip():
            out.append("empty field name/value")
    foot = (e.get("footer") or {}).get("text") or ""
    total += len(foot)
    if len(foot) > 2048:
        out.append(f"footer {len(foot)} > 2048")
    auth = (e.get("author") or {}).get("name") or ""
    total += len(auth)
    if len(auth) > 256:
        out.append(f"author {len(auth)} > 256")
    if total > 6000:
        out.append(f"embed total {total} > 6000")
    return out


def _component_problems(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    if len(rows) > 5:
        out.append(f"{len(rows)} action rows > 5")
    for row in rows:
        comps = row.get("components") or []
        if row.get("type") == 1 and len(comps) > 5:
            out.append(f"{len(comps)} components in a row > 5")
        for c in comps:
            cid = c.get("custom_id") or ""
            if len(cid) > 100:
                out.append(f"custom_id {len(cid)} > 100: {cid[:40]}")
            if len(c.get("label") or "") > 80:
                out.append(f"button label {len(c['label'])} > 80")
            if len(c.get("placeholder") or "") > 150:
                out.append("placeholder > 150")
            opts = c.get("options") or []
            if len(opts) > 25:
                out.append(f"select options {len(opts)} > 25")
            for o in opts:
                for k in ("label", "value", "description"):
                    if len(o.get(k) or "") > 100:
                        out.append(f"select option {k} {len(o[k])} > 100")
    return out


def problems(body: Any) -> list[str]:
    """What Discord would refuse (400 Invalid Form Body) in one message / callback body."""
    if not isinstance(body, dict):
        return []
    if isinstance(body.get("data"), dict):  # an interaction callback
        d = body["data"]
        out = []
        if body.get("type") == 8:  # autocomplete result
            ch = d.get("choices") or []
            if len(ch) > 25:
                out.append(f"{len(ch)} choices > 25")
            for c in ch:
                if not 1 <= len(c.get("name") or "") <= 100:
                    out.append(f"choice name {len(c.get('name') or '')} chars")
                if isinstance(c.get("value"), str) and len(c["value"]) > 100:
                    out.append(f"choice value {len(c['value'])} > 100")
            return out
        if body.get("type") == 9:  # modal
            if len(d.get("title") or "") > 45:
                out.append("modal title > 45")
            return out
        body = d
    out = []
    content = body.get("content") or ""
    if len(content) > 2000:
        out.append(f"content {len(content)} > 2000")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        out.append(f"{len(embeds)} embeds > 10")
    for e in embeds:
        out += _embed_problems(e)
    out += _component_problems(body.get("components") or [])
    nonce = body.get("nonce")
    if isinstance(nonce, str) and len(nonce) > 25:
        out.append("nonce > 25")
    for a in body.get("attachments") or []:
        if len(a.get("description") or "") > 1024:
            out.append("attachment description > 1024")
    return out

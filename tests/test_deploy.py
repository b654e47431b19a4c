"""deploy/mjbot.service: the settings the README promises, and ``systemd-analyze verify`` when the tool is here."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "deploy" / "mjbot.service"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def settings(text: str) -> dict[str, list[str]]:
    """``Key`` -> every value it is given (systemd allows repeats), over all sections."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;[":
            continue
        key, _, value = line.partition("=")
        out.setdefault(key.strip(), []).append(value.strip())
    return out


S = settings(UNIT.read_text(encoding="utf-8"))


def one(key: str) -> str:
    assert key in S, f"{key}= is missing from {UNIT.name}"
    return S[key][-1]


def test_its_own_user_and_a_state_directory_holding_the_database():
    assert one("DynamicUser") == "yes" or one("User") == "mjbot"
    assert one("StateDirectory") == "mjbot"
    assert "MJBOT_DB=%S/mjbot/mjbot.sqlite3" in S["Environment"]  # %S = /var/lib, where StateDirectory lives
    assert one("EnvironmentFile").startswith("/etc/mjbot/")  # the token, readable by root only
    assert re.fullmatch(r"/\S+/mjbot run", one("ExecStart"))


def test_restarts_on_failure_but_not_on_a_setting_to_fix_and_stops_with_sigterm():
    assert one("Restart") == "on-failure"
    assert one("RestartPreventExitStatus") == "2"  # mjbot's exit status for no token / a bad setting
    assert one("KillSignal") == "SIGTERM"


@pytest.mark.parametrize(("key", "value"), [
    ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
    ("PrivateDevices", "yes"), ("ProtectKernelTunables", "yes"), ("ProtectKernelModules", "yes"),
    ("ProtectKernelLogs", "yes"), ("ProtectControlGroups", "yes"), ("RestrictNamespaces", "yes"),
    ("RestrictSUIDSGID", "yes"), ("LockPersonality", "yes"), ("CapabilityBoundingSet", ""),
    ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"), ("SystemCallArchitectures", "native"),
])
def test_the_usual_hardening(key, value):
    assert one(key) == value


def unit_with_real_binary(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this environment's ``mjbot`` (verify checks that the binary exists)."""
    exe = Path(sys.executable).with_name("mjbot")
    if not exe.is_file():
        pytest.skip(f"no mjbot console script beside {sys.executable}")
    text = UNIT.read_text(encoding="utf-8").replace("/opt/mjbot/bin/mjbot", str(exe))
    unit = tmp_path / "mjbot.service"
    unit.write_text(text, encoding="utf-8")
    return unit


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_finds_nothing(tmp_path):
    unit = unit_with_real_binary(tmp_path)
    p = subprocess.run([SYSTEMD_ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(), p.stdout + p.stderr


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
def test_systemd_rates_the_sandbox_ok(tmp_path):
    unit = unit_with_real_binary(tmp_path)
    p = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager", str(unit)],
                       capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for mjbot\.service: (\d+\.\d)", p.stdout)
    if p.returncode != 0 and m is None:
        pytest.skip(f"this systemd-analyze cannot rate a unit file offline: {p.stderr.strip()[:200]}")
    assert m is not None, p.stdout + p.stderr
    assert float(m.group(1)) <= 2.0, p.stdout  # systemd calls up to 2.0 "OK" (9.6 is an unhardened service)


# ---------------------------------------------------------------------------------------------------------------
# deploy/mjbot@.service: the template for several processes over PostgreSQL (docs/deploy.md)

TEMPLATE = ROOT / "deploy" / "mjbot@.service"
T = settings(TEMPLATE.read_text(encoding="utf-8"))


def test_the_template_runs_its_instances_shard_range_with_the_same_service_settings():
    assert re.fullmatch(r"/\S+/mjbot run --shard-ids %i", T["ExecStart"][-1])
    assert T["EnvironmentFile"][-1] == S["EnvironmentFile"][-1]  # one file: token, MJBOT_DB, MJBOT_SHARD_COUNT
    assert T["DynamicUser"] == ["yes"] and T["User"] == ["mjbot"]  # one role name for PostgreSQL's peer login
    assert not any(v.startswith("MJBOT_DB=") for v in T.get("Environment", []))  # the URL comes from the file
    for key in ("Restart", "RestartPreventExitStatus", "KillSignal", "TimeoutStopSec", "StartLimitBurst"):
        assert T[key] == S[key], key
    hardening = {k: v for k, v in S.items() if k.startswith(("Protect", "Private", "Restrict", "SystemCall",
                                                              "Capability", "NoNewPrivileges", "Lock"))}
    assert {k: T.get(k) for k in hardening} == hardening


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_finds_nothing_in_an_instance_of_the_template(tmp_path):
    exe = Path(sys.executable).with_name("mjbot")
    if not exe.is_file():
        pytest.skip(f"no mjbot console script beside {sys.executable}")
    (tmp_path / "mjbot@.service").write_text(
        TEMPLATE.read_text(encoding="utf-8").replace("/opt/mjbot/bin/mjbot", str(exe)), encoding="utf-8")
    p = subprocess.run([SYSTEMD_ANALYZE, "verify", str(tmp_path / "mjbot@0-3.service")], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(), p.stdout + p.stderr

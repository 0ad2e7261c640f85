"""A careless admin's config: typos in plugin names, tool ids, API names and values are errors or findings,
never silence (for a deny list, silence is a security hole)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from hostile._dists import GOOD_TOOL, FakeSite
from toolplug.config import load_config
from toolplug.errors import ConfigError, UsageError


def write(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "host.toml"
    config.write_text(text, encoding="utf-8")
    return config


def findings(site: FakeSite, config: Path) -> tuple[int, list[dict[str, str]], str]:
    done = site.run_cli("--config", str(config), "check", "--json")
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.parametrize(
    ("policy", "key"),
    [
        ('[plugins]\ndeny = ["wbe"]', "plugins.deny"),
        ('[plugins.components.chat]\ndeny = ["wbe"]', "plugins.components.chat.deny"),
        ('[plugins.components.chat]\nallow = ["web", "mpc"]', "plugins.components.chat.allow"),
        ('[plugins.components.chat]\ndeny = ["mcp.nosuchserver"]', "plugins.components.chat.deny"),
    ],
)
def test_a_policy_entry_naming_no_installed_plugin_is_a_finding_and_a_warning(
    fake_site: FakeSite, tmp_path: Path, policy: str, key: str
) -> None:
    # REQ: PLG-4, SEL-6
    config = write(tmp_path, policy + "\n")
    code, found, stderr = findings(fake_site, config)
    assert code == 1
    (finding,) = [f for f in found if f["field"] == key]
    assert str(config) in finding["message"] and "names no installed plugin" in finding["message"]
    entry = policy.split('"')[-2]
    assert repr(entry) in finding["message"]
    assert stderr.count(f"{entry!r} names no installed plugin") == 1  # the start-up warning, once


def test_policy_entries_naming_installed_plugins_are_no_finding(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-4 (the control case: a denied plugin is still an installed one)
    fake_site.add("acme-dist", {"acme": "acme_mod"}, {"acme_mod": GOOD_TOOL.format(tool="acme_tool")})
    config = write(tmp_path, '[plugins]\ndeny = ["acme"]\n[plugins.components.chat]\nallow = ["web", "mcp"]\n')
    code, found, stderr = findings(fake_site, config)
    assert (code, found) == (0, []), found
    assert "names no installed plugin" not in stderr


def test_default_tools_naming_no_tool_is_a_finding(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: SEL-2
    config = write(tmp_path, '[host]\ndefault_tools = ["web_serch", "web_fetch"]\n')
    code, found, _ = findings(fake_site, config)
    assert code == 1
    (finding,) = found
    assert finding["tool_id"] == "web_serch" and finding["field"] == "host.default_tools"
    assert str(config) in finding["message"]


@pytest.mark.parametrize(
    ("provider", "key", "phrase"),
    [
        ('api = "openai_chat"', "providers.p.api", "did you mean 'openai-chat'"),
        ('api = "Anthropic "', "providers.p.api", "unknown API"),
        ('api = "openai-chat"\nconfidence = true', "providers.p.confidence", "not True"),
        ('api = "openai-chat"\nconfidence = 6', "providers.p.confidence", "not 6"),
        ('api = "openai-chat"\nconfidence = "hihg"', "providers.p.confidence", "unknown confidence level"),
    ],
)
def test_a_provider_typo_is_a_config_error_naming_the_key_and_the_file(
    tmp_path: Path, provider: str, key: str, phrase: str
) -> None:
    # REQ: SEL-5
    config = write(tmp_path, f'[providers.p]\nmodel = "m"\n{provider}\n')
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert raised.value.key == key and raised.value.path == str(config)
    assert str(config) in str(raised.value) and key in str(raised.value) and phrase in str(raised.value)


def test_an_api_no_plugin_provides_is_a_finding_and_a_config_error_when_used(
    fake_site: FakeSite, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # REQ: SEL-5
    from toolplug.host import Host

    config = write(tmp_path, '[providers.p]\napi = "acme-chat"\nmodel = "m"\n')
    code, found, _ = findings(fake_site, config)
    assert code == 1
    (finding,) = found
    assert finding["field"] == "providers.p.api" and "'acme-chat'" in finding["message"]
    with caplog.at_level(logging.WARNING, logger="toolplug.host"):
        host = Host.from_config(config, settings_dir=tmp_path / "s")
    assert [r.getMessage() for r in caplog.records].count(finding["message"]) == 1
    with pytest.raises(ConfigError, match=r"providers\.p\.api"):
        asyncio.run(host.run_chat("hello", provider_id="p"))


def test_new_refuses_the_name_of_an_installed_plugin(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-6
    from toolplug.scaffold import render_plugin

    fake_site.add("acme-dist", {"acme-tools": "acme_mod"}, {"acme_mod": GOOD_TOOL.format(tool="acme_tool")})
    for name in ("web", "mcp", "acme-tools", "acme_tools"):
        with pytest.raises(UsageError, match="installed plugin"):
            render_plugin(name, tmp_path)
    with pytest.raises(UsageError, match="already installed"):
        render_plugin("acme-dist", tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {"site"}  # nothing was rendered
    done = fake_site.run_cli("new", "web", "--dir", str(tmp_path / "out"))
    assert done.returncode == 2 and "installed plugin 'web'" in done.stderr
    assert not (tmp_path / "out" / "web").exists()

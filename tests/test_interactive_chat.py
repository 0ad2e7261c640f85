"""``toolplug chat`` without a prompt: a conversation driven through a pipe against a local provider server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from _provider_server import ProviderServer, Reply, chat_completion, chat_stream, provider_server
from test_cli import Install, Installed, install

__all__ = ["install"]  # the installed-plugin fixture of test_cli

SCRIPT = Path(sys.executable).with_name("toolplug")

NOTES_PLUGIN = """
import os
from toolplug import Source, ToolExecutionResult, function_tool, hookimpl

Q = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
ID = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def _find(arguments):
    return ToolExecutionResult(
        text_content="Results for " + arguments["q"], sources=[Source(url="https://example.org/a", title="Page A")]
    )


def _delete(arguments):
    with open(os.environ["DELETED_LOG"], "a", encoding="utf-8") as log:
        log.write(arguments["id"] + "\\n")
    return "deleted " + arguments["id"]


@hookimpl
def register_tools():
    return [
        function_tool("find", "Find pages.", Q, _find),
        function_tool("delete_note", "Delete a note.", ID, _delete, needs_approval=True),
    ]
"""


def converse(
    installed: Installed, server: ProviderServer, tmp_path: Path, lines: list[str], *options: str
) -> subprocess.CompletedProcess[str]:
    """Run ``toolplug chat`` in a fresh process and feed it ``lines`` through a pipe."""
    config = installed.config.read_text(encoding="utf-8")
    if "[providers.here]" not in config:
        config += f'\n[providers.here]\napi = "openai-chat"\nmodel = "m"\nbase_url = "{server.url}"\n'
        installed.config.write_text(config, encoding="utf-8")
    env = installed.environment(tmp_path, DELETED_LOG=str(tmp_path / "deleted.log"))
    return subprocess.run(
        [str(SCRIPT), "chat", "--provider", "here", *options],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True, env=env, timeout=120,
        check=False,
    )


def messages_of(server: ProviderServer, index: int) -> list[dict[str, Any]]:
    return server.requests[index].body["messages"]  # type: ignore[no-any-return]


def deleted(tmp_path: Path) -> list[str]:
    log = tmp_path / "deleted.log"
    return log.read_text(encoding="utf-8").split() if log.exists() else []


def test_a_conversation_keeps_its_history_and_prints_sources_after_each_answer(
    install: Install, tmp_path: Path
) -> None:
    # REQ: UX-4 — several turns through a pipe; each request carries the turns before it.
    installed = install(plugins={"notes": NOTES_PLUGIN})
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "find", '{"q": "fado"}')])),
            Reply(200, chat_completion("Fado is a song.")),
            Reply(200, chat_completion("Lisbon, mostly.")),
        )
        done = converse(installed, server, tmp_path, ["What is fado?", "", "Where is it sung?", "/exit", "ignored"])
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Fado is a song.\n\nSources used by tools:\n  - Page A: https://example.org/a\n\nLisbon, mostly.\n\n"
    )
    assert len(server.requests) == 3  # the empty line is no turn, nothing after /exit is read
    third = messages_of(server, 2)
    said = [(m["role"], m.get("content")) for m in third if m["role"] in ("user", "assistant")]
    assert said[0] == ("user", "What is fado?")
    assert ("assistant", "Fado is a song.") in said
    assert said[-1] == ("user", "Where is it sung?")
    assert any(m["role"] == "tool" and "Results for fado" in m["content"] for m in third)
    assert "[running find]" in done.stderr and "[find ok after " in done.stderr
    assert "Traceback" not in done.stderr


def test_approvals_are_answered_through_the_pipe(install: Install, tmp_path: Path) -> None:
    # REQ: UX-4, LOOP-7 — "y" runs the call; "n" and a reason deny it, and the model reads the reason.
    installed = install(plugins={"notes": NOTES_PLUGIN})
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "delete_note", '{"id": "a"}')])),
            Reply(200, chat_completion("Deleted a.")),
            Reply(200, chat_completion(None, [("c2", "delete_note", '{"id": "b"}')])),
            Reply(200, chat_completion("I left b alone.")),
            Reply(200, chat_completion(None, [("c3", "delete_note", '{"id": "c"}')])),
            Reply(200, chat_completion("Kept c.")),
        )
        lines = ["Delete a", "y", "Delete b", "n", "b is still needed", "Delete c", "maybe", "no not c"]
        done = converse(installed, server, tmp_path, lines)
    assert done.returncode == 0, done.stderr
    assert deleted(tmp_path) == ["a"]
    assert "Deleted a.\n" in done.stdout and "I left b alone.\n" in done.stdout and "Kept c.\n" in done.stdout
    assert 'delete_note wants to run with {"id": "b"}' in done.stderr
    assert "Answer y or n." in done.stderr
    denied_b = messages_of(server, 3)[-1]
    assert denied_b["role"] == "tool" and denied_b["tool_call_id"] == "c2"
    assert "b is still needed" in denied_b["content"]
    denied_c = messages_of(server, 5)[-1]
    assert denied_c["tool_call_id"] == "c3" and "not c" in denied_c["content"]


def test_end_of_input_ends_the_conversation_and_an_unanswered_approval_is_denied(
    install: Install, tmp_path: Path
) -> None:
    # REQ: UX-4 — Ctrl-D (end of input) ends it, even in the middle of an approval; nothing runs.
    installed = install(plugins={"notes": NOTES_PLUGIN})
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "delete_note", '{"id": "a"}')])),
            Reply(200, chat_completion("Nothing deleted.")),
        )
        done = converse(installed, server, tmp_path, ["Delete a"])
    assert done.returncode == 0, done.stderr
    assert deleted(tmp_path) == []
    assert "Nothing deleted." in done.stdout
    assert len(server.requests) == 2


def test_system_prompt_and_streaming_in_a_conversation(install: Install, tmp_path: Path) -> None:
    # REQ: UX-4 — --system reaches the model first; --stream prints the text once.
    installed = install(plugins={"notes": NOTES_PLUGIN})
    with provider_server() as server:
        server.reply(Reply(events=chat_stream(chat_completion("Streamed answer."))))
        done = converse(installed, server, tmp_path, ["hi"], "--system", "Answer in one line.", "--stream")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Streamed answer.\n\n"
    first = messages_of(server, 0)[0]
    assert first["role"] == "system" and first["content"].startswith("Answer in one line.")


def test_a_provider_failure_ends_the_turn_not_the_conversation(install: Install, tmp_path: Path) -> None:
    # REQ: UX-4, UX-1 — one line about the failure, the failed turn left out of the history.
    installed = install(plugins={"notes": NOTES_PLUGIN})
    with provider_server() as server:
        server.reply(
            *[Reply(400, {"error": {"message": "context too long"}})],
            Reply(200, chat_completion("Second try worked.")),
        )
        done = converse(installed, server, tmp_path, ["first", "second"])
    assert done.returncode == 0, done.stderr
    assert "Second try worked." in done.stdout
    assert "context too long" in done.stderr and "Traceback" not in done.stderr
    said = [m.get("content") for m in messages_of(server, 1) if m["role"] == "user"]
    assert said == ["second"]


def test_no_provider_ends_the_conversation_with_the_config_hint(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1 — a configuration problem is not a turn to retry.
    installed = install()
    env = {
        "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PYTHONPATH": str(installed.plugin_dir), "TOOLPLUG_SETTINGS_DIR": str(tmp_path / "settings"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        [str(SCRIPT), "chat"], input="hi\nagain\n", capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "No model provider is configured" in done.stderr and "[providers.openai]" in done.stderr
    assert json.dumps("Traceback") not in done.stderr

"""A real ``toolplug web`` process for tests: a plugin of test tools, a scripted provider, its URL.

:func:`web_server` starts the console script with a config whose provider is a
:class:`~_provider_server.ProviderServer` on 127.0.0.1, and a plugin (found through its dist-info)
with tools a test can steer through files in ``marks``: ``gate`` waits until ``release-<name>``
exists, ``slow`` sleeps and records ``started-``, ``cancelled-`` and ``finished-<name>``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from _plugin_fixtures import write_distribution
from _provider_server import ProviderServer, Reply, chat_completion, chat_stream

API_KEY = "sk-webui-sentinel-7f3a9c21"
"""The provider's API key (from the environment); no byte of it may reach the page."""

HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'
"""Markup a tool (or a model) returns; the page must show it as text."""

PLUGIN = '''
import asyncio
import os
import pathlib

from toolplug import Source, ToolExecutionResult, function_tool, hookimpl

MARKS = pathlib.Path(os.environ["WEBUI_MARKS"])
OBJECT = {"type": "object", "properties": {"name": {"type": "string"}, "seconds": {"type": "number"}}}
PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
HOSTILE = HOSTILE_TEXT


async def _gate(arguments):
    name = arguments.get("name", "gate")
    (MARKS / f"started-{name}").write_text("")
    for _ in range(600):
        if (MARKS / f"release-{name}").exists():
            break
        await asyncio.sleep(0.05)
    return ToolExecutionResult(
        text_content=f"The gate {name} opened.",
        sources=[
            Source(url="https://example.org/alpha", title="Alpha page"),
            Source(url="https://example.org/beta", title="Beta page"),
        ],
        required_provider_confidence="medium",
    )


async def _slow(arguments):
    name = arguments.get("name", "slow")
    (MARKS / f"started-{name}").write_text("")
    try:
        await asyncio.sleep(float(arguments.get("seconds", 30)))
    except asyncio.CancelledError:
        (MARKS / f"cancelled-{name}").write_text("")
        raise
    (MARKS / f"finished-{name}").write_text("")
    return f"slept {name}"


def _delete(arguments):
    (MARKS / f"deleted-{arguments['path']}").write_text("")
    return f"deleted {arguments['path']}"


def _hostile(arguments):
    return HOSTILE + " and **not bold**"


def _lookup(arguments):
    return ToolExecutionResult(
        json_content={"query": arguments["query"], "hits": 2},
        sources=[Source(url="https://example.org/lookup", title="Lookup result")],
    )


def _picture(arguments):
    image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    return {"content": [{"type": "text", "text": "a chart"}, image]}


def _leak(arguments):
    return "the provider key is " + os.environ.get("WEBUI_TEST_KEY", "")


TOOLS = [
    function_tool("leak", "Leaks the provider key.", {"type": "object", "properties": {}}, _leak),
    function_tool("gate", "Waits for a gate.", OBJECT, _gate, title="Gate keeper"),
    function_tool("slow", "Sleeps.", OBJECT, _slow, title="Slow sleeper"),
    function_tool("delete_file", "Deletes a file.", PATH, _delete, title="Delete a file", needs_approval=True),
    function_tool("hostile", "Returns markup.", {"type": "object", "properties": {}}, _hostile),
    function_tool("lookup", "Looks something up.", QUERY, _lookup, title="Lookup"),
    function_tool("picture", "Draws a chart.", {"type": "object", "properties": {}}, _picture),
    function_tool("vault", "Reads the vault.", {"type": "object", "properties": {}}, lambda arguments: "opened",
                  minimum_provider_confidence="high"),
]


@hookimpl
def register_tools():
    return TOOLS
'''.replace("HOSTILE_TEXT", repr(HOSTILE))


def config_text(provider_url: str, confidence: str = "medium") -> str:
    """The host config: the test plugin only, one provider at ``provider_url``."""
    return f"""
[host]
components = ["chat"]

[plugins]
deny = ["web", "mcp"]

[providers.scripted]
api = "openai-chat"
base_url = "{provider_url}/v1"
model = "scripted-model"
confidence = "{confidence}"
api_key_env = "WEBUI_TEST_KEY"
"""


@dataclass
class WebServer:
    """A running ``toolplug web``."""

    url: str
    """The URL it printed, with the token."""
    base: str
    token: str
    marks: Path
    provider: ProviderServer
    process: subprocess.Popen[str]

    def api(self, path: str) -> str:
        """The absolute URL of an API path."""
        return f"{self.base}{path}"

    def headers(self, **extra: str) -> dict[str, str]:
        """Headers with the token."""
        return {"authorization": f"Bearer {self.token}", **extra}

    def post_chat(self, body: Any, **headers: str) -> httpx2.Response:
        """POST a chat request and read the whole answer."""
        return httpx2.post(
            self.api("/api/chat"),
            content=json.dumps(body),
            headers={"content-type": "application/json", **headers},
            timeout=60,
        )

    def release(self, name: str) -> None:
        """Let the ``gate`` call named ``name`` finish."""
        (self.marks / f"release-{name}").write_text("")

    def marked(self, name: str) -> bool:
        """Whether the tools wrote the mark ``name`` (``started-x``...)."""
        return (self.marks / name).exists()


def toolplug_script() -> Path:
    """The installed console script next to this Python."""
    return Path(sys.executable).with_name("toolplug")


@contextmanager
def web_server(
    tmp_path: Path, provider: ProviderServer, *, args: Sequence[str] = (), confidence: str = "medium"
) -> Iterator[WebServer]:
    """Run ``toolplug web --port 0`` until the block ends."""
    plugin_dir = tmp_path / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    write_distribution(plugin_dir, "webui-test-tools", "1.0", {"webtools": "webui_test_tools"},
                       {"webui_test_tools": PLUGIN})
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    config = tmp_path / "toolplug.toml"
    config.write_text(config_text(provider.url, confidence), encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(plugin_dir),
        "TOOLPLUG_CONFIG": str(config),
        "TOOLPLUG_SETTINGS_DIR": str(tmp_path / "settings"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "WEBUI_MARKS": str(marks),
        "WEBUI_TEST_KEY": API_KEY,
        "NO_PROXY": "*",
    }
    process = subprocess.Popen(
        [str(toolplug_script()), "web", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = _read_url(process)
        match = re.match(r"(http://[^/]+)/\?token=(\S+)", url)
        assert match, url
        yield WebServer(url, match.group(1), match.group(2), marks, provider, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _read_url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            stderr = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"toolplug web ended: {''.join(lines)}{stderr}")
        lines.append(line)
        if "?token=" in line:
            return line.strip()
    raise AssertionError("toolplug web printed no URL")


# --- provider replies ---------------------------------------------------------------------------------


def answer(text: str, **reply: Any) -> Reply:
    """A streamed Chat Completions answer."""
    return Reply(events=chat_stream(chat_completion(text)), **reply)


def calls(*tool_calls: tuple[str, str, dict[str, Any]], text: str | None = None) -> Reply:
    """A streamed Chat Completions round calling tools: ``(call id, name, arguments)``."""
    wire = [(call_id, name, json.dumps(arguments)) for call_id, name, arguments in tool_calls]
    return Reply(events=chat_stream(chat_completion(text, wire)))


def sse_chunks(body: str) -> list[dict[str, Any]]:
    """The chunks of a UI message stream body."""
    chunks = []
    for event in body.split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.splitlines() if line.startswith("data:"))
        if data and data != "[DONE]":
            chunks.append(json.loads(data))
    return chunks

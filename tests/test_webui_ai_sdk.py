"""The AI SDK's own client reads ``toolplug web``'s chat endpoint: a second, independent consumer.

The npm package ``ai`` (its ``DefaultChatTransport`` and ``readUIMessageStream``) runs in node against a
real ``toolplug web`` process. It is installed once into a folder under the system temp dir; the test
skips, saying why, where node or npm is missing or the package cannot be installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _provider_server import ProviderServer, provider_server
from _webui import WebServer, answer, calls, web_server

AI_PACKAGE = "ai@7"
CACHE = Path(tempfile.gettempdir()) / "toolplug-test-ai-sdk-7"

CLIENT = """
import { DefaultChatTransport, readUIMessageStream } from 'ai';

const [url, token, input] = process.argv.slice(2);
const { chatId, messages } = JSON.parse(input);
const transport = new DefaultChatTransport({ api: `${url}/api/chat`, headers: { authorization: `Bearer ${token}` } });
const stream = await transport.sendMessages({
  chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined,
});
const last = messages[messages.length - 1];
let message;
for await (const state of readUIMessageStream({
  stream, message: last.role === 'assistant' ? last : undefined, terminateOnError: true,
})) message = state;
console.log(JSON.stringify(message));
"""


def _install() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to run the AI SDK's client (apt-get install nodejs npm)")
    if not (CACHE / "node_modules" / "ai" / "package.json").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        (CACHE / "package.json").write_text('{"name": "toolplug-ai-sdk-check", "private": true}', encoding="utf-8")
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", AI_PACKAGE],
            cwd=CACHE, capture_output=True, text=True, timeout=300, check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"npm could not install {AI_PACKAGE}: {done.stderr.strip()[-300:]}")
    script = CACHE / "client.mjs"
    script.write_text(CLIENT, encoding="utf-8")
    return script


@pytest.fixture(scope="module")
def client() -> Path:
    return _install()


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_server() as server:
        yield server


@pytest.fixture(scope="module")
def web(provider: ProviderServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with web_server(tmp_path_factory.mktemp("web"), provider) as server:
        yield server


def read_with_ai_sdk(client: Path, web: WebServer, chat_id: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The UIMessage the AI SDK builds from one request to /api/chat."""
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, str(client), web.base, web.token, json.dumps({"chatId": chat_id, "messages": messages})],
        capture_output=True, text=True, timeout=120, check=False, cwd=client.parent,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_ai_sdk_client_builds_text_tool_parts_and_sources_and_continues_after_an_approval(
    client: Path, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    provider.reply(
        calls(("l1", "lookup", {"query": "toolplug"}), ("d1", "delete_file", {"path": "x.txt"}), text="Checking."),
        answer("All **done**."),
    )
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Look it up, then delete x.txt"}]}
    first = read_with_ai_sdk(client, web, "chat-sdk", [user])
    assert first["role"] == "assistant"
    parts = first["parts"]
    # both calls stream before either runs; the source follows the output of the call that returned it
    assert [part["type"] for part in parts] == ["step-start", "text", "tool-lookup", "tool-delete_file", "source-url"]
    assert parts[1]["text"] == "Checking." and parts[1]["state"] == "done"
    lookup, delete, source = parts[2], parts[3], parts[4]
    assert lookup["state"] == "output-available" and lookup["title"] == "Lookup"
    assert lookup["input"] == {"query": "toolplug"} and lookup["output"] == {"query": "toolplug", "hits": 2}
    assert source["url"] == "https://example.org/lookup" and source["title"] == "Lookup result"
    assert delete["state"] == "approval-requested" and delete["input"] == {"path": "x.txt"}
    assert delete["approval"]["signature"]  # the SDK keeps the server's signature for the answer
    assert not web.marked("deleted-x.txt")

    # approve as the SDK's addToolApprovalResponse does, and send the chat again
    delete["state"] = "approval-responded"
    delete["approval"] = {**delete["approval"], "approved": True}
    second = read_with_ai_sdk(client, web, "chat-sdk", [user, first])
    assert second["id"] == first["id"]  # the same assistant message, continued
    by_type = {part["type"]: part for part in second["parts"]}
    assert by_type["tool-delete_file"]["state"] == "output-available"
    assert by_type["tool-delete_file"]["output"] == "deleted x.txt"
    assert second["parts"][-1] == {"type": "text", "text": "All **done**.", "state": "done"}
    assert web.marked("deleted-x.txt")

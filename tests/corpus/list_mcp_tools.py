"""Writes mcp_reference_servers.json: the tools/list answers of the MCP reference servers.

Run once after `npm install @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem`
in this folder: `python list_mcp_tools.py`. Each server is started over stdio, initialised, and asked
for its tools; only each tool's name and inputSchema are kept.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

SERVERS = "node_modules/@modelcontextprotocol"


def tools_of(command: list[str]) -> list[dict[str, Any]]:
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    def answer(request_id: int) -> dict[str, Any]:
        assert process.stdout is not None
        for line in process.stdout:
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == request_id:
                return message
        raise RuntimeError(f"{command[1]} closed its output")

    client = {"name": "corpus", "version": "1"}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    tools: list[dict[str, Any]] = answer(2)["result"]["tools"]
    process.terminate()
    return [{"name": tool["name"], "inputSchema": tool["inputSchema"]} for tool in tools]


if __name__ == "__main__":
    found = {
        "server-everything": tools_of(["node", f"{SERVERS}/server-everything/dist/index.js", "stdio"]),
        "server-filesystem": tools_of(["node", f"{SERVERS}/server-filesystem/dist/index.js", "."]),
    }
    with open("mcp_reference_servers.json", "w", encoding="utf-8") as out:
        json.dump(found, out, indent=1)

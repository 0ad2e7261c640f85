"""``toolplug serve``: the runnable tools of one component offered as an MCP server.

Built on the SDK's low-level ``Server`` (its handshake, stdio and Streamable HTTP transports). Every
listing asks the host's selector afresh, and every call goes through :meth:`toolplug.host.Host.call_tool`:
the selector's checks, argument validation, the executor (timeouts, secrets scrubbed, the
prompt-injection guard handed to the tool) and a trace. A blocked call comes back as an MCP error
result holding the block message as plain text; a failed call as ``Tool execution failed: ...``; an
invalid one as ``Name: message`` — the texts a model reads in a chat.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from toolplug.definitions import ToolKind
from toolplug.errors import InvalidToolInputError, ToolNotRunnableError, UnknownToolError
from toolplug.execution import CallStatus, ToolCallOutcome, ToolTrace
from toolplug_mcp.defaults import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT
from toolplug_mcp.sdk import require_sdk

if TYPE_CHECKING:
    from toolplug.host import Host
    from toolplug.registry import RegisteredTool

logger = logging.getLogger("toolplug.mcp.serve")

SERVABLE_KINDS = frozenset({ToolKind.FUNCTION, ToolKind.DYNAMIC})
HTTP_PATH = "/mcp"


class ToolServer:
    """The bridge between MCP requests and the host: list the runnable tools, run a call.

    :param on_trace: receives the trace of every call (``toolplug serve --trace-file`` writes them).
    """

    def __init__(
        self,
        host: Host,
        component: str = "chat",
        provider_id: str | None = None,
        on_trace: Callable[[ToolTrace], None] | None = None,
    ) -> None:
        host.scope(component, provider_id)  # an unknown component or provider fails here, before serving
        self.host = host
        self.component = component
        self.provider_id = provider_id
        self.on_trace = on_trace
        self._call_ids = itertools.count(1)

    def runnable_tools(self) -> list[RegisteredTool]:
        """The tools an MCP client may see now (the selector's verdict, tools toolplug can execute)."""
        selection = self.host.select(self.component, self.provider_id)
        hidden: set[str] = set()
        if not self.host.config.tool_search.serve_deferred:
            hidden = {tool.id for tool in self.host.deferred_tools(selection.runnable)}
        return [
            tool
            for tool in selection.runnable
            if tool.implementation.has_execute and tool.definition.kind in SERVABLE_KINDS and tool.id not in hidden
        ]

    def list_tools(self) -> list[dict[str, Any]]:
        """The MCP ``Tool`` objects (as JSON) of the runnable tools."""
        tools = []
        for tool in self.runnable_tools():
            definition = tool.definition
            entry: dict[str, Any] = {
                "name": definition.function.name,
                "description": definition.function.description_for_llm,
                "inputSchema": definition.function.parameters,
            }
            if definition.title:
                entry["title"] = definition.title
            tools.append(entry)
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Run one call; returns an MCP call-tool result as JSON (``isError`` for blocked, failed, invalid)."""
        call_id = f"mcp_{next(self._call_ids)}"
        tool = next((t for t in self.runnable_tools() if t.definition.function.name == name), None)
        if tool is None:
            available = sorted(t.definition.function.name for t in self.runnable_tools())
            hint = f"Available tools: {', '.join(available)}." if available else "No tools are available."
            return _error_result(f"NoSuchToolError: Tool {name!r} is not available here. {hint}")
        try:
            outcome = await self.host.call_tool(
                tool.id, arguments or {}, component=self.component, provider_id=self.provider_id, call_id=call_id
            )
        except InvalidToolInputError as exc:
            return _error_result(f"{exc.error_name}: {exc}")
        except (ToolNotRunnableError, UnknownToolError) as exc:
            return _error_result(f"{type(exc).__name__}: {exc}")
        if self.on_trace is not None:
            self.on_trace(outcome.trace)
        logger.info("MCP call %s: %s", call_id, json.dumps(outcome.trace.as_dict(), ensure_ascii=False))
        return outcome_to_call_result(outcome)


def outcome_to_call_result(outcome: ToolCallOutcome) -> dict[str, Any]:
    """A toolplug call outcome as an MCP call-tool result."""
    result = outcome.result
    if outcome.status is not CallStatus.OK:
        return _error_result(outcome.text)
    if result.content is not None:
        return {"content": [_mcp_content(part) for part in result.content], "isError": False}
    if result.text_content is not None:
        return {"content": [{"type": "text", "text": result.text_content}], "isError": False}
    value = result.json_content
    answer: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(value, ensure_ascii=False)}],
        "isError": False,
    }
    if isinstance(value, dict):
        answer["structuredContent"] = value
    return answer


def _mcp_content(part: dict[str, Any]) -> dict[str, Any]:
    if part.get("type") == "text":
        return {"type": "text", "text": str(part.get("text", ""))}
    if part.get("type") == "file" and isinstance(part.get("data"), str):
        media_type = str(part.get("media_type") or "application/octet-stream")
        if media_type.startswith("image/"):
            return {"type": "image", "data": part["data"], "mimeType": media_type}
        if media_type.startswith("audio/"):
            return {"type": "audio", "data": part["data"], "mimeType": media_type}
        uri = f"file:///{part.get('filename') or 'attachment'}"
        return {"type": "resource", "resource": {"uri": uri, "mimeType": media_type, "blob": part["data"]}}
    return {"type": "text", "text": json.dumps(part, ensure_ascii=False)}


def _error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


# --- the SDK server ------------------------------------------------------------------------------------


def build_sdk_server(bridge: ToolServer, name: str = "toolplug") -> Any:
    """The SDK's low-level ``Server`` answering ``tools/list`` and ``tools/call`` through ``bridge``."""
    require_sdk("toolplug serve")
    from mcp import types
    from mcp.server.lowlevel import Server

    from toolplug_mcp import __version__

    async def list_tools(context: Any, params: Any) -> Any:
        return types.ListToolsResult.model_validate({"tools": bridge.list_tools()}, by_name=False)

    async def call_tool(context: Any, params: Any) -> Any:
        answer = await bridge.call_tool(params.name, params.arguments)
        return types.CallToolResult.model_validate(answer, by_name=False)

    return Server(
        name,
        version=__version__,
        instructions=f"The tools of the toolplug component '{bridge.component}'.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(bridge: ToolServer) -> None:
    """Serve over stdin and stdout until the client closes them."""
    require_sdk("toolplug serve")
    from mcp.server.stdio import stdio_server

    server = build_sdk_server(bridge)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    bridge: ToolServer, host: str = DEFAULT_HTTP_HOST, port: int = DEFAULT_HTTP_PORT, *, log: TextIO | None = None
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` (127.0.0.1 unless told otherwise)."""
    require_sdk("toolplug serve --transport http")
    import uvicorn

    server = build_sdk_server(bridge)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    (log or sys.stderr).write(f"toolplug serve: MCP over Streamable HTTP at http://{host}:{port}{HTTP_PATH}\n")
    (log or sys.stderr).flush()
    await uvicorn.Server(config).serve()


__all__ = ["ToolServer", "build_sdk_server", "outcome_to_call_result", "serve_http", "serve_stdio"]

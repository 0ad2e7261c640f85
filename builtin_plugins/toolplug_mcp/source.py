"""The MCP definition source: each configured server's tools as toolplug tools.

One :class:`McpDefinitionSource` per ``[mcp.servers.NAME]``, owned by the plugin ``mcp.NAME`` so an
admin can allow or deny one server per component (``[plugins.components.chat] deny = ["mcp.github"]``).
Each server tool becomes a :class:`ToolDefinition` with a lower-case id made of the server and tool
names (also the function name the model calls, so two servers' ``echo`` tools never collide), the
server's original name kept in ``metadata["mcp"]["tool"]`` for the call, and a
:class:`McpToolImplementation` joined to it by ``implementation_key``; the registry validates
it like any other definition. The servers are started and listed concurrently as soon as the plugin
is asked for its sources; one that cannot start or answer becomes a diagnostic and the other
servers' tools stay.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolplug.definitions import FunctionSpec, ToolDefinition, ToolExecutionResult
from toolplug.errors import ToolExecutionBlockedError
from toolplug.execution import ToolExecutionContext
from toolplug.guard import InjectionSource, PromptInjectionGuard
from toolplug.registry import Diagnostic
from toolplug.tools import ToolImplementation
from toolplug_mcp.client import McpClient, ToolListing
from toolplug_mcp.config import McpServerConfig, PinnedFingerprint
from toolplug_mcp.errors import MCPClientError, MCPConnectionClosedError, MCPTimeoutError
from toolplug_mcp.output import call_result_to_output
from toolplug_mcp.runtime import runtime
from toolplug_mcp.transports import McpTransport, SseTransport, StdioTransport, StreamableHttpTransport

if TYPE_CHECKING:
    from toolplug.host import Host

logger = logging.getLogger("toolplug.mcp")

MAX_ID_LENGTH = 64
PLUGIN_PREFIX = "mcp."
UNSUPPORTED_TASK_SUPPORT = "required"
MAX_REFRESHES = 5
"""Listings in a row when the server keeps announcing changes while its tools are being read."""


# --- ids and fingerprints ------------------------------------------------------------------------


def tool_id_for(server: str, tool_name: str) -> str:
    """A valid toolplug id from a server and a tool name: ``weather`` + ``Get-Forecast`` → ``weather_get_forecast``."""
    base = re.sub(r"[^a-z0-9]+", "_", f"{server}_{tool_name}".lower()).strip("_")
    if not base or not base[0].isalpha():
        base = f"mcp_{base}".rstrip("_")
    if len(base) > MAX_ID_LENGTH:
        digest = hashlib.sha256(f"{server}\0{tool_name}".encode()).hexdigest()[:8]
        base = f"{base[: MAX_ID_LENGTH - 9].rstrip('_')}_{digest}"
    return base


def field_fingerprints(definition: ToolDefinition) -> dict[str, str]:
    """A fingerprint of each part of a definition, so a changed pin can say which part changed."""
    function = definition.function
    parts = {
        "name": function.name,
        "description": function.description_for_llm,
        "parameters": function.parameters,
        "title": definition.title,
        "metadata": definition.metadata,
    }
    return {key: _digest(value) for key, value in parts.items()}


def _digest(value: Any) -> str:
    payload = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


# --- one server's connection -----------------------------------------------------------------------


class McpServerConnection:
    """The (lazily opened, reopened after a crash) connection to one configured server.

    Every method runs on the MCP runtime loop (:mod:`toolplug_mcp.runtime`).
    """

    def __init__(self, config: McpServerConfig) -> None:
        self.config = config
        self.listeners: list[Callable[[], None]] = []
        """Called (on the MCP runtime) when the server's tools may have changed: it said so, or it was
        connected again (a server that restarted may offer other tools)."""
        self._client: McpClient | None = None
        self._lock: asyncio.Lock | None = None
        self._connected_before = False

    @property
    def name(self) -> str:
        """The server's name in the config."""
        return self.config.name

    async def client(self) -> McpClient:
        """The connected client, connecting (again) when needed."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None or self._client.closed:
                if self._client is not None:
                    await self._client.close()  # a server that went away: release what is left of it
                client = McpClient(self._transport(), server=self.name, timeout=self.config.timeout)
                client.on_tools_changed = self._tools_changed
                await client.connect()
                self._client = client
                if self._connected_before:
                    self._tools_changed()
                self._connected_before = True
            return self._client

    def _tools_changed(self) -> None:
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:  # one listener's failure must not keep the others from hearing
                logger.exception("MCP server %r: a tools-changed listener failed", self.name)

    async def list_tools(self) -> ToolListing:
        """The server's tools: the well-formed ones as it sent them, and the malformed ones."""
        client = await self.client()
        return await client.list_tools(timeout=self.config.timeout)

    async def call_tool(self, name: str, arguments: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        """Call a tool; a server that went away is started again on the next call."""
        client = await self.client()
        try:
            return await client.call_tool(name, arguments, timeout=timeout)
        except MCPConnectionClosedError:
            # The server went away mid-call; release it now, the next call starts it again.
            if self._client is client:
                self._client = None
            await client.close()
            raise

    async def close(self) -> None:
        """Close the connection (stops a stdio server)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def _transport(self) -> McpTransport:
        config = self.config
        if config.kind == "stdio":
            assert config.command is not None
            return StdioTransport(self.name, config.command, config.args, env=config.env, cwd=config.cwd)
        assert config.url is not None
        headers = {**config.headers, **self._secret_headers()}
        if config.kind == "sse":
            return SseTransport(self.name, config.url, headers=headers, timeout=config.timeout)
        return StreamableHttpTransport(self.name, config.url, headers=headers, timeout=config.timeout)

    def _secret_headers(self) -> dict[str, str]:
        if not self.config.secret_headers:
            return {}
        from toolplug.secrets import environment_variable
        from toolplug.settings import SecretStore

        store = SecretStore()
        owner = f"{PLUGIN_PREFIX}{self.name}"
        headers: dict[str, str] = {}
        for header, entry in self.config.secret_headers.items():
            value = store.get(owner, entry)
            if value is None:
                raise MCPClientError(
                    f"MCP server {self.name!r}: the header {header} needs the secret {owner}.{entry}, which is not "
                    f"in the OS keyring (service 'toolplug'); store it with: keyring set toolplug {owner}.{entry}, "
                    f"or set {environment_variable(owner, entry)}",
                    server=self.name,
                )
            headers[header] = value
        return headers


_connections: list[McpServerConnection] = []
_closer_runtime: object | None = None


def open_connection(config: McpServerConfig) -> McpServerConnection:
    """A connection to a configured server, closed at the latest when the process exits."""
    global _closer_runtime
    connection = McpServerConnection(config)
    _connections.append(connection)
    current = runtime()
    if _closer_runtime is not current:
        current.on_shutdown(_close_all)
        _closer_runtime = current
    return connection


async def _close_all() -> None:
    connections = list(_connections)
    _connections.clear()
    await asyncio.gather(*(connection.close() for connection in connections), return_exceptions=True)


def close_all_connections() -> None:
    """Close every MCP connection this process opened (stops stdio servers); bounded."""
    if _connections:
        runtime().run(_close_all(), 30.0)


# --- the tools -------------------------------------------------------------------------------------


class McpToolImplementation(ToolImplementation):
    """Calls one tool of one MCP server; its output is converted for the model and filtered by the guard.

    :param refusal: tells why the tool may not run now (its pin no longer holds), or None; asked before
        every call, so a run that selected the tool before its server changed it cannot call it.
    """

    returns_untrusted_external_content = True

    def __init__(
        self,
        connection: McpServerConnection,
        tool_id: str,
        tool_name: str,
        title: str | None,
        refusal: Callable[[str], str | None] | None = None,
    ) -> None:
        self.connection = connection
        self.implementation_key = tool_id
        self.tool_name = tool_name
        self.call_timeout = connection.config.timeout_for(tool_name)
        # The MCP request's own timeout fires first (and tells the server to cancel); this is a backstop.
        self.timeout = self.call_timeout + 5.0
        self.display_name = title or tool_name
        self.description = f"{tool_name} from the MCP server {connection.name}"
        self._refusal = refusal

    def definition(self) -> None:
        return None  # the definition source brings it

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> ToolExecutionResult:
        reason = self._refusal(self.tool_name) if self._refusal is not None else None
        if reason is not None:
            raise ToolExecutionBlockedError(reason)
        raw = await runtime().run_async(
            self.connection.call_tool(self.tool_name, arguments, timeout=self.call_timeout)
        )
        result = call_result_to_output(raw, server=self.connection.name, tool=self.tool_name)
        if context.guard is not None:
            result = await _guard_result(result, context, f"mcp://{self.connection.name}/{self.tool_name}")
        return result


async def _guard_result(result: ToolExecutionResult, context: ToolExecutionContext, origin: str) -> ToolExecutionResult:
    """Every text of an MCP result through the prompt-injection guard, in one batch."""
    from toolplug.guard import InjectionSource, InjectionText

    source = InjectionSource("mcp_tool", origin)
    texts: list[str] = []
    if result.content is not None:
        texts = [part["text"] for part in result.content if part.get("type") == "text"]
    elif result.json_content is not None:
        texts = list(_strings(result.json_content))
    elif result.text_content is not None:
        texts = [result.text_content]
    if not texts:
        return result
    filtered = iter(await context.guard.filter_texts([InjectionText(t, source) for t in texts], context))
    if result.content is not None:
        parts = [
            {**part, "text": next(filtered)} if part.get("type") == "text" else part for part in result.content
        ]
        return result.model_copy(update={"content": parts})
    if result.json_content is not None:
        return result.model_copy(update={"json_content": _replace_strings(result.json_content, filtered)})
    return result.model_copy(update={"text_content": next(filtered)})


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _replace_strings(value: Any, replacements: Any) -> Any:
    if isinstance(value, str):
        return next(replacements)
    if isinstance(value, dict):
        return {key: _replace_strings(item, replacements) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_strings(item, replacements) for item in value]
    return value


# --- the definition source -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loaded:
    """One reading of a server's tools, swapped in whole when the server's tools change."""

    definitions: list[ToolDefinition]
    implementations: list[McpToolImplementation]
    diagnostics: list[Diagnostic]
    withheld: dict[str, str]
    """The server's tool name -> why toolplug will not call it (a pin that no longer holds)."""
    server_definitions: list[ToolDefinition]
    """The definitions as the server sent them, before the guard (what pins approve)."""


class McpDefinitionSource:
    """The tools of one MCP server, for the registry (a :class:`toolplug.DefinitionSource`).

    When the server announces ``notifications/tools/list_changed`` (or a new session had to be opened),
    the source lists the tools again, checks the pins again, and tells every :meth:`watch` listener,
    which for a host means the registry replaces this server's tools.
    """

    def __init__(
        self,
        connection: McpServerConnection,
        host: Host | None = None,
        listing: concurrent.futures.Future[ToolListing] | None = None,
        *,
        check_pins: bool = True,
    ) -> None:
        self.connection = connection
        self.config = connection.config
        self.name = f"mcp:{connection.name}"
        self.plugin = f"{PLUGIN_PREFIX}{connection.name}"
        """The owning plugin name the host records (``mcp.<server>``), for per-component allow/deny."""
        self.diagnostics: list[Diagnostic] = []
        """Tools left out by this source (malformed, unsupported client features, changed fingerprints)."""
        self._host = host
        self._listing = listing
        self._check_pins = check_pins
        self._loaded: _Loaded | None = None
        self._listeners: list[Callable[[McpDefinitionSource], None]] = []
        self._refreshing: asyncio.Task[None] | None = None
        self._refresh_again = False
        connection.listeners.append(self._tools_changed)

    def start(self) -> None:
        """Start and list the server in the background (the plugin does this for all servers at once)."""
        if self._listing is None:
            self._listing = runtime().submit(self.connection.list_tools())

    def load_definitions(self) -> Iterable[ToolDefinition]:
        """The server's tools as definitions; raises MCPClientError when the server cannot start or answer."""
        return list(self._load().definitions)

    def implementations(self) -> Iterable[ToolImplementation]:
        """One implementation per tool, joined by implementation_key."""
        return list(self._load().implementations)

    def server_definitions(self) -> list[ToolDefinition]:
        """The definitions as the server sent them, before the guard: what ``toolplug mcp pins`` fingerprints."""
        return list(self._load().server_definitions)

    def watch(self, listener: Callable[[McpDefinitionSource], None]) -> None:
        """Call ``listener(self)`` after the server's tools changed and were read again (on the MCP thread)."""
        self._listeners.append(listener)

    def close(self) -> None:
        """Close the connection to the server (from outside the MCP runtime)."""
        self._listeners.clear()
        runtime().run(self.connection.close(), 30.0)

    def refusal(self, tool_name: str) -> str | None:
        """Why the tool may not be called now (its pin no longer holds), or None."""
        loaded = self._loaded
        return None if loaded is None else loaded.withheld.get(tool_name)

    # -- reading the tools ---------------------------------------------------------------------------

    def _load(self) -> _Loaded:
        if self._loaded is None:
            listing = self._wait_for_tools()
            loaded = runtime().run(self._read(listing), self.config.timeout + 15)
            if self._loaded is None:  # a change announced meanwhile has already been read
                self._apply(loaded)
        assert self._loaded is not None
        return self._loaded

    def _wait_for_tools(self) -> ToolListing:
        self.start()
        assert self._listing is not None
        try:
            # The client bounds connecting and listing by the server's timeout; the margin covers a shutdown.
            return self._listing.result(self.config.timeout * 2 + 15)
        except concurrent.futures.TimeoutError:
            self._listing.cancel()
            raise MCPTimeoutError(
                f"MCP server {self.connection.name!r} did not list its tools in time", server=self.connection.name
            ) from None

    def _apply(self, loaded: _Loaded) -> None:
        self._loaded = loaded
        self.diagnostics = loaded.diagnostics  # the registry reads these after load_definitions
        for diagnostic in loaded.diagnostics:
            logger.warning("%s", diagnostic)

    async def _read(self, listing: ToolListing) -> _Loaded:
        """Definitions, implementations and diagnostics from one listing (on the MCP runtime)."""
        reading = _Reading(self)
        for name, problem in listing.malformed:
            reading.malformed(name, problem)
        for tool in listing.tools:
            reading.add(tool)
        reading.missing_pins()
        definitions = await _guard_definitions(reading.definitions, self._guard(), self.connection.name)
        return _Loaded(definitions, reading.implementations, reading.diagnostics, reading.withheld,
                       reading.definitions)

    def _guard(self) -> PromptInjectionGuard:
        filters = getattr(self._host, "injection_filters", None) if self._host is not None else None
        if filters is None:  # no host (``toolplug mcp pins``), or one still being built
            return PromptInjectionGuard.with_builtin_filter()
        return PromptInjectionGuard(filters)

    # -- the server's tools changed ------------------------------------------------------------------

    def _tools_changed(self) -> None:
        """The connection's listener (on the MCP runtime): read the tools again, once at a time."""
        if self._refreshing is not None and not self._refreshing.done():
            self._refresh_again = True
            return
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh(), name=f"mcp-refresh-{self.name}")

    async def _refresh(self) -> None:
        for _ in range(MAX_REFRESHES):
            self._refresh_again = False
            try:
                loaded = await self._read(await self.connection.list_tools())
            except Exception as exc:  # the old tools stay; their calls report the server's state
                logger.warning("MCP server %r changed its tools, and listing them again failed: %s",
                               self.connection.name, exc)
                return
            self._apply(loaded)
            for listener in list(self._listeners):
                try:
                    listener(self)
                except Exception:
                    logger.exception("A listener of the MCP definition source %r failed", self.name)
            if not self._refresh_again:
                return


class _Reading:
    """Sorting one listing into definitions, implementations, diagnostics and withheld tools."""

    def __init__(self, source: McpDefinitionSource) -> None:
        self.source = source
        self.server = source.connection.name
        self.config = source.config
        self.definitions: list[ToolDefinition] = []
        self.implementations: list[McpToolImplementation] = []
        self.diagnostics: list[Diagnostic] = []
        self.withheld: dict[str, str] = {}
        self.offered: set[str] = set()

    def malformed(self, name: str | None, problem: str) -> None:
        if name is not None:
            self.offered.add(name)
            if not self.config.takes(name):
                return
            self.withheld[name] = f"MCP server {self.server!r} publishes a malformed definition of {name!r}"
        tool_id = tool_id_for(self.server, name) if name else f"<mcp:{self.server} tool without a valid name>"
        self.diagnose(tool_id, "mcp", f"left out: the server's definition of this tool is malformed: {problem}")

    def add(self, tool: dict[str, Any]) -> None:
        name = str(tool.get("name", ""))
        self.offered.add(name)
        if not self.config.takes(name):
            return
        tool_id = tool_id_for(self.server, name)
        reason = unsupported_feature(tool)
        if reason is not None:
            self.diagnose(tool_id, "mcp", f"left out: {reason}")
            return
        definition = definition_for(self.server, tool, tool_id)
        if not self.pin_holds(definition, name):
            return
        self.definitions.append(definition)
        self.implementations.append(
            McpToolImplementation(self.source.connection, tool_id, name, definition.title, self.source.refusal)
        )

    def pin_holds(self, definition: ToolDefinition, name: str) -> bool:
        pin = self.config.pinned.get(name)
        if pin is None or not self.source._check_pins:
            return True
        expected = pin.fingerprint if isinstance(pin, PinnedFingerprint) else pin
        if definition.fingerprint() == expected:
            return True
        message = describe_change(definition, pin)
        self.withheld[name] = f"MCP tool {name!r} of server {self.server!r} was withheld: {message}"
        self.diagnose(definition.id, "fingerprint", message)
        return False

    def missing_pins(self) -> None:
        for name in self.config.pinned:
            if name not in self.offered:
                self.diagnose(tool_id_for(self.server, name), "pinned",
                              f"the server no longer offers the pinned tool {name!r}")

    def diagnose(self, tool_id: str, field: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(tool_id, self.source.plugin, field, message))


async def _guard_definitions(
    definitions: list[ToolDefinition], guard: PromptInjectionGuard, server: str
) -> list[ToolDefinition]:
    """Every text of the definitions that reaches the model (description, title, the schema's
    descriptions and titles) through the prompt-injection guard, in one batch."""
    from toolplug.guard import InjectionText

    texts: list[InjectionText] = []
    for definition in definitions:
        source = InjectionSource("mcp_tool_definition", f"mcp://{server}/{definition.metadata['mcp']['tool']}")
        texts.extend(InjectionText(text, source) for text in _definition_texts(definition))
    if not texts:
        return definitions
    result = await guard.inspect(texts)
    if not result.report.found_anything:
        return definitions
    filtered = iter(result.texts)
    guarded = [_replace_definition_texts(definition, filtered) for definition in definitions]
    for report in result.report.sources:
        if report.findings:
            families = ", ".join(sorted({finding.family for finding in report.findings}))
            logger.warning("MCP tool %s: the guard neutralised %d item(s) (%s) in its definition",
                           report.source.identifier, len(report.findings), families)
    return guarded


def _definition_texts(definition: ToolDefinition) -> list[str]:
    texts = [definition.function.description_for_llm]
    if definition.title:
        texts.append(definition.title)
    texts.extend(_schema_texts(definition.function.parameters))
    return texts


def _replace_definition_texts(definition: ToolDefinition, filtered: Iterator[str]) -> ToolDefinition:
    description = next(filtered)
    title = next(filtered) if definition.title else None
    parameters = _replace_schema_texts(definition.function.parameters, filtered)
    if description == definition.function.description_for_llm and title == definition.title and (
        parameters == definition.function.parameters
    ):
        return definition
    mcp = {**definition.metadata["mcp"], "guarded": True}
    function = definition.function.model_copy(update={"description_for_llm": description, "parameters": parameters})
    return definition.model_copy(update={"function": function, "title": title, "metadata": {**definition.metadata,
                                                                                            "mcp": mcp}})


SCHEMA_TEXT_KEYS = ("description", "title")


def _schema_texts(schema: Any) -> Iterator[str]:
    """The descriptions and titles in a JSON Schema, depth first (a property named ``title`` is a schema)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in SCHEMA_TEXT_KEYS and isinstance(value, str):
                yield value
            else:
                yield from _schema_texts(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _schema_texts(item)


def _replace_schema_texts(schema: Any, filtered: Iterator[str]) -> Any:
    if isinstance(schema, dict):
        return {
            key: next(filtered) if key in SCHEMA_TEXT_KEYS and isinstance(value, str)
            else _replace_schema_texts(value, filtered)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_replace_schema_texts(item, filtered) for item in schema]
    return schema


def definition_for(server: str, tool: dict[str, Any], tool_id: str) -> ToolDefinition:
    """The ToolDefinition of one MCP tool (as the server listed it)."""
    name = str(tool.get("name", ""))
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    title = tool.get("title") or (annotations or {}).get("title")
    description = str(tool.get("description") or title or "")
    schema = tool.get("inputSchema")
    parameters = dict(schema) if isinstance(schema, dict) else {"type": "object", "properties": {}}
    parameters.pop("$schema", None)
    metadata: dict[str, Any] = {"mcp": {"server": server, "tool": name}}
    if annotations:
        metadata["mcp"]["annotations"] = annotations
    if isinstance(tool.get("outputSchema"), dict):
        metadata["mcp"]["output_schema"] = tool["outputSchema"]
    # The model calls the tool by its id: two servers may both offer "echo", and a model must never see
    # two tools of one name. The server's own name is kept in the metadata and used for the MCP call.
    return ToolDefinition(
        id=tool_id,
        implementation_key=tool_id,
        function=FunctionSpec(name=tool_id, description_for_llm=description, parameters=parameters),
        title=str(title) if title else None,
        metadata=metadata,
    )


def unsupported_feature(tool: dict[str, Any]) -> str | None:
    """Why toolplug cannot run this tool (a client feature it does not offer), or None."""
    execution = tool.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") == UNSUPPORTED_TASK_SUPPORT:
        return "the tool requires task-augmented execution (MCP tasks), which toolplug does not offer"
    meta = tool.get("_meta")
    if isinstance(meta, dict):
        needs = meta.get("requiredClientCapabilities") or meta.get("io.modelcontextprotocol/requires")
        if isinstance(needs, list | dict):
            missing = sorted(str(item) for item in needs if str(item) in ("sampling", "elicitation", "roots", "tasks"))
            if missing:
                return f"the tool requires the client features {', '.join(missing)}, which toolplug does not offer"
    return None


def describe_change(definition: ToolDefinition, pin: str | PinnedFingerprint) -> str:
    """The diagnostic of a definition whose fingerprint differs from the approved one."""
    actual = definition.fingerprint()
    expected = pin.fingerprint if isinstance(pin, PinnedFingerprint) else pin
    function = definition.function
    message = (
        f"refused: the definition changed since the admin approved it (pinned fingerprint {expected}, now {actual})"
    )
    now = {
        "name": function.name,
        "description": function.description_for_llm,
        "parameters": json.dumps(function.parameters, sort_keys=True),
        "title": definition.title,
        "metadata": json.dumps(definition.metadata, sort_keys=True),
    }
    if isinstance(pin, PinnedFingerprint) and pin.fields:
        current = field_fingerprints(definition)
        changed = [key for key, value in current.items() if pin.fields.get(key) != value]
        details = "; ".join(f"{key} changed, now: {_short(now[key])}" for key in changed)
        message += f". Changed: {details or 'parts not covered by the pinned fields'}"
    else:
        message += (
            f". Now: description {_short(now['description'])}; parameters {_short(now['parameters'])}"
            " (pin the per-part fingerprints from `toolplug mcp pins` to see which part changed)"
        )
    return message + ". Review the tool, then update the pin in [mcp.servers.*.pinned]."


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...'"


__all__ = [
    "McpDefinitionSource",
    "McpServerConnection",
    "McpToolImplementation",
    "close_all_connections",
    "definition_for",
    "describe_change",
    "field_fingerprints",
    "open_connection",
    "tool_id_for",
    "unsupported_feature",
]

"""Every exception toolplug raises, in one tree.

::

    ToolplugError
    ├── UsageError                      the host developer's or admin's mistake
    │   ├── ConfigError                 a bad host config file (names the key and the file)
    │   ├── InvalidArgumentError        a bad argument to a toolplug function
    │   ├── UnknownToolError            a tool id the registry does not know
    │   ├── ToolNotRunnableError        a tool the selector left out (carries the reasons)
    │   ├── ModelRequestsDisabledError  a real provider request while they are switched off (tests)
    │   └── SettingsError               a setting that cannot be read or stored
    │       ├── KeyringUnavailableError no OS keyring backend for secrets
    │       └── SecretTooShortError     a secret too short to be scrubbed safely, refused
    ├── PluginError                     a plugin's fault
    │   ├── PluginLoadError             import failed, a hook raised or returned the wrong type
    │   └── DefinitionError             a tool definition the registry rejected
    ├── ToolExecutionBlockedError       a tool refused on purpose (policy); its message goes to the model
    ├── ToolExecutionFailedError        a tool's ordinary, explained failure (a 404, a refused connection)
    ├── ToolFailedError                 a tool raised and its message held a secret (scrubbed copy)
    ├── ToolResultError                 a tool returned a value that cannot be serialised as JSON
    ├── ToolCallError                   a model's tool call that cannot run
    │   ├── NoSuchToolError
    │   ├── InvalidToolInputError
    │   ├── ToolCallRepairError
    │   ├── ToolInputRefineError
    │   └── ToolChoiceViolationError
    └── ProviderError                   a provider API failed (status, provider, request id, message)
        ├── ProviderConnectionError     nothing answered
        ├── ProviderHTTPError           a non-2xx answer
        │   ├── ProviderAuthenticationError   401/403
        │   └── ProviderRateLimitError        429 after the retries
        └── ProviderResponseError       an answer that does not fit the API's shape

Lower exceptions are translated at the boundary with ``raise ... from exc`` so the original stays chained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolplug.definitions import ToolExecutionResult
    from toolplug.loop import LoopResult


class ToolplugError(Exception):
    """Base of every toolplug exception."""


# --- the host developer's or admin's mistakes -------------------------------------------------


class UsageError(ToolplugError):
    """The host developer or admin asked for something that cannot work."""


class ConfigError(UsageError):
    """The host config is invalid. The message names the file and the key."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.key = key


class InvalidArgumentError(UsageError, ValueError):
    """A toolplug function got an argument it cannot accept."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"Invalid argument for {parameter}: {message}")
        self.parameter = parameter


class UnknownToolError(UsageError, LookupError):
    """No tool with this id is registered."""

    def __init__(self, tool_id: str, known: Sequence[str] = ()) -> None:
        hint = f" Known tools: {', '.join(sorted(known))}." if known else " No tools are registered."
        super().__init__(f"Unknown tool {tool_id!r}.{hint}")
        self.tool_id = tool_id


class ToolNotRunnableError(UsageError):
    """The selector left this tool out; ``reasons`` says why."""

    def __init__(self, tool_id: str, reasons: Sequence[str]) -> None:
        super().__init__(f"Tool {tool_id!r} cannot run here: {'; '.join(reasons)}")
        self.tool_id = tool_id
        self.reasons = list(reasons)


class SettingsError(UsageError):
    """A tool setting cannot be read, validated or stored."""


class ModelRequestsDisabledError(UsageError):
    """A real provider request was about to be sent while model requests are switched off (in tests)."""


class KeyringUnavailableError(SettingsError):
    """Secrets need an OS keyring backend and none is available."""


class SecretTooShortError(SettingsError):
    """A secret shorter than toolplug can scrub from output without mangling text; it is refused."""

    def __init__(self, where: str, length: int, minimum: int) -> None:
        super().__init__(
            f"{where[:1].upper()}{where[1:]} is {length} characters long; toolplug refuses secrets shorter than "
            f"{minimum} characters, because a value that short cannot be removed from output without "
            "mangling ordinary text. Use the full credential."
        )
        self.length = length
        self.minimum = minimum


# --- plugin faults ---------------------------------------------------------------------------


class PluginError(ToolplugError):
    """A plugin misbehaved."""


class PluginLoadError(PluginError):
    """A plugin failed to import, a hook raised, or a hook returned something malformed."""

    def __init__(self, plugin: str, message: str, *, hook: str | None = None) -> None:
        where = f" in hook {hook}" if hook else ""
        super().__init__(f"Plugin {plugin!r}{where}: {message}")
        self.plugin = plugin
        self.hook = hook
        self.reason = message


class DefinitionError(PluginError):
    """A tool definition the registry rejected."""

    def __init__(self, tool_id: str, field: str, message: str, *, plugin: str | None = None) -> None:
        owner = f" (plugin {plugin!r})" if plugin else ""
        super().__init__(f"Tool {tool_id!r}{owner}, field {field}: {message}")
        self.tool_id = tool_id
        self.field = field
        self.plugin = plugin


# --- tools -----------------------------------------------------------------------------------


class ToolExecutionBlockedError(ToolplugError):
    """Raise from a tool to refuse a call on purpose (a policy block).

    The message is sent to the model as plain text and the trace is recorded as ``blocked``.
    Never put a secret in it. ``result``: what the model reads instead of the message (e.g. a JSON
    error document with an error code), when the tool has one.
    """

    def __init__(self, message: str, *, result: ToolExecutionResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class ToolExecutionFailedError(ToolplugError):
    """Raise from a tool for an ordinary failure it has explained: a page that answered 404, a refused
    connection, a timeout.

    The call is recorded as ``error`` and the message (or ``result``) reaches the model, like any other
    failure, but no traceback is logged: nothing is broken. Never put a secret in it.
    """

    def __init__(self, message: str, *, result: ToolExecutionResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class ToolFailedError(ToolplugError):
    """Stands in for a tool's exception whose message contained a secret; the message is scrubbed."""

    original_type: str = ""
    """The name of the exception type it stands in for."""


class ToolResultError(ToolplugError):
    """A tool returned a value that cannot be serialised as JSON (bytes, an unknown object, a cycle)."""


class ToolCallError(ToolplugError):
    """A tool call from the model that cannot be executed as it stands."""

    def __init__(self, message: str, *, tool_name: str | None = None, tool_call_id: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id

    @property
    def error_name(self) -> str:
        """The name the model sees in front of the message."""
        return type(self).__name__


class NoSuchToolError(ToolCallError):
    """The model called a tool that was not offered."""

    def __init__(self, tool_name: str, available_tools: Sequence[str] | None, *, tool_call_id: str | None = None):
        hint = f"Available tools: {', '.join(available_tools)}." if available_tools else "No tools are available."
        super().__init__(
            f"Model tried to call unavailable tool {tool_name!r}. {hint}",
            tool_name=tool_name,
            tool_call_id=tool_call_id,
        )
        self.available_tools = None if available_tools is None else list(available_tools)


class InvalidToolInputError(ToolCallError):
    """The arguments are not JSON or do not match the tool's schema."""

    def __init__(self, tool_name: str, tool_input: str, reason: str, *, tool_call_id: str | None = None):
        super().__init__(
            f"Invalid input for tool {tool_name!r}: {reason}", tool_name=tool_name, tool_call_id=tool_call_id
        )
        self.tool_input = tool_input
        self.reason = reason


class ToolCallRepairError(ToolCallError):
    """The repair function failed while repairing an invalid call."""

    def __init__(self, original: ToolCallError, cause: BaseException):
        super().__init__(
            f"Error repairing tool call: {type(cause).__name__}: {cause}",
            tool_name=original.tool_name,
            tool_call_id=original.tool_call_id,
        )
        self.original_error = original


class ToolInputRefineError(ToolCallError):
    """A ``refine_tool_input`` function raised while refining a valid call; the call did not run."""

    def __init__(self, tool_name: str, tool_call_id: str | None, cause: BaseException):
        super().__init__(
            f"Error refining the input of tool {tool_name!r}: {type(cause).__name__}: {cause}",
            tool_name=tool_name,
            tool_call_id=tool_call_id,
        )


class ToolChoiceViolationError(ToolCallError):
    """The model called a tool the tool choice did not allow; the call was not executed."""

    partial_result: LoopResult | None = None
    """Set by the loop: the steps taken before the violating round (stop reason ``provider-error``)."""


# --- provider failures -----------------------------------------------------------------------


class ProviderError(ToolplugError):
    """A provider API call failed. Never carries the API key."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
    ) -> None:
        parts = [f"provider {provider}" if provider else None, f"HTTP {status}" if status else None]
        parts.append(f"request {request_id}" if request_id else None)
        prefix = ", ".join(p for p in parts if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.provider = provider
        self.status = status
        self.request_id = request_id
        self.body_message = message
        self.partial_result: LoopResult | None = None
        """Set by the loop when a round fails: the steps taken before it (stop reason ``provider-error``)."""


class ProviderConnectionError(ProviderError):
    """The provider could not be reached or did not answer in time."""


class ProviderHTTPError(ProviderError):
    """The provider answered with a non-2xx status."""


class ProviderAuthenticationError(ProviderHTTPError):
    """The provider refused the credentials (401/403)."""


class ProviderRateLimitError(ProviderHTTPError):
    """The provider kept answering 429 after every retry."""


class ProviderResponseError(ProviderError):
    """The provider's answer does not have the shape its API documents."""


__all__ = [
    "ConfigError",
    "DefinitionError",
    "InvalidArgumentError",
    "InvalidToolInputError",
    "KeyringUnavailableError",
    "ModelRequestsDisabledError",
    "NoSuchToolError",
    "PluginError",
    "PluginLoadError",
    "ProviderAuthenticationError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderRateLimitError",
    "ProviderResponseError",
    "SecretTooShortError",
    "SettingsError",
    "ToolCallError",
    "ToolCallRepairError",
    "ToolChoiceViolationError",
    "ToolExecutionBlockedError",
    "ToolExecutionFailedError",
    "ToolFailedError",
    "ToolInputRefineError",
    "ToolNotRunnableError",
    "ToolResultError",
    "ToolplugError",
    "UnknownToolError",
    "UsageError",
]

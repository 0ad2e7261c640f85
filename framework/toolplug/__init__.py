"""toolplug: a framework for tools that language models call.

The loop, the conversation types and the host are imported on first use, so ``import toolplug``
stays cheap for a plugin that only defines tools.
"""

from typing import TYPE_CHECKING, Any

from toolplug.definitions import (
    ConfidenceLevel,
    FunctionSpec,
    GrammarSpec,
    OutputType,
    ProviderToolSpec,
    SettingKind,
    SettingsField,
    SettingsSchema,
    Source,
    ToolDefinition,
    ToolExecutionResult,
    ToolKind,
    Visibility,
)
from toolplug.errors import (
    ConfigError,
    DefinitionError,
    InvalidArgumentError,
    InvalidToolInputError,
    KeyringUnavailableError,
    NoSuchToolError,
    PluginError,
    PluginLoadError,
    ProviderAuthenticationError,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimitError,
    ProviderResponseError,
    SettingsError,
    ToolCallError,
    ToolCallRepairError,
    ToolChoiceViolationError,
    ToolExecutionBlockedError,
    ToolExecutionFailedError,
    ToolInputRefineError,
    ToolNotRunnableError,
    ToolplugError,
    UnknownToolError,
    UsageError,
)
from toolplug.execution import (
    CallScope,
    CallStatus,
    ToolCallOutcome,
    ToolExecutionContext,
    ToolExecutor,
    ToolTrace,
)
from toolplug.hookspecs import hookimpl
from toolplug.registry import CodeDefinitionSource, DefinitionSource, Diagnostic, RegisteredTool, ToolRegistry
from toolplug.schema import ToolParameterSchemaBuilder, ToolSettingsSchemaBuilder, to_openai_strict
from toolplug.settings import Option, OptionSource, ToolSettingsService
from toolplug.tools import (
    FunctionTool,
    ToolImplementation,
    custom_tool,
    dynamic_tool,
    function_tool,
    provider_defined_tool,
    tool,
)

__version__ = "0.1.0"

_LAZY = {
    "Agent": "toolplug.loop",
    "AssistantMessage": "toolplug.messages",
    "Host": "toolplug.host",
    "LoopOptions": "toolplug.loop",
    "LoopResult": "toolplug.loop",
    "StepResult": "toolplug.loop",
    "SystemMessage": "toolplug.messages",
    "ToolCallingLoop": "toolplug.loop",
    "ToolChoice": "toolplug.calls",
    "ToolMessage": "toolplug.messages",
    "UIMessageStreamReader": "toolplug.ui_stream",
    "UserMessage": "toolplug.messages",
    "convert_to_model_messages": "toolplug.messages",
    "generate_text": "toolplug.loop",
    "has_tool_call": "toolplug.loop",
    "loop_finished": "toolplug.loop",
    "prune_messages": "toolplug.messages",
    "read_ui_message": "toolplug.ui_stream",
    "step_count_is": "toolplug.loop",
    "stream_text": "toolplug.loop",
    "to_ui_message_stream": "toolplug.ui_stream",
    "ui_message_stream_sse": "toolplug.ui_stream",
}

if TYPE_CHECKING:
    from toolplug.calls import ToolChoice
    from toolplug.host import Host
    from toolplug.loop import (
        Agent,
        LoopOptions,
        LoopResult,
        StepResult,
        ToolCallingLoop,
        generate_text,
        has_tool_call,
        loop_finished,
        step_count_is,
        stream_text,
    )
    from toolplug.messages import (
        AssistantMessage,
        SystemMessage,
        ToolMessage,
        UserMessage,
        convert_to_model_messages,
        prune_messages,
    )
    from toolplug.ui_stream import (
        UIMessageStreamReader,
        read_ui_message,
        to_ui_message_stream,
        ui_message_stream_sse,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolplug' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Agent",
    "AssistantMessage",
    "CallScope",
    "CallStatus",
    "CodeDefinitionSource",
    "ConfidenceLevel",
    "ConfigError",
    "DefinitionError",
    "DefinitionSource",
    "Diagnostic",
    "FunctionSpec",
    "FunctionTool",
    "GrammarSpec",
    "Host",
    "InvalidArgumentError",
    "InvalidToolInputError",
    "KeyringUnavailableError",
    "LoopOptions",
    "LoopResult",
    "NoSuchToolError",
    "Option",
    "OptionSource",
    "OutputType",
    "PluginError",
    "PluginLoadError",
    "ProviderAuthenticationError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderRateLimitError",
    "ProviderResponseError",
    "ProviderToolSpec",
    "RegisteredTool",
    "SettingKind",
    "SettingsError",
    "SettingsField",
    "SettingsSchema",
    "Source",
    "StepResult",
    "SystemMessage",
    "ToolCallError",
    "ToolCallOutcome",
    "ToolCallRepairError",
    "ToolCallingLoop",
    "ToolChoice",
    "ToolChoiceViolationError",
    "ToolDefinition",
    "ToolExecutionBlockedError",
    "ToolExecutionContext",
    "ToolExecutionFailedError",
    "ToolExecutionResult",
    "ToolExecutor",
    "ToolImplementation",
    "ToolInputRefineError",
    "ToolKind",
    "ToolMessage",
    "ToolNotRunnableError",
    "ToolParameterSchemaBuilder",
    "ToolRegistry",
    "ToolSettingsSchemaBuilder",
    "ToolSettingsService",
    "ToolTrace",
    "ToolplugError",
    "UIMessageStreamReader",
    "UnknownToolError",
    "UsageError",
    "UserMessage",
    "Visibility",
    "__version__",
    "convert_to_model_messages",
    "custom_tool",
    "dynamic_tool",
    "function_tool",
    "generate_text",
    "has_tool_call",
    "hookimpl",
    "loop_finished",
    "provider_defined_tool",
    "prune_messages",
    "read_ui_message",
    "step_count_is",
    "stream_text",
    "to_openai_strict",
    "to_ui_message_stream",
    "tool",
    "ui_message_stream_sse",
]

"""The ``toolplug`` command. Scriptable: ``--json`` prints exactly the documented shapes.

Exit codes: 0 success, 1 a finding (failed call, diagnostics), 2 bad usage or configuration.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from toolplug.cli_errors import fail, reporting_errors, set_debug
from toolplug.cli_errors import handles_errors as handles_errors  # commands of plugins use it
from toolplug.errors import InvalidToolInputError, ToolNotRunnableError, ToolplugError, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolplug.chat import ChatResult, ChatStreamPrinter
    from toolplug.definitions import Source
    from toolplug.host import Host
    from toolplug.plugins import PluginRecord

logger = logging.getLogger("toolplug.cli")


def _emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


_fail = fail


class HostContext:
    """Builds the host once per command, from the group's ``--config``."""

    def __init__(self, config_path: str | None) -> None:
        self.config_path = config_path
        self._host: Host | None = None

    @property
    def host(self) -> Host:
        """The host, built on first use and closed when the command ends (MCP connections and the like)."""
        if self._host is None:
            from toolplug.console import start_up_phase
            from toolplug.host import Host

            with start_up_phase():
                self._host = Host.from_config(self.config_path)
            context = click.get_current_context(silent=True)
            if context is not None:
                context.find_root().call_on_close(self._host.close)
        return self._host


pass_host = click.make_pass_decorator(HostContext)


class PluginCommandGroup(click.Group):
    """The root group; commands that plugins add (``register_commands``) are loaded on first need.

    They are read only once the config is known (``--config`` or ``$TOOLPLUG_CONFIG``), so a plugin the
    config denies is never imported, not even by ``--help`` or shell completion. They live in the
    invocation, never in this group: a built-in command cannot be replaced, and a long-lived process
    sees each invocation's own config.
    """

    _COMMANDS = "toolplug.plugin_commands"
    _CONFIG_ARGUMENT = "toolplug.config_argument"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Eager options such as --help run before --config is processed: read it from the arguments first.
        ctx.meta[self._CONFIG_ARGUMENT] = _config_argument(args)
        return super().parse_args(ctx, args)

    def _plugin_commands(self, ctx: click.Context) -> dict[str, click.Command]:
        root = ctx.find_root()
        commands: dict[str, click.Command] | None = root.meta.get(self._COMMANDS)
        if commands is None:
            path = root.params.get("config_path") or root.meta.get(self._CONFIG_ARGUMENT)
            commands = root.meta[self._COMMANDS] = load_plugin_commands(path, reserved=self.commands)
        return commands

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self._plugin_commands(ctx).get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugin_commands(ctx)})

    def invoke(self, ctx: click.Context) -> Any:
        # Every command, a plugin's too, fails with one line (a traceback only with --debug).
        return reporting_errors(super().invoke, ctx)


def _config_argument(args: list[str]) -> str | None:
    """The value of the root group's ``--config`` in ``args`` (which ends at the subcommand's name)."""
    for index, argument in enumerate(args):
        if argument == "--config":
            return args[index + 1] if index + 1 < len(args) else None
        if argument.startswith("--config="):
            return argument.removeprefix("--config=")
        if argument == "--" or not argument.startswith("-"):
            return None
    return None


def load_plugin_commands(
    config_path: str | None, *, reserved: Mapping[str, click.Command] = {}
) -> dict[str, click.Command]:
    """The commands the allowed plugins add, each under the name no earlier plugin took.

    A command named like a ``reserved`` (built-in) one, or like an earlier plugin's, is left out with a
    warning naming both; the plugin's other commands stay. An unreadable config loads no plugin at all
    (the command itself then reports the config error).
    """
    from toolplug.config_paths import read_plugin_deny
    from toolplug.plugins import PluginManager

    try:
        deny = read_plugin_deny(config_path)  # the deny list only: no validation models for --help
    except ToolplugError:
        return {}
    manager = PluginManager(deny=deny)
    manager.load_entry_points()
    scratch: dict[str, click.Group] = {}

    def group_for(record: PluginRecord) -> dict[str, Any]:
        scratch[record.name] = click.Group(record.name)
        return {"cli": scratch[record.name]}

    returned = manager.call("register_commands", arguments_for=group_for)
    owners: dict[str, str] = {}
    commands: dict[str, click.Command] = {}
    for name, group in scratch.items():
        record = manager.records[name]
        if record.status != "loaded":
            continue
        offered = dict(group.commands)
        for extra in (c.item for c in returned if c.plugin is record and isinstance(c.item, click.Command)):
            offered.setdefault(extra.name or "", extra)
        for command_name, command in offered.items():
            taken_by = "toolplug (built-in)" if command_name in reserved else owners.get(command_name)
            if taken_by is not None:
                logger.warning(
                    "Plugin %r (%s) command %r left out: the name belongs to %s",
                    name, record.distribution, command_name, taken_by,
                )
                continue
            owners[command_name] = f"plugin {name!r} ({record.distribution})"
            commands[command_name] = command
    return commands


@click.group(cls=PluginCommandGroup)
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), envvar="TOOLPLUG_CONFIG",
    help="The host config file (TOML). Default: $TOOLPLUG_CONFIG, else ~/.config/toolplug/config.toml if it exists.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logs when something fails.")
@click.version_option(package_name="toolplug")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, debug: bool) -> None:
    """toolplug: tools that language models call, from plugins, under one policy."""
    set_debug(ctx, debug)
    ctx.obj = HostContext(config_path)
    _scrub_output(ctx)


def _scrub_output(ctx: click.Context) -> None:
    """Everything the command prints passes the secret scrubber, plugin commands included."""
    from toolplug.secrets import ScrubbingStream

    stdout, stderr = sys.stdout, sys.stderr
    scrubbed_out, scrubbed_err = ScrubbingStream(stdout), ScrubbingStream(stderr)
    sys.stdout, sys.stderr = scrubbed_out, scrubbed_err

    def restore() -> None:
        scrubbed_out.release()
        scrubbed_err.release()
        sys.stdout, sys.stderr = stdout, stderr

    ctx.call_on_close(restore)


def _read_secret(prompt: str) -> str:
    """A secret from a hidden prompt, or all of stdin (a multi-line PEM key stays whole)."""
    if sys.stdin.isatty():
        return str(click.prompt(prompt, hide_input=True))
    value = sys.stdin.read()
    if value.endswith("\r\n"):
        return value[:-2]
    return value[:-1] if value.endswith("\n") else value


# --- plugins, tools, check ---------------------------------------------------------------------------


@cli.command()
@click.option("--all", "show_all", is_flag=True, help="Include the built-in plugins.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_host
@handles_errors
def plugins(state: HostContext, show_all: bool, as_json: bool) -> None:
    """List the plugins: name, distribution, version, hooks, status and reason."""
    records = state.host.plugin_records(include_builtin=show_all)
    if as_json:
        _emit_json([r.as_dict() for r in records])
        return
    if not records:
        click.echo("No plugins installed." + ("" if show_all else " (--all shows the built-in ones)"))
    for record in records:
        origin = f"{record.distribution} {record.version}" if record.distribution else "registered directly"
        click.echo(f"{record.name}  [{record.status}]  {origin}")
        if record.hooks:
            click.echo(f"    hooks: {', '.join(record.hooks)}")
        if record.reason:
            click.echo(f"    {record.reason}")


@cli.command()
@click.argument("tool_id", required=False)
@click.option("--component", default="chat", show_default=True, help="The host component.")
@click.option("--provider", default=None, help="A provider id from the config (its confidence applies).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_host
@handles_errors
def tools(state: HostContext, tool_id: str | None, component: str, provider: str | None, as_json: bool) -> None:
    """List every tool with whether it is runnable here, and why not; TOOL: one tool in full."""
    if tool_id is not None:
        _show_tool(state.host, tool_id, component, provider, as_json)
        return
    statuses = state.host.tool_statuses(component, provider)
    if as_json:
        from toolplug.tool_details import tool_details

        _emit_json([s.as_dict() | tool_details(state.host, s) for s in statuses])
        return
    if not statuses:
        click.echo("No tools are registered.")
    where = f"component '{component}'" + (f", provider '{provider}'" if provider else ", no provider")
    click.echo(f"Tools for {where}:")
    for status in statuses:
        marker = " (deferred: offered once a search finds it)" if status.deferred else ""
        click.echo(f"  {status.id}  ({status.plugin})  {status.status}{marker}")
        for reason in status.reasons:
            click.echo(f"      - {reason}")
    if any(reason.startswith("not configured") for status in statuses for reason in status.reasons):
        click.echo(
            "\nConfigure a tool with `toolplug settings set TOOL FIELD VALUE` (secrets: `toolplug settings secret`);"
            " `toolplug settings docs` lists every setting."
        )


def _show_tool(host: Host, tool_id: str, component: str, provider: str | None, as_json: bool) -> None:
    from toolplug.errors import UnknownToolError
    from toolplug.tool_details import render_tool, tool_details

    statuses = [s for s in host.tool_statuses(component, provider) if s.id == tool_id]
    if not statuses:
        raise UnknownToolError(tool_id, sorted({s.id for s in host.tool_statuses(component, provider)}))
    entries = [s.as_dict() | tool_details(host, s) for s in statuses]
    if as_json:
        _emit_json(entries[0] if len(entries) == 1 else entries)
        return
    click.echo("\n\n".join(render_tool(entry) for entry in entries))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--strict-report", "with_strict", is_flag=True,
    help="Also show, per provider, which tools go to OpenAI strict mode and what that loses.",
)
@pass_host
@handles_errors
def check(state: HostContext, as_json: bool, with_strict: bool) -> None:
    """Validate every plugin and tool definition; exit 1 when anything is wrong."""
    host = state.host
    findings = [d.as_dict() for d in host.diagnostics()]
    findings += [
        {"tool_id": "*", "plugin": r.name, "field": "plugin", "message": r.reason}
        for r in host.plugin_records() if r.status == "failed"
    ]
    report = _strict_report(host) if with_strict else None
    if as_json:
        _emit_json(findings if report is None else {"findings": findings, "strict_report": report})
    else:
        for finding in findings:
            click.echo(f"{finding['tool_id']} ({finding['plugin']}) {finding['field']}: {finding['message']}")
        if not findings:
            click.echo(f"All {len(host.registry)} tool definitions are valid.")
        if report is not None:
            _echo_strict_report(report)
    sys.exit(1 if findings else 0)


def _strict_report(host: Host) -> list[dict[str, Any]]:
    from toolplug.strict import strict_report

    apis = {name: provider.api for name, provider in host.config.providers.items()}
    # Without configured providers, report for each built-in API.
    return strict_report(host.registry, apis or {api: api for api in ("openai-chat", "openai-responses", "anthropic")})


def _echo_strict_report(report: list[dict[str, Any]]) -> None:
    click.echo("\nStrict mode per provider:")
    for provider in report:
        click.echo(f"  {provider['provider']} ({provider['api']}):")
        if not provider["strict_mode"]:
            click.echo("    no strict mode: every schema is sent as written")
            continue
        for tool in provider["tools"]:
            if not tool["strict_requested"]:
                click.echo(f"    {tool['tool_id']}: not strict (the definition does not ask for it)")
            elif not tool["strict"]:
                click.echo(f"    {tool['tool_id']}: sent without strict mode: {'; '.join(tool['unconvertible'])}")
            else:
                click.echo(f"    {tool['tool_id']}: strict" + ("" if tool["changes"] else ", exact"))
            for change in tool["changes"]:
                click.echo(f"      - {change}")


# --- call --------------------------------------------------------------------------------------------


@cli.command()
@click.argument("tool_id")
@click.option("--args", "arguments", default="{}", help="The arguments as a JSON object.")
@click.option("--component", default="chat", show_default=True)
@click.option("--provider", default=None, help="Run as if this provider's model asked (its confidence applies).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_host
@handles_errors
def call(state: HostContext, tool_id: str, arguments: str, component: str, provider: str | None, as_json: bool) -> None:
    """Run one tool, as a model's call would run it."""
    try:
        parsed = json.loads(arguments)
    except ValueError as exc:
        _fail(f"--args is not JSON: {exc}")
    if not isinstance(parsed, dict):
        _fail("--args must be a JSON object")
    host = state.host
    try:
        import asyncio

        outcome = asyncio.run(host.call_tool(tool_id, parsed, component=component, provider_id=provider))
    except InvalidToolInputError as exc:
        _fail(f"the arguments do not match the schema of {tool_id!r}: {exc.reason}")
    except ToolNotRunnableError as exc:
        if as_json:
            _emit_json({
                "status": "blocked", "output_type": "error-text", "text": str(exc), "json": None, "content": None,
                "display_content": None, "sources": [],
                "required_provider_confidence": None, "trace": None, "reasons": exc.reasons,
            })
        _fail(str(exc), 1)
    from toolplug.cli_output import render_result, result_payload

    result = outcome.result
    payload = result_payload(outcome)
    if as_json:
        _emit_json(payload)
    else:
        click.echo(render_result(result))
        _echo_sources(result.sources)
        _echo_guard_findings([(outcome.trace.tool_id, report) for report in outcome.trace.guard_reports])
        if outcome.status.value not in ("ok", "error"):  # a failure was already logged in one line
            click.echo(f"[{outcome.status.value}]", err=True)
    sys.exit(0 if outcome.status.value == "ok" else 1)


# --- settings ----------------------------------------------------------------------------------------


@cli.group()
def settings() -> None:
    """Read and write tool settings (plain values in the settings file, secrets in the OS keyring)."""


def _parse_setting_value(raw: str, value_type: str) -> Any:
    if value_type == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        raise UsageError(f"{raw!r} is not a valid {value_type}") from None


@settings.command("set")
@click.argument("tool_id")
@click.argument("field")
@click.argument("value")
@pass_host
@handles_errors
def settings_set(state: HostContext, tool_id: str, field: str, value: str) -> None:
    """Save a plain setting."""
    definition = state.host.tool(tool_id).definition
    schema_field = definition.settings_schema.field(field)
    value_type = schema_field.value_type if schema_field else "string"
    state.host.settings.set(definition, field, _parse_setting_value(value, value_type))
    click.echo(f"Saved {tool_id}.{field}.")


@settings.command("get")
@click.argument("tool_id")
@click.argument("field", required=False)
@click.option("--json", "as_json", is_flag=True)
@pass_host
@handles_errors
def settings_get(state: HostContext, tool_id: str, field: str | None, as_json: bool) -> None:
    """Show a tool's settings and where each value comes from; secrets are never printed."""
    host = state.host
    definition = host.tool(tool_id).definition
    values = host.settings.effective(definition, include_secrets=False)
    fields = [f for f in definition.settings_schema.fields if field is None or f.name == field]
    if field is not None and not fields:
        raise UsageError(f"Tool {tool_id!r} has no setting {field!r}.")
    rows = []
    for schema_field in fields:
        origin = host.settings.origin(definition, schema_field.name)
        is_secret = schema_field.kind.value == "secret"
        shown = ("(secret)" if origin in ("keyring", "environment") else None) if is_secret else (
            values.get(schema_field.name)
        )
        rows.append({"field": schema_field.name, "value": shown, "origin": origin, "secret": is_secret})
    if as_json:
        _emit_json([{k: v for k, v in row.items() if k != "secret"} for row in rows])
        return
    for row in rows:
        click.echo(f"{tool_id}.{row['field']} = {_shown_setting(tool_id, row)}")


def _shown_setting(tool_id: str, row: dict[str, Any]) -> str:
    if not row["secret"]:
        return f"{json.dumps(row['value'])}  ({row['origin']})"
    from toolplug.secrets import environment_variable

    variable = environment_variable(tool_id, row["field"])
    return {
        "keyring": "set (keyring)",
        "environment": f"set (environment)  from {variable}",
        "unavailable": f"not set (no OS keyring can be read; set {variable}, or install a keyring backend)",
    }.get(row["origin"], f"not set (`toolplug settings secret {tool_id} {row['field']}`, or set {variable})")


@settings.command("unset")
@click.argument("tool_id")
@click.argument("field")
@pass_host
@handles_errors
def settings_unset(state: HostContext, tool_id: str, field: str) -> None:
    """Remove the user's value (or the secret) of a setting."""
    state.host.settings.unset(state.host.tool(tool_id).definition, field)
    click.echo(f"Removed {tool_id}.{field}.")


@settings.command("secret")
@click.argument("tool_id")
@click.argument("field")
@pass_host
@handles_errors
def settings_secret(state: HostContext, tool_id: str, field: str) -> None:
    """Store a secret in the OS keyring, read from a hidden prompt or all of stdin (never from the command line).

    From stdin the value is kept whole, a multi-line PEM key included; one trailing newline is dropped.
    """
    definition = state.host.tool(tool_id).definition
    value = _read_secret(f"{tool_id}.{field}")
    state.host.settings.set_secret(definition, field, value)
    click.echo(f"Stored {tool_id}.{field} in the OS keyring.")


@settings.command("provider-key")
@click.argument("provider_id")
@pass_host
@handles_errors
def settings_provider_key(state: HostContext, provider_id: str) -> None:
    """Store a provider's API key in the OS keyring, read from stdin or a hidden prompt (never from argv)."""
    from toolplug.chat import PROVIDER_KEY_FIELD, provider_keyring_name

    host = state.host
    host.scope("chat" if "chat" in host.config.host.components else host.config.host.components[0], provider_id)
    value = _read_secret(f"API key for {provider_id}")
    if not value:
        raise UsageError("An empty API key cannot be stored.")
    host.settings.secrets.set("provider", f"{provider_id}.{PROVIDER_KEY_FIELD}", value)
    click.echo(f"Stored the API key of {provider_id} in the OS keyring ({provider_keyring_name(provider_id)}).")


@settings.command("docs")
@click.option("--json", "as_json", is_flag=True)
@pass_host
@handles_errors
def settings_docs(state: HostContext, as_json: bool) -> None:
    """Print the reference of every tool setting, generated from the definitions."""
    from toolplug.settings_docs import settings_reference, settings_reference_markdown

    reference = settings_reference(state.host)
    if as_json:
        _emit_json(reference)
    else:
        click.echo(settings_reference_markdown(reference))


# --- new ---------------------------------------------------------------------------------------------


@cli.command()
@click.argument("name")
@click.option(
    "--dir", "directory", default=".", show_default=True, type=click.Path(file_okay=False),
    help="The folder in which the package folder NAME is created.",
)
@handles_errors
def new(name: str, directory: str) -> None:
    """Create a new tool package NAME from the plugin template."""
    from toolplug.scaffold import render_plugin

    target = render_plugin(name, directory)
    click.echo(f"Created {target}")
    click.echo(f"Next: cd {target} && pip install -e '.[test]' && pytest && toolplug plugins")
    click.echo("(in the environment toolplug is installed in: the package depends on toolplug, found there)")


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": True})
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
@handles_errors
def install(arguments: tuple[str, ...]) -> None:
    """Install plugins PKG... into toolplug's own environment (pip options pass through).

    Refuses a package that would take the name of an installed plugin of another distribution.
    """
    from toolplug.install import install as install_packages

    sys.exit(install_packages(arguments))


# --- chat --------------------------------------------------------------------------------------------


@cli.command()
@click.argument("prompt", required=False)
@click.option("--system", default=None, help="A system prompt for the model (the tools' instructions follow it).")
@click.option("--provider", default=None, help="A provider id from the config (default: the first configured).")
@click.option("--component", default="chat", show_default=True, help="The host component.")
@click.option("--stream", is_flag=True, help="Print the answer as it arrives.")
@click.option(
    "--tool-choice",
    default=None,
    metavar="auto|none|required|TOOL",
    help="What the model may call: auto, none, required, or one tool (by id). Default: the provider's "
    "tool_choice, else auto.",
)
@click.option(
    "--record",
    "record_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Write every HTTP exchange (retries included) to DIR as numbered JSON files (API keys redacted).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@pass_host
@handles_errors
def chat(
    state: HostContext,
    prompt: str | None,
    system: str | None,
    provider: str | None,
    component: str,
    stream: bool,
    tool_choice: str | None,
    record_dir: str | None,
    as_json: bool,
) -> None:
    """Ask the model PROMPT with the runnable tools; print the answer and the sources used by tools.

    Without PROMPT: a conversation, one line a turn (from the terminal or a pipe); /exit or Ctrl-D ends it.

    Exits 1 when the run ended without an answer (a limit, a result the provider may not see, a call
    left for the caller) or the provider failed; what already happened is printed all the same.
    """
    if prompt is None:
        if as_json:
            raise UsageError("--json needs a PROMPT; a conversation prints its answers as text.")
        from toolplug.interactive import run_interactive

        run_interactive(
            state.host, provider_id=provider, component=component, system=system, stream=stream,
            record_dir=record_dir, chat_options={"tool_choice": tool_choice},
        )
        return
    from toolplug.chat import ChatStreamPrinter

    printer = ChatStreamPrinter(lambda text: click.echo(text, nl=False))
    options = {"provider_id": provider, "component": component, "stream": stream, "record_dir": record_dir,
               "tool_choice": tool_choice, "system": system}
    result = _run_one_chat(state.host, prompt, printer if stream and not as_json else None, as_json, options)
    if as_json:
        _emit_json(result.as_dict())
    else:
        _echo_answer(result, printer)
    notice = result.stop_notice()
    if notice is not None:
        click.echo(notice, err=True)
    if not result.answered:
        sys.exit(1)


def _run_one_chat(
    host: Host, prompt: str, printer: ChatStreamPrinter | None, as_json: bool, options: dict[str, Any]
) -> ChatResult:
    """One chat run; a provider failure prints what already happened and exits 1."""
    import asyncio
    import traceback

    from toolplug.chat import partial_chat_error, run_host_chat
    from toolplug.cli_errors import debugging
    from toolplug.errors import ProviderError, ToolChoiceViolationError

    try:
        return asyncio.run(run_host_chat(host, prompt, on_event=printer, **options))
    except (ProviderError, ToolChoiceViolationError) as exc:
        if printer is not None and printer.printed:
            click.echo()
        if debugging():
            click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
        report, lines = partial_chat_error(exc)
        if as_json:
            _emit_json(report)
        for line in lines:
            click.echo(line, err=True)
        sys.exit(1)


def _echo_answer(result: ChatResult, printer: ChatStreamPrinter) -> None:
    """The answer (unless it streamed already), the sources, the tool searches and the guard's findings."""
    if printer.printed:
        # the answer is the last step's text; earlier steps streamed text before their tool calls
        if result.text and not printer.text_of_last_step.endswith(result.text):
            click.echo(f"\n{result.text}", nl=False)
        click.echo()
    elif result.text:
        click.echo(result.text)
    _echo_sources(result.sources)
    for search in result.loop_result.tool_searches:
        found = ", ".join(search.found) or "nothing"
        click.echo(f"Searched tools: {search.query!r} → {found}")
    _echo_guard_findings(result.loop_result.guard_reports)


def _echo_sources(sources: Sequence[Source]) -> None:
    if sources:
        click.echo("\nSources used by tools:")
        for source in sources:
            click.echo(f"  - {source.title or source.url}: {source.url}")


def _echo_guard_findings(reports: list[tuple[str, Any]]) -> None:
    """After the answer: what the prompt-injection guard neutralised, per source."""
    from toolplug.guard import describe_findings

    lines = describe_findings(reports)
    if lines:
        click.echo("\nPrompt-injection guard:")
        for line in lines:
            click.echo(f"  - {line}")


# --- web ---------------------------------------------------------------------------------------------

from toolplug.webui.command import web  # noqa: E402  (the command lives with the chat page it serves)

cli.add_command(web)


# --- entry point -------------------------------------------------------------------------------------

from toolplug.cli_config import config_group  # noqa: E402  (a command group of its own module)

cli.add_command(config_group)


def main() -> None:
    """Run the ``toolplug`` command."""
    cli(prog_name="toolplug")


if __name__ == "__main__":
    main()

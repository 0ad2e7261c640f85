"""``toolplug config``: which config file is in effect, and a commented starter file to begin with."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from toolplug.cli_errors import handles_errors
from toolplug.errors import UsageError

ORIGINS = {"argument": "--config", "environment": "$TOOLPLUG_CONFIG", "default": "the default location"}

STARTER_CONFIG = """\
# The toolplug host config. Every key is optional; the built-in defaults apply to what is left out.
# The reference of every key: the admin guide (docs/admin-guide.md); check a change with `toolplug check`.

# A model provider for `toolplug chat`. Store its API key with `toolplug settings provider-key openai`,
# or name an environment variable that holds it with api_key_env.
# [providers.openai]
# api = "openai-chat"            # or "openai-responses", "anthropic"
# model = "gpt-4o-mini"
# confidence = "low"             # how far this provider is trusted with data: unknown, low, medium, high
# api_key_env = "OPENAI_API_KEY"

# A local OpenAI-compatible server usually needs no key.
# [providers.local]
# api = "openai-chat"
# model = "qwen3"
# base_url = "http://127.0.0.1:8000/v1"
# confidence = "high"

# The host's components; `chat` is the one the CLI uses.
# [host]
# components = ["chat", "assistants"]

# Plugins that are never imported, and per-component policies (deny wins).
# [plugins]
# deny = ["some_plugin"]
# [plugins.components.assistants]
# allow = ["web"]

# Admin values of a tool's settings: locked ones win over the user's, defaults pre-fill.
# `toolplug settings docs` lists every setting. Secrets never go here.
# [tools.web_search]
# locked = { searxng_url = "http://127.0.0.1:8888" }
# defaults = { result_limit = 5 }

# The chat's tool-calling limits.
# [limits]
# max_tool_calls = 20
# max_tool_result_characters = 100000
# max_steps = 30
"""


@click.group("config")
def config_group() -> None:
    """Show which config file is in effect, or write a starter file."""


def _config_option(ctx: click.Context) -> str | None:
    root = ctx.find_root()
    if root.get_parameter_source("config_path") is not click.core.ParameterSource.COMMANDLINE:
        return None  # $TOOLPLUG_CONFIG (which click also reads) is named as such
    value = root.params.get("config_path")
    return None if value is None else str(value)


@config_group.command("path")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: path, origin, exists.")
@click.pass_context
@handles_errors
def config_path(ctx: click.Context, as_json: bool) -> None:
    """Print the config file in effect (--config, else $TOOLPLUG_CONFIG, else the default location)."""
    from toolplug.config_paths import config_path_in_effect

    file, origin = config_path_in_effect(_config_option(ctx))
    exists = file.is_file()
    if as_json:
        click.echo(json.dumps({"path": str(file), "origin": origin, "exists": exists}))
        return
    click.echo(str(file))
    note = f"from {ORIGINS[origin]}"
    if not exists:
        note += "; the file does not exist" + (
            ", so the built-in defaults apply (`toolplug config init` writes one)" if origin == "default" else ""
        )
    click.echo(f"({note})", err=True)


@config_group.command("init")
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@click.pass_context
@handles_errors
def config_init(ctx: click.Context, force: bool) -> None:
    """Write a commented starter config to the file in effect (refuses to overwrite one without --force)."""
    from toolplug.config_paths import config_path_in_effect

    file, _origin = config_path_in_effect(_config_option(ctx))
    if file.exists() and not force:
        raise UsageError(f"{file} already exists; pass --force to overwrite it.")
    if file.is_dir():
        raise UsageError(f"{file} is a folder, not a config file.")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(file, STARTER_CONFIG)
    except OSError as exc:
        raise UsageError(f"cannot write {file}: {exc}") from exc
    click.echo(f"Wrote {file}. Uncomment a provider, then try: toolplug chat")


def _write_atomically(file: Path, text: str) -> None:
    # A crash half-way must not leave a truncated config where a good one was (with --force).
    partial = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, file)
    finally:
        partial.unlink(missing_ok=True)


__all__ = ["STARTER_CONFIG", "config_group"]

"""Where the host config is read from, and the one key read before anything else: the plugin deny list.

Kept apart from :mod:`toolplug.config` so commands that never build a host (``toolplug --help``,
``toolplug config path``) do not pay for the validation models.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolplug.errors import ConfigError

CONFIG_ENV = "TOOLPLUG_CONFIG"
CONFIG_FILE_NAME = "config.toml"


def default_config_path() -> Path:
    """The config file used when neither a path nor ``$TOOLPLUG_CONFIG`` is given (it may not exist)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        base = Path(xdg)
    elif os.name == "nt":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path.home() / ".config"
    return base / "toolplug" / CONFIG_FILE_NAME


def config_path_in_effect(path: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """The config file :func:`load_config` reads for ``path``, and why: ``argument``, ``environment`` or ``default``.

    For ``default`` the file may not exist; then the built-in defaults apply.
    """
    if path is not None and str(path):
        return Path(path), "argument"
    from_env = os.environ.get(CONFIG_ENV)
    if from_env:
        return Path(from_env), "environment"
    return default_config_path(), "default"


def config_locations_hint(path: str | os.PathLike[str] | None = None) -> str:
    """One sentence naming where the config is read from, and which file is in effect now."""
    file, _origin = config_path_in_effect(path)
    state = "" if file.is_file() else ", which does not exist yet"
    return (
        f"toolplug reads its config from --config FILE, else ${CONFIG_ENV}, else {default_config_path()}; "
        f"now: {file}{state} (`toolplug config init` writes a commented starter file)."
    )


def read_plugin_deny(path: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """The ``[plugins] deny`` list of the config in effect, read without validating the rest.

    Raises ConfigError when the file cannot be read or the list is not a list of names; a missing
    default file denies nothing. The full validation happens when a command builds its host.
    """
    file, origin = config_path_in_effect(path)
    if origin == "default" and not file.is_file():
        return ()
    import tomllib  # only when there is a file to read

    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the config file: {exc}", path=str(file)) from exc
    plugins = data.get("plugins", {})
    deny = plugins.get("deny", ()) if isinstance(plugins, dict) else ()
    if not isinstance(deny, list | tuple) or not all(isinstance(name, str) for name in deny):
        raise ConfigError(f"{file}: plugins.deny: must be a list of plugin names", path=str(file), key="plugins.deny")
    return tuple(deny)


__all__ = [
    "CONFIG_ENV",
    "CONFIG_FILE_NAME",
    "config_locations_hint",
    "config_path_in_effect",
    "default_config_path",
    "read_plugin_deny",
]

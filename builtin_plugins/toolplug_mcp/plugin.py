"""The entry point of the built-in MCP plugin."""

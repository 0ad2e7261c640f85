"""toolplug's MCP client and server."""

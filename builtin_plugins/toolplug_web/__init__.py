"""toolplug's built-in web tools: web_search, read_web_page, web_fetch."""

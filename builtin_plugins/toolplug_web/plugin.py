"""The entry point of the built-in web plugin."""

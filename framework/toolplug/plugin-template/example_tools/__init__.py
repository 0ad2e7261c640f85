"""Example Tools: tools for language models, packaged as a toolplug plugin."""

__version__ = "0.1.0"

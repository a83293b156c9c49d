"""Screens of the doctor TUI: they compose widgets and handle their messages."""

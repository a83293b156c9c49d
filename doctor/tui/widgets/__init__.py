"""Widgets of the doctor TUI: each owns one piece of data."""

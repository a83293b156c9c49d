"""The Textual front end of doctor. Importing this package imports nothing heavy; textual loads in doctor.tui.app."""

"""The header icon: a cross that common monospace fonts (DejaVu Sans Mono, Fira Code) carry."""
ICON = "✚"

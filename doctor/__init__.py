"""doctor: a troubleshooting expert system for distributed GPU training."""
__version__ = "0.1.0"

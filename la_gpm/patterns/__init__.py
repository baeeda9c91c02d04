"""Patterns: the model, named catalog, automorphisms, canonical forms."""

from .catalog import NAMES, TEMPLATES, as_pattern, named_pattern, read_fascia, read_query
from .pattern import MAX_CANONICAL_VERTICES, Pattern

__all__ = ["Pattern", "as_pattern", "named_pattern", "read_fascia", "read_query", "NAMES", "TEMPLATES",
           "MAX_CANONICAL_VERTICES"]

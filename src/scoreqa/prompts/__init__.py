"""Prompt templates (versioned text files), the request builder, chat rendering and answer parsing."""

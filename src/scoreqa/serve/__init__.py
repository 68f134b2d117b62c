"""A local OpenAI-compatible vLLM server for any model config: ``python -m scoreqa.serve model=…``."""

"""Model loading (hub ids or local paths, optional LoRA adapter) and the tiny models the tests build."""

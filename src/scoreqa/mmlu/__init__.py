"""MMLU through lm-eval over a local copy of ``cais/mmlu``: the forgetting check before and after fine-tuning."""

"""LoRA fine-tuning (``python train.py``): Lightning around a Hugging Face model wrapped with PEFT.

The prompts are the evaluation's own (``PromptBuilder`` + ``render_chat``), so a fine-tuned adapter
is trained on exactly the token sequences ``evaluate.py`` will show it.
"""

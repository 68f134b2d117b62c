"""Qwen2.5-VL's processor without its video half, for the tiny Qwen2.5-VL the repo builds.

transformers 5 always loads a video processor for ``Qwen2_5_VLProcessor``, and every video
processor needs torchvision, which CPU-only machines here do not have. Images are all this
project feeds the model, so the tiny model ships this subclass (saved beside its weights and
loaded with ``trust_remote_code``): the image path, chat template and token expansion are
``Qwen2_5_VLProcessor``'s own; only ``videos=`` is unsupported. Real checkpoints load the stock
processor. Imports only from transformers, as code saved beside a model must.
"""

from transformers import ProcessorMixin
from transformers.models.qwen2_5_vl.processing_qwen2_5_vl import Qwen2_5_VLProcessor


class TinyQwen2_5_VLProcessor(Qwen2_5_VLProcessor):
    def __init__(self, image_processor=None, tokenizer=None, chat_template=None, **kwargs):
        self.image_token = "<|image_pad|>"
        self.video_token = "<|video_pad|>"
        self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
        self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)
        ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template, **kwargs)

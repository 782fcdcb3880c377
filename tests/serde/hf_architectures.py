#!/usr/bin/env python3
"""Hugging Face architectures exported by PyTorch 2.13, as a deployer meets them.

Usage: tests/serde/hf_architectures.py OUT_DIR [--verbose]

Each architecture of ARCHITECTURES is built by `transformers` from a small config with random
weights (no download) and exported with torch.export.export three ways: static, with a dynamic
batch or sequence, and that dynamic program after run_decompositions() (core ATen, "<name>_core").
The archives, inputs and PyTorch's outputs are written as tests/serde/torch_export_cases.py writes
its cases (same manifest format), and the TorchPt2 test binary runs them in xport against PyTorch
(the hf_architectures test). An architecture PyTorch cannot export is a failure here; one that
xport refuses is listed with its reason in tests/serde/hf_architectures_refusals.txt.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
import cached_data  # noqa: E402

if __name__ == "__main__":
    START, ARGS, DIGEST = cached_data.start(
        __doc__, "print one line per case",
        [os.path.abspath(__file__), os.path.join(HERE, "torch_export_cases.py"),
         os.path.join(os.path.dirname(HERE), "models", "reference_models.py")], "digest",
        cached_data.pt2_manifest_files)

import dataclasses  # noqa: E402
from typing import Callable  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import transformers as tf  # noqa: E402
from torch.export import Dim  # noqa: E402

from torch_export_cases import Case, hf_model, write_all  # noqa: E402


# ---- how each kind of model is called ------------------------------------------------------------


class Text(nn.Module):
    """A decoder or encoder: token ids and an optional attention mask; the model's tuple output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)


class Seq2Seq(nn.Module):
    """An encoder-decoder: source ids and mask, and the decoder's ids; the logits."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids, return_dict=False)[0]


class Pixels(nn.Module):
    """An image model: its first output (logits, or the last hidden state)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pixel_values):
        return self.model(pixel_values=pixel_values, return_dict=False)[0]


class Audio(nn.Module):
    """A speech encoder on raw samples: its first output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_values):
        return self.model(input_values=input_values, return_dict=False)[0]


class Speech2Text(nn.Module):
    """Whisper: log-mel features and the decoder's ids; the logits."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_features, decoder_input_ids):
        return self.model(input_features=input_features, decoder_input_ids=decoder_input_ids,
                          return_dict=False)[0]


class TextImage(nn.Module):
    """CLIP-like: both towers; the image-text logits and both embeddings."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, pixel_values):
        out = self.model(input_ids=input_ids, pixel_values=pixel_values, return_dict=False)
        return out[0], out[2], out[3]


# ---- the architectures ---------------------------------------------------------------------------

VOCAB = 1000
# The dynamic dims: sizes 0 and 1 would specialise, and 128 is the position tables' length.
BATCH = Dim("batch", min=2, max=8)
SEQ = Dim("seq", min=2, max=128)
SMALL_TEXT = dict(vocab_size=VOCAB, max_position_embeddings=128)
SMALL_DECODER = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                     intermediate_size=128, use_cache=False, bos_token_id=0, eos_token_id=0,
                     pad_token_id=0, **SMALL_TEXT)
SMALL_ENCODER = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                     intermediate_size=128, **SMALL_TEXT)
SMALL_VIT = dict(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=128)
SMALL_SPEECH = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                    conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                    num_conv_pos_embedding_groups=2, vocab_size=32)


@dataclasses.dataclass
class Arch:
    name: str
    family: str  # decoder, encoder, encoder_decoder, vision_transformer, cnn, audio, clip
    make: Callable[[], nn.Module]  # the wrapped model, in eval mode
    inputs: Callable  # (generator, batch, size) -> (args, kwargs)
    dynamic: object  # the dynamic program's dynamic_shapes
    static: tuple  # (batch, size) of the static export and of the example
    runs: tuple  # (batch, size) of the dynamic program's other runs
    refused: tuple  # (batch, size) outside the dynamic range
    core_fails: str = None  # where PyTorch's run_decompositions() fails: the start of its error


def ids(g, *shape):
    return torch.randint(1, VOCAB, shape, generator=g)


def padded_mask(batch, seq):
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[-1, seq // 2:] = 0  # the last sequence is padded
    return mask


def decoder(name, config_class, **config):
    """A causal LM on token ids; the sequence length varies."""
    def make():
        return Text(hf_model(tf.AutoModelForCausalLM.from_config(
            config_class(**{**SMALL_DECODER, **config}))))
    return Arch(name, "decoder", make,
                lambda g, b, s: ((ids(g, b, s),), {}),
                ({1: SEQ},), static=(2, 16), runs=((2, 5), (2, 128)), refused=(2, 129))


def encoder(name, config_class, **config):
    """A masked-LM style encoder with a padded attention mask; batch and length vary."""
    def make():
        return Text(hf_model(tf.AutoModel.from_config(config_class(**{**SMALL_ENCODER,
                                                                      **config}))))

    def inputs(g, b, s):
        return (ids(g, b, s), padded_mask(b, s)), {}
    return Arch(name, "encoder", make, inputs,
                ({0: BATCH, 1: SEQ}, {0: BATCH, 1: SEQ}),
                static=(2, 16), runs=((3, 9), (8, 128)), refused=(2, 129))


def encoder_decoder(name, config_class, **config):
    """Source ids and mask, decoder ids; the source length varies."""
    def make():
        return Seq2Seq(hf_model(tf.AutoModelForSeq2SeqLM.from_config(config_class(**config))))

    def inputs(g, b, s):
        return (ids(g, b, s), padded_mask(b, s), ids(g, b, 4)), {}
    return Arch(name, "encoder_decoder", make, inputs,
                ({1: SEQ}, {1: SEQ}, None), static=(2, 16), runs=((2, 5), (2, 128)),
                refused=(2, 129))


def image(name, family, config_class, model_class, size=32, **config):
    """An image model on [batch, 3, size, size]; the batch varies."""
    def make():
        return Pixels(hf_model(model_class(config_class(**config))))
    return Arch(name, family, make,
                lambda g, b, s: ((torch.randn(b, 3, size, size, generator=g),), {}),
                ({0: BATCH},), static=(2, None), runs=((3, None), (8, None)), refused=(9, None))


def audio(name, config_class, model_class, **config):
    """A speech encoder on raw samples; the batch varies."""
    def make():
        return Audio(hf_model(model_class(config_class(**{**SMALL_SPEECH, **config}))))
    return Arch(name, "audio", make,
                lambda g, b, s: ((torch.randn(b, 400, generator=g),), {}),
                ({0: BATCH},), static=(2, None), runs=((3, None), (8, None)), refused=(9, None))


def whisper():
    config = dict(vocab_size=VOCAB, num_mel_bins=16, d_model=32, encoder_layers=2,
                  decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
                  encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
                  max_target_positions=32, use_cache=False, pad_token_id=0, bos_token_id=0,
                  eos_token_id=0, decoder_start_token_id=0)

    def make():
        return Speech2Text(hf_model(tf.WhisperForConditionalGeneration(tf.WhisperConfig(
            **config))))

    def inputs(g, b, s):
        return (torch.randn(b, 16, 32, generator=g), ids(g, b, s)), {}
    return Arch("whisper", "audio", make, inputs,
                (None, {1: Dim("seq", min=2, max=32)}), static=(2, 4), runs=((2, 2), (2, 32)),
                refused=(2, 33))


def text_image(name, config_class, model_class, text, vision):
    def make():
        return TextImage(hf_model(model_class(config_class(text_config=text,
                                                           vision_config=vision))))

    def inputs(g, b, s):
        return (ids(g, b, s), torch.randn(b, 3, 32, 32, generator=g)), {}
    return Arch(name, "clip", make, inputs,
                ({0: BATCH}, {0: BATCH}), static=(2, 8), runs=((3, 8), (8, 8)), refused=(9, 8))


TEXT_TOWER = dict(vocab_size=VOCAB, bos_token_id=0, eos_token_id=2, hidden_size=32,
                  intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                  max_position_embeddings=16)
VISION_TOWER = dict(image_size=32, patch_size=8, hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=2)
SMALL_CNN = dict(num_channels=3, num_labels=10)
SMALL_SEQ2SEQ = dict(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                     decoder_ffn_dim=128, max_position_embeddings=128, use_cache=False)


def vit(name, config_class, model_class, **config):
    return image(name, "vision_transformer", config_class, model_class,
                 **{**SMALL_VIT, "num_labels": 10, **config})


def cnn(name, config_class, model_class, **config):
    return image(name, "cnn", config_class, model_class, **{**SMALL_CNN, **config})


ARCHITECTURES = [
    # PyTorch's decomposition of GPT-2's Conv1D (addmm of x.view(-1, d)) cannot view the
    # transposed attention output when the sequence is dynamic.
    dataclasses.replace(
        decoder("gpt2", tf.GPT2Config, n_layer=2, n_embd=64, n_head=4, n_positions=128),
        core_fails="ValueError: Cannot view a tensor with shape torch.Size([2, s"),
    decoder("llama", tf.LlamaConfig, num_key_value_heads=2),
    decoder("mistral", tf.MistralConfig, num_key_value_heads=2, sliding_window=None),
    decoder("qwen2", tf.Qwen2Config, num_key_value_heads=2),
    decoder("phi", tf.PhiConfig),
    decoder("gpt_neox", tf.GPTNeoXConfig),
    decoder("opt", tf.OPTConfig, ffn_dim=128, word_embed_proj_dim=64),
    decoder("bloom", tf.BloomConfig, n_layer=2, n_head=4),
    decoder("falcon", tf.FalconConfig, new_decoder_architecture=False, alibi=False),
    decoder("gemma", tf.GemmaConfig, num_key_value_heads=1, head_dim=16),
    decoder("gptj", tf.GPTJConfig, n_layer=2, n_embd=64, n_head=4, n_positions=128, rotary_dim=8),
    encoder("bert", tf.BertConfig),
    encoder("roberta", tf.RobertaConfig, max_position_embeddings=131, pad_token_id=1),
    encoder("distilbert", tf.DistilBertConfig, n_layers=2, dim=64, n_heads=4, hidden_dim=128),
    encoder("albert", tf.AlbertConfig, embedding_size=32),
    encoder("electra", tf.ElectraConfig, embedding_size=32),
    encoder("deberta_v2", tf.DebertaV2Config),
    encoder_decoder("t5", tf.T5Config, vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128,
                    num_layers=2, num_heads=4, use_cache=False, decoder_start_token_id=0),
    encoder_decoder("bart", tf.BartConfig, **SMALL_SEQ2SEQ),
    encoder_decoder("marian", tf.MarianConfig, **SMALL_SEQ2SEQ, pad_token_id=0,
                    decoder_start_token_id=0),
    vit("vit", tf.ViTConfig, tf.ViTForImageClassification),
    vit("deit", tf.DeiTConfig, tf.DeiTForImageClassification),
    vit("beit", tf.BeitConfig, tf.BeitForImageClassification),
    # Not SMALL_VIT: SwinConfig reads num_attention_heads as its per-stage num_heads.
    image("swin", "vision_transformer", tf.SwinConfig, tf.SwinForImageClassification,
          image_size=32, patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 4],
          window_size=4, num_labels=10),
    cnn("resnet", tf.ResNetConfig, tf.ResNetForImageClassification, embedding_size=16,
        hidden_sizes=[16, 32], depths=[1, 1]),
    cnn("convnext", tf.ConvNextConfig, tf.ConvNextForImageClassification, num_stages=2,
        hidden_sizes=[16, 32], depths=[1, 1]),
    cnn("mobilenet_v2", tf.MobileNetV2Config, tf.MobileNetV2ForImageClassification,
        image_size=32, depth_multiplier=0.35),
    cnn("regnet", tf.RegNetConfig, tf.RegNetForImageClassification, embedding_size=16,
        hidden_sizes=[16, 32], depths=[1, 1], groups_width=8),
    cnn("efficientnet", tf.EfficientNetConfig, tf.EfficientNetForImageClassification,
        image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320),
    audio("wav2vec2", tf.Wav2Vec2Config, tf.Wav2Vec2Model),
    audio("hubert", tf.HubertConfig, tf.HubertModel),
    whisper(),
    text_image("clip", tf.CLIPConfig, tf.CLIPModel, TEXT_TOWER, VISION_TOWER),
    text_image("siglip", tf.SiglipConfig, tf.SiglipModel,
               {**TEXT_TOWER, "max_position_embeddings": 8}, VISION_TOWER),
]


def cases():
    for seed, arch in enumerate(ARCHITECTURES):
        torch.manual_seed(1000 + seed)
        model = arch.make().eval()
        g = torch.Generator().manual_seed(seed)
        args, kwargs = arch.inputs(g, *arch.static)
        yield Case(arch.name + "_static", arch.family, model, args, kwargs,
                   runs=[(args, kwargs)])
        yield Case(arch.name + "_dynamic", arch.family, model, args, kwargs,
                   dynamic_shapes=arch.dynamic,
                   runs=[(args, kwargs)] + [arch.inputs(g, *r) for r in arch.runs],
                   refused=arch.inputs(g, *arch.refused), core=True,
                   core_fails=arch.core_fails)


def main(args, digest, start):
    write_all(args, digest, start, [cases()], [])


if __name__ == "__main__":
    cached_data.run(main, ARGS, DIGEST, START)

"""The reference models in plain PyTorch, with the state-dict names of xport's models (torchvision
ResNet, nn.TransformerEncoder, Hugging Face GPT-2), built from fixed seeds.

Shared by the parity data (make_parity_data.py), the .pt2 tests that export them with
torch.export, and the peer benchmark. torchvision is not used: its wheel does not import beside
PyTorch 2.13, so its ResNet is written here with its names and initialisation.

  mlp       MLP: layers = Sequential(Linear(1024, 4096), GELU, Linear(4096, 4096), GELU,
            Linear(4096, 1024)); input float32 [N, 1024] -> [N, 1024].
  resnet18, resnet50   torchvision's architecture, fc scaled so logits are O(1);
            input float32 [N, 3, H, W] -> logits [N, 1000].
  bert      BertEncoder: layers = ModuleList of 12 TransformerEncoderLayer(768, 12, 3072,
            dropout=0.1, activation="gelu", batch_first=True); input float32 [N, T, 768] ~ N(0, 1).
  gpt2      Hugging Face GPT2LMHeadModel's computation (12 layers, 12 heads, 768, tied lm_head);
            input int64 ids [N, T] -> logits [N, T, 50257].
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

class MLP(nn.Module):
    def __init__(self, widths=(1024, 4096, 4096, 1024)):
        super().__init__()
        mods = []
        for i in range(len(widths) - 1):
            if i > 0:
                mods.append(nn.GELU())
            mods.append(nn.Linear(widths[i], widths[i + 1]))
        self.layers = nn.Sequential(*mods)

    def forward(self, x):
        return self.layers(x)


class BertEncoder(nn.Module):
    def __init__(self, num_layers=12, hidden=768, heads=12, feedforward=3072):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(hidden, heads, feedforward, dropout=0.1, activation="gelu",
                                       layer_norm_eps=1e-5, batch_first=True, norm_first=False)
            for _ in range(num_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + identity)


class ResNet(nn.Module):
    """torchvision's ResNet (v1.5: stride on the 3x3 convolution) with its module names and
    initialisation, so torchvision's state dicts load unchanged."""

    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], 2)
        self.layer3 = self._make_layer(block, 256, layers[2], 2)
        self.layer4 = self._make_layer(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride, bias=False),
                nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet18():
    return ResNet(BasicBlock, [2, 2, 2, 2])


def resnet50():
    return ResNet(Bottleneck, [3, 4, 6, 3])


class Conv1D(nn.Module):
    """Hugging Face's Conv1D: a linear layer with its weight stored [in, out]."""

    def __init__(self, nf, nx):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.empty(nf))

    def forward(self, x):
        out = torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight)
        return out.view(x.shape[:-1] + (self.weight.size(1),))


class GPT2Attention(nn.Module):
    def __init__(self, n_embd, n_head, n_positions):
        super().__init__()
        self.n_head = n_head
        self.register_buffer("bias", torch.tril(torch.ones(n_positions, n_positions))
                             .view(1, 1, n_positions, n_positions))
        self.c_attn = Conv1D(3 * n_embd, n_embd)
        self.c_proj = Conv1D(n_embd, n_embd)

    def _split(self, x):
        n, t, c = x.shape
        return x.view(n, t, self.n_head, c // self.n_head).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = (self._split(p) for p in self.c_attn(x).split(x.size(-1), dim=2))
        scores = q @ k.transpose(-1, -2) / math.sqrt(v.size(-1))
        t = x.size(1)
        causal = self.bias[:, :, :t, :t].bool()
        scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min))
        out = torch.softmax(scores, dim=-1) @ v
        n, h, t, d = out.shape
        return self.c_proj(out.permute(0, 2, 1, 3).reshape(n, t, h * d))


class GPT2MLP(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_fc = Conv1D(4 * n_embd, n_embd)
        self.c_proj = Conv1D(n_embd, 4 * n_embd)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class GPT2Block(nn.Module):
    def __init__(self, n_embd, n_head, n_positions, eps):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, eps=eps)
        self.attn = GPT2Attention(n_embd, n_head, n_positions)
        self.ln_2 = nn.LayerNorm(n_embd, eps=eps)
        self.mlp = GPT2MLP(n_embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    def __init__(self, vocab, n_positions, n_embd, n_layer, n_head, eps):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(n_positions, n_embd)
        self.h = nn.ModuleList([GPT2Block(n_embd, n_head, n_positions, eps)
                                for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd, eps=eps)


class GPT2LMHeadModel(nn.Module):
    """GPT2LMHeadModel's computation (eval, no cache); lm_head is wte (tied)."""

    def __init__(self, vocab=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
                 eps=1e-5):
        super().__init__()
        self.transformer = GPT2Model(vocab, n_positions, n_embd, n_layer, n_head, eps)

    def forward(self, ids):
        tr = self.transformer
        x = tr.wte(ids) + tr.wpe(torch.arange(ids.size(1)))
        for block in tr.h:
            x = block(x)
        return F.linear(tr.ln_f(x), tr.wte.weight)

    def hub_state_dict(self):
        """The state dict as the Hub's gpt2 checkpoint stores it."""
        return {k[len("transformer."):]: v for k, v in self.state_dict().items()}


@torch.no_grad()
def randomize(model):
    """Replaces the trivial default statistics and affine parameters of norms and attention."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.uniform_(0.5, 1.5)
            m.bias.normal_(0, 0.1)
            m.running_mean.normal_(0, 0.1)
            m.running_var.uniform_(0.5, 1.5)
        elif isinstance(m, nn.LayerNorm):
            m.weight.uniform_(0.5, 1.5)
            m.bias.normal_(0, 0.1)
        elif isinstance(m, nn.MultiheadAttention):
            m.in_proj_bias.normal_(0, 0.02)
            m.out_proj.bias.normal_(0, 0.02)
    return model


# The fc weight scale that brings logits to O(1): eval BatchNorm with randomized running
# statistics lets the residual stream grow through the stages.
RESNETS = {"resnet18": resnet18, "resnet50": resnet50}
_RESNET_FC_SCALE = {"resnet18": 0.25, "resnet50": 0.005}


def build_model(name, seed=0):
    """The reference model `name` in eval mode, initialised from `seed`."""
    torch.manual_seed(seed)
    if name == "mlp":
        return randomize(MLP()).eval()
    if name in ("resnet18", "resnet50"):
        model = randomize(RESNETS[name]())
        with torch.no_grad():
            model.fc.weight.mul_(_RESNET_FC_SCALE[name])
        return model.eval()
    if name == "bert":
        return randomize(BertEncoder()).eval()
    if name == "gpt2":
        model = GPT2LMHeadModel()
        with torch.no_grad():
            for pname, p in model.named_parameters():
                if ".ln_" not in pname:
                    p.normal_(0, 0.02)
        return randomize(model).eval()
    raise ValueError("build_model: unknown model %r" % name)

"""Independent float64 oracle for the TypeScript reference: Qwen2/Qwen3 logits in NumPy, written the way Hugging Face
transformers' modeling_qwen2.py / modeling_qwen3.py write them (view/transpose into heads, rotate_half with a
concatenated cos/sin table, repeat_kv for GQA, an additive causal mask, softmax), so that a layout or convention slip
in the loop-based TypeScript code shows up as a mismatch. Reads a Hugging Face model folder (config.json +
model.safetensors, F32/F16/BF16) with its own safetensors parser.

usage: python3 qwen_numpy.py MODEL_DIR ID,ID,... OUT_FILE   (writes the (T, V) logits as little-endian float64)
Used by tests/model/oracle.test.ts when python3 with numpy is available.
"""
import json
import struct
import sys

import numpy as np


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        buf = data[b:e]
        if info["dtype"] == "F32":
            arr = np.frombuffer(buf, dtype="<f4")
        elif info["dtype"] == "F16":
            arr = np.frombuffer(buf, dtype="<f2")
        elif info["dtype"] == "BF16":
            arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(f"dtype {info['dtype']}")
        out[name] = arr.astype(np.float64).reshape(info["shape"])
    return out


def rms_norm(x, w, eps):
    variance = np.mean(x * x, axis=-1, keepdims=True)
    return w * (x / np.sqrt(variance + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate((-x[..., half:], x[..., :half]), axis=-1)


def rope_cos_sin(positions, dim, base):
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    freqs = np.outer(positions.astype(np.float64), inv_freq)
    emb = np.concatenate((freqs, freqs), axis=-1)
    return np.cos(emb), np.sin(emb)


def linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def silu(x):
    return x / (1.0 + np.exp(-x))


def forward(cfg, W, ids):
    qwen3 = "Qwen3ForCausalLM" in cfg["architectures"]
    C = cfg["hidden_size"]
    H = cfg["num_attention_heads"]
    KVH = cfg.get("num_key_value_heads", H)
    D = cfg.get("head_dim") or C // H
    eps = cfg["rms_norm_eps"]
    T = len(ids)
    h = W["model.embed_tokens.weight"][np.array(ids)]  # (T, C)
    cos, sin = rope_cos_sin(np.arange(T), D, cfg["rope_theta"])  # (T, D)
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        residual = h
        x = rms_norm(h, W[p + "input_layernorm.weight"], eps)
        bias = lambda n: W.get(p + f"self_attn.{n}.bias")
        q = linear(x, W[p + "self_attn.q_proj.weight"], bias("q_proj")).reshape(T, H, D)
        k = linear(x, W[p + "self_attn.k_proj.weight"], bias("k_proj")).reshape(T, KVH, D)
        v = linear(x, W[p + "self_attn.v_proj.weight"], bias("v_proj")).reshape(T, KVH, D)
        if qwen3:
            q = rms_norm(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 0, 2), k.transpose(1, 0, 2), v.transpose(1, 0, 2)  # (heads, T, D)
        q = q * cos[None] + rotate_half(q) * sin[None]
        k = k * cos[None] + rotate_half(k) * sin[None]
        k = np.repeat(k, H // KVH, axis=0)  # repeat_kv
        v = np.repeat(v, H // KVH, axis=0)
        scores = q @ k.transpose(0, 2, 1) * (D ** -0.5) + mask[None]
        scores = scores - scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs = probs / probs.sum(axis=-1, keepdims=True)
        attn = (probs @ v).transpose(1, 0, 2).reshape(T, H * D)
        h = residual + linear(attn, W[p + "self_attn.o_proj.weight"])
        residual = h
        x = rms_norm(h, W[p + "post_attention_layernorm.weight"], eps)
        mlp = linear(silu(linear(x, W[p + "mlp.gate_proj.weight"])) * linear(x, W[p + "mlp.up_proj.weight"]), W[p + "mlp.down_proj.weight"])
        h = residual + mlp
    h = rms_norm(h, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else W["lm_head.weight"]
    return linear(h, head)


def main():
    folder, ids_text, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(f"{folder}/config.json") as f:
        cfg = json.load(f)
    W = load_safetensors(f"{folder}/model.safetensors")
    ids = [int(s) for s in ids_text.split(",")]
    logits = forward(cfg, W, ids)
    with open(out_path, "wb") as f:
        f.write(np.ascontiguousarray(logits, dtype="<f8").tobytes())


if __name__ == "__main__":
    main()

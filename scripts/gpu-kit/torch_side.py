"""The GPU kit's PyTorch side: transformers' Qwen3ForCausalLM on the checkpoint the Node side made (same folder,
same bits), on the same GPU, next to the WebGPU engine's figures (full.json, bench/gpu-kit/full.ts):

  python3 torch_side.py --full WORK/full.json --out WORK/torch.json [--allow-cpu]

1. logits: the last position's logits of the engine's prompt, in float32, against the engine's (engine-logits.f32):
   largest difference, top-1 and top-20 agreement. An independent check of the engine on real hardware.
2. decode: greedy generation at every batch size the engine measured, same prompts, bfloat16 (what a PyTorch user
   runs); decode tokens/s = B * (N - 1) / (time of N new tokens - time of 1), so the prefill is left out as in the
   engine's figure.
3. LoRA: one PEFT LoRA step (same rank, alpha = 2r, same 7 target projections, AdamW) on sequences of the lengths the
   engine's GRPO and SFT updates trained on (random ids, seeded), timed after one warm-up step.
4. bandwidth: a device-to-device copy (bytes read + written per second), beside the WebGPU copy's.

Without torch, transformers or peft, or without a CUDA device, it writes {"skipped": why} and says so on one line;
the report shows that line. The pure helpers (no torch, no numpy) are unit-tested (test_gpu_kit.py).
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import time
from array import array

# Largest safetensors header read (the format's own readers cap it at 100 MB too).
MAX_HEADER_BYTES = 100 * 1024 * 1024
# The logits verdict: |engine - torch| <= LOGITS_REL_TOL * max|torch| everywhere, and the same top-1 id.
LOGITS_REL_TOL = 2e-2
TOP_K = 20
DTYPE_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I64": 8, "I32": 4, "U8": 1, "I8": 1, "BOOL": 1}


class KitInputError(ValueError):
    """A file the kit reads is not what it should be (names the file and what is wrong)."""


def read_safetensors_header(path):
    """The header of a .safetensors file as a dict, checked: its length fits the file and the cap, every tensor's
    offsets lie inside the data and match its dtype and shape. Reads only the header."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise KitInputError(f"{path}: shorter than a safetensors header length ({size} bytes)")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER_BYTES or n > size - 8:
            raise KitInputError(f"{path}: header length {n} exceeds the file ({size} bytes) or the {MAX_HEADER_BYTES}-byte cap")
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise KitInputError(f"{path}: header is not JSON ({e})") from e
    if not isinstance(header, dict):
        raise KitInputError(f"{path}: header is not a JSON object")
    data_bytes = size - 8 - n
    for name, t in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (start, end) = t["dtype"], t["shape"], t["data_offsets"]
        except (KeyError, TypeError, ValueError) as e:
            raise KitInputError(f"{path}: tensor {name!r} lacks dtype, shape or data_offsets") from e
        if dtype not in DTYPE_BYTES:
            raise KitInputError(f"{path}: tensor {name!r} has unknown dtype {dtype!r}")
        count = math.prod(shape)
        if not (0 <= start <= end <= data_bytes) or end - start != count * DTYPE_BYTES[dtype]:
            raise KitInputError(f"{path}: tensor {name!r} offsets [{start}, {end}) do not fit {dtype} {shape} inside {data_bytes} data bytes")
    return header


def parameter_count(header):
    return sum(math.prod(t["shape"]) for name, t in header.items() if name != "__metadata__")


def read_f32(path, count):
    """`count` little-endian float32 values from `path` (the engine's logits), checking the file's size first."""
    size = os.path.getsize(path)
    if size != 4 * count:
        raise KitInputError(f"{path}: {size} bytes, expected {4 * count} ({count} float32 values)")
    values = array("f")
    with open(path, "rb") as f:
        values.fromfile(f, count)
    if sys.byteorder != "little":
        values.byteswap()
    return values


def top_ids(values, k):
    """Ids of the k largest values, largest first (ties by lower id)."""
    return sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]


def logits_agreement(engine, reference, k=TOP_K, rel_tol=LOGITS_REL_TOL):
    """How the engine's logits row agrees with the reference's: largest |difference|, that over max|reference|,
    top-1 equality, the overlap of the top-k sets, and the verdict (see LOGITS_REL_TOL)."""
    if len(engine) != len(reference) or len(engine) == 0:
        raise KitInputError(f"logits rows differ in length ({len(engine)} vs {len(reference)})")
    if any(not math.isfinite(x) for x in engine):
        return {"maxAbs": math.inf, "maxAbsOverRange": math.inf, "top1Same": False, "topKOverlap": 0, "k": k, "pass": False, "nonFinite": True}
    max_abs = max(abs(a - b) for a, b in zip(engine, reference))
    scale = max(abs(b) for b in reference) or 1.0
    top_e, top_r = top_ids(engine, k), top_ids(reference, k)
    top1 = top_e[0] == top_r[0]
    return {
        "maxAbs": max_abs,
        "maxAbsOverRange": max_abs / scale,
        "top1Same": top1,
        "top1": {"engine": top_e[0], "reference": top_r[0]},
        "topKOverlap": len(set(top_e) & set(top_r)),
        "k": k,
        "pass": top1 and max_abs <= rel_tol * scale,
        "nonFinite": False,
    }


def lora_sequences(lengths, vocab, seed):
    """Random token ids for sequences of the given lengths (seeded: the same batch on every run)."""
    rng = random.Random(seed)
    return [[rng.randrange(vocab) for _ in range(n)] for n in lengths]


def decode_rate(batch, new_tokens, seconds_n, seconds_1):
    """Tokens/s of the N - 1 decode steps after the first token (which the prefill produces)."""
    steps = new_tokens - 1
    if steps <= 0 or seconds_n <= seconds_1:
        return None
    return batch * steps / (seconds_n - seconds_1)


def skip(out, why):
    print(f"torch side: skipped: {why}")
    with open(out, "w") as f:
        json.dump({"skipped": why}, f, indent=2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", required=True, help="the Node side's full.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--allow-cpu", action="store_true", help="run on the CPU when there is no CUDA device (slow; development)")
    args = ap.parse_args(argv)
    if not os.path.exists(args.full):
        skip(args.out, f"{args.full} is missing (the Node model phase did not finish)")
        return 0
    with open(args.full) as f:
        full = json.load(f)
    missing = []
    for module in ("torch", "transformers", "peft"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        skip(args.out, f"{', '.join(missing)} not installed in {sys.executable} (pip install torch transformers peft)")
        return 0
    import torch

    if not torch.cuda.is_available() and not args.allow_cpu:
        skip(args.out, "torch sees no CUDA device (--allow-cpu runs it on the CPU)")
        return 0
    report = run_torch(full, torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"torch side: wrote {args.out}")
    return 0 if report["logits"]["pass"] else 1


def run_torch(full, device):
    import peft
    import torch
    import transformers

    cuda = device.type == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def timed(fn):
        sync()
        t0 = time.perf_counter()
        result = fn()
        sync()
        return time.perf_counter() - t0, result

    model_dir = full["modelDir"]
    header = read_safetensors_header(os.path.join(model_dir, "model.safetensors"))
    report = {
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__, "cuda": torch.version.cuda},
        "device": torch.cuda.get_device_name(device) if cuda else "cpu",
        "checkpoint": {"tensors": len([k for k in header if k != "__metadata__"]), "parameters": parameter_count(header)},
    }
    print(f"torch side: {report['device']}, torch {torch.__version__}, transformers {transformers.__version__}, peft {peft.__version__}")

    if cuda:  # device-to-device copy, bytes read + written
        n = 256 * 1024 * 1024
        src, dst = torch.empty(n, dtype=torch.uint8, device=device), torch.empty(n, dtype=torch.uint8, device=device)
        dst.copy_(src)
        seconds, _ = timed(lambda: [dst.copy_(src) for _ in range(10)])
        report["copyBytesPerSecond"] = 2 * n * 10 / seconds
        del src, dst

    # 1. Logits in float32 (bf16 weights widen exactly).
    load_s, model = timed(lambda: transformers.Qwen3ForCausalLM.from_pretrained(model_dir, dtype=torch.float32).to(device).eval())
    report["loadSeconds"] = load_s
    ids = full["logits"]["ids"]
    with torch.no_grad():
        ref = model(torch.tensor([ids], device=device)).logits[0, -1].float().cpu().tolist()
    engine = read_f32(full["logits"]["file"], full["logits"]["vocab"])
    report["logits"] = logits_agreement(engine, ref)
    lg = report["logits"]
    print(f"torch side: logits max|diff| {lg['maxAbs']:.3g} ({lg['maxAbsOverRange']:.2e} of the range), top-1 same {lg['top1Same']}, top-{lg['k']} overlap {lg['topKOverlap']}")

    # 2. Greedy decode in bfloat16 at each batch size.
    model = model.to(torch.bfloat16)
    prompts, n_new = full["decodePrompts"], full["decodeTokens"]
    decode = []
    for figures in full["decode"]:
        b = figures["batch"]
        input_ids = torch.tensor(prompts[:b], device=device)

        def gen(n):
            with torch.no_grad():
                return model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=full["config"]["bosTokenId"])

        gen(2)  # warm-up
        t1, _ = timed(lambda: gen(1))
        tn, _ = timed(lambda: gen(n_new))
        rate = decode_rate(b, n_new, tn, t1)
        decode.append({"batch": b, "newTokens": n_new, "seconds": tn, "firstTokenSeconds": t1, "decodeTokensPerSecond": rate, "dtype": "bfloat16"})
        print(f"torch side: B={b} greedy decode {rate if rate is None else round(rate, 1)} tok/s")
    report["decode"] = decode

    # 3. A PEFT LoRA step on the engine's update shapes.
    train = full.get("train")
    if train:
        config = peft.LoraConfig(r=train["rank"], lora_alpha=2 * train["rank"], target_modules=train["targets"], lora_dropout=0.0, bias="none")
        lora_model = peft.get_peft_model(model, config)
        lora_model.train()
        optimizer = torch.optim.AdamW([p for p in lora_model.parameters() if p.requires_grad], lr=1e-3)
        vocab = full["config"]["vocabSize"]
        steps = {}
        for algo in ("grpo", "sft"):
            lengths = train[algo]["sequenceLengths"]
            if not lengths:
                continue
            seqs = lora_sequences(lengths, vocab, seed=len(lengths))
            width = max(lengths)
            ids_t = torch.tensor([s + [0] * (width - len(s)) for s in seqs], device=device)
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=device)
            labels = ids_t.masked_fill(mask == 0, -100)

            def step():
                optimizer.zero_grad(set_to_none=True)
                loss = lora_model(input_ids=ids_t, attention_mask=mask, labels=labels).loss
                loss.backward()
                optimizer.step()
                return loss.item()

            step()  # warm-up
            seconds, loss = timed(step)
            steps[algo] = {"seconds": seconds, "sequences": len(lengths), "tokens": sum(lengths), "loss": loss, "dtype": "bfloat16 base, float32 adapter"}
            print(f"torch side: LoRA step ({algo} shapes: {len(lengths)} sequences, {sum(lengths)} tokens) {seconds:.3f} s")
        report["lora"] = steps
    return report


if __name__ == "__main__":
    sys.exit(main())

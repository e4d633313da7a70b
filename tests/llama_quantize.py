#!/usr/bin/env python3
"""Quantizes a GGUF model with llama.cpp's own quantizer (llama-cpp-python's llama_model_quantize), as a user of
llama.cpp makes an i-quant file: llama.cpp picks each tensor's type for the file type (for SmolLM2-135M and IQ3_S:
IQ3_S where k % 256 == 0, the FFN down matrices, and IQ4_NL elsewhere), no importance matrix.

usage: llama_quantize.py IN.gguf OUT.gguf FTYPE     (FTYPE: a LLAMA_FTYPE_MOSTLY_* suffix, e.g. IQ3_S)"""
import ctypes
import sys

import llama_cpp


def main(src, out, ftype):
    p = llama_cpp.llama_model_quantize_default_params()
    p.ftype = getattr(llama_cpp, "LLAMA_FTYPE_MOSTLY_" + ftype)
    p.allow_requantize = True  # the shipped model is already quantized
    p.nthread = 2
    if llama_cpp.llama_model_quantize(src.encode(), out.encode(), ctypes.byref(p)) != 0:
        sys.exit(f"llama_quantize: llama.cpp could not quantize {src} to {ftype}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

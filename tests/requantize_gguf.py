#!/usr/bin/env python3
"""Requantizes every matrix of a GGUF model to one type with the gguf package.

usage: requantize_gguf.py IN.gguf OUT.gguf {Q8_0,Q4_0,F32}

Every 2-D tensor (the token embedding included) is dequantized with the gguf
package and quantized again to the target type by its reference quantizer;
1-D tensors (the norms) are copied as they are (F32). The metadata is copied,
general.file_type updated. For `qmatmul run`'s agreement test with llama.cpp.

F32 writes each 2-D tensor dequantized and nothing more: the input's F32-weight
twin, the same model without its weights' rounding (the reference of
tests/check_run_kl.py).
"""
import sys

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter
from gguf import quants

FILE_TYPES = {"Q8_0": 7, "Q4_0": 2, "F32": 0}


def copy_metadata(reader, writer):
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key in ("general.architecture", "general.file_type", "general.alignment"):
            continue
        vtype = field.types[0]
        if vtype == GGUFValueType.ARRAY:
            writer.add_key_value(key, field.contents(), vtype, sub_type=field.types[-1])
        else:
            writer.add_key_value(key, field.contents(), vtype)


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in FILE_TYPES:
        sys.exit(__doc__)
    src, dst, tname = sys.argv[1:]
    qtype = GGMLQuantizationType[tname]
    reader = GGUFReader(src)
    arch = reader.fields["general.architecture"].contents()
    writer = GGUFWriter(dst, arch)
    copy_metadata(reader, writer)
    writer.add_file_type(FILE_TYPES[tname])
    for t in reader.tensors:
        shape = [int(x) for x in t.shape]  # ne order: ne[0] first
        if len(shape) == 2:
            rows = quants.dequantize(t.data, t.tensor_type).reshape(shape[1], shape[0]).astype(np.float32)
            if qtype == GGMLQuantizationType.F32:
                writer.add_tensor(t.name, rows)  # a float32 array: its shape reversed is ne
            else:
                data = quants.quantize(rows, qtype)
                writer.add_tensor(t.name, data, raw_dtype=qtype)
        else:
            data = np.asarray(t.data)
            writer.add_tensor(t.name, data.copy(), raw_dtype=t.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()

/* The GGUF reader: its interface is public (include/qmatmul_gguf.h). */
#ifndef QMM_GGUF_H
#define QMM_GGUF_H

#include "qmatmul_gguf.h"

#endif

/* Tokenizers from a GGUF file's own vocabulary: byte-level BPE
 * (tokenizer.ggml.model = gpt2: vocabulary and merges) and SentencePiece
 * (= llama: vocabulary and scores, byte fallback), and detokenization. */
#ifndef QMM_RUN_TOKENIZER_H
#define QMM_RUN_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "qmatmul_gguf.h"

typedef struct run_vocab run_vocab;

/* Reads the vocabulary of g; NULL with a message in err if the file has no
 * tokenizer this code runs. */
run_vocab *run_vocab_load(const qmm_gguf *g, char *err, size_t err_size);
void run_vocab_free(run_vocab *v);
int run_vocab_size(const run_vocab *v);
/* The id of the beginning-of-sequence token to prepend (-1: none), and the
 * end-of-sequence token (-1 if none). */
int run_vocab_bos(const run_vocab *v);
int run_vocab_eos(const run_vocab *v);
/* Tokenizes text (NUL-terminated UTF-8): *ids malloc'ed, *n of them; 0, or
 * -1 with a message in err. */
int run_tokenize(const run_vocab *v, const char *text, int32_t **ids, int *n, char *err, size_t err_size);
/* The bytes token id stands for (control tokens: none); returns their count,
 * writing at most size of them to buf. */
size_t run_detokenize(const run_vocab *v, int32_t id, char *buf, size_t size);

#endif

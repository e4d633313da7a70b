/* qmatmul: what this CPU and a model get from qmatmul. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "qmatmul.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"bench", cmd_bench, "what this CPU gets per matrix of a model, with which kernels, against its measured limits"},
    {"info", cmd_info, "the CPU, its features, and the kernel chain selected per weight type (--json)"},
    {"inspect", cmd_inspect, "a GGUF file's metadata and tensor table"},
    {"pack", cmd_pack, "pack a GGUF model's weights for this CPU into a cache file (MODEL.gguf -o MODEL.qmp)"},
    {"run", cmd_run, "run a llama-architecture GGUF model, greedy decoding (--tokens, -p, --bench)"},
    {"verify", cmd_verify, "check a packed-weight cache file: integrity, and usability on this CPU"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: qmatmul <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'qmatmul <command> --help' for a command's options. qmatmul %s\n", qmm_version());
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("qmatmul %s\n", qmm_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "qmatmul: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

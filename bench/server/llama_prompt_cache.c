// llama.cpp with a prompt cache, for server_bench.py's comparison: what llama.cpp's server does for
// a stateless client that resends a long document with each question (`cache_prompt`, its
// default): the slot keeps the previous prompt's K/V, the longest common token prefix with the new
// prompt is kept, only the rest is decoded (at least the last token, for its logits). One process,
// one sequence, prompts in the order given; prints each prompt's time to its first (greedy) token.
// Build against the llama.cpp libraries and headers that ../shared/tools/llama-oracle/setup.sh
// fetched (its WORKDIR):
//   W=WORKDIR; L=$W/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64   (then one command line:)
//   gcc -O2 -std=c11 -I$W/include bench/server/llama_prompt_cache.c -o llama_prompt_cache
//       $(ls $L/libllama.v*.so | head -1) $(ls $L/libggml.v*.so | head -1) $L/libggml-base.so -Wl,-rpath,$L -ldl
// Usage: llama_prompt_cache MODEL.gguf --threads N IDS_FILE...   (ids: whitespace-separated)
// Settings are llama.cpp server's defaults: f16 K/V, n_batch 2048, n_ubatch 512, flash attention auto.
#define _GNU_SOURCE  // dladdr
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "llama.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static int read_ids(const char * path, llama_token ** out) {
    FILE * f = fopen(path, "r");
    if (!f) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    int cap = 1024, n = 0;
    llama_token * v = malloc(cap * sizeof(*v));
    long x;
    while (fscanf(f, "%ld", &x) == 1) {
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = (llama_token) x;
    }
    fclose(f);
    *out = v;
    return n;
}

static void quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) user;
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int main(int argc, char ** argv) {
    if (argc < 3) { fprintf(stderr, "usage: llama_prompt_cache MODEL --threads N IDS_FILE...\n"); return 2; }
    const char * model_path = argv[1];
    int threads = 2, first_file = 2;
    if (argc > 3 && !strcmp(argv[2], "--threads")) { threads = atoi(argv[3]); first_file = 4; }
    const int n_prompts = argc - first_file;
    llama_token ** prompts = calloc(n_prompts, sizeof(*prompts));
    int * lens = calloc(n_prompts, sizeof(int)), max_len = 0;
    for (int k = 0; k < n_prompts; k++) {
        lens[k] = read_ids(argv[first_file + k], &prompts[k]);
        if (lens[k] > max_len) max_len = lens[k];
    }
    llama_log_set(quiet, NULL);
    // The CPU backends (one per instruction set) are plugins beside libllama: load them from there.
    Dl_info info;
    if (dladdr((void *) llama_backend_init, &info) && info.dli_fname) {
        char * path = strdup(info.dli_fname);
        ggml_backend_load_all_from_path(dirname(path));
        free(path);
    } else {
        ggml_backend_load_all();
    }
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model * m = llama_model_load_from_file(model_path, mp);
    if (!m) { fprintf(stderr, "cannot load %s\n", model_path); return 3; }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = max_len + 64;
    cp.n_batch = 2048;
    cp.n_ubatch = 512;
    cp.n_seq_max = 1;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    struct llama_context * c = llama_init_from_model(m, cp);
    if (!c) { fprintf(stderr, "cannot create a %d-token context\n", max_len + 64); return 3; }
    const int V = llama_vocab_n_tokens(llama_model_get_vocab(m));
    llama_memory_t mem = llama_get_memory(c);
    struct llama_batch b = llama_batch_init(2048, 0, 1);
    llama_token * cached = malloc(sizeof(llama_token) * (max_len + 1));
    int n_cached = 0;
    for (int k = 0; k < n_prompts; k++) {
        const llama_token * ids = prompts[k];
        const int T = lens[k];
        const double t0 = now_s();
        int keep = 0;
        while (keep < n_cached && keep < T && cached[keep] == ids[keep]) keep++;
        if (keep == T) keep = T - 1;  // the last token runs again for its logits
        llama_memory_seq_rm(mem, 0, keep, -1);
        for (int p = keep; p < T; p += 2048) {
            const int n = T - p < 2048 ? T - p : 2048;
            for (int i = 0; i < n; i++) {
                b.token[i] = ids[p + i];
                b.pos[i] = p + i;
                b.n_seq_id[i] = 1;
                b.seq_id[i][0] = 0;
                b.logits[i] = p + i == T - 1;
            }
            b.n_tokens = n;
            if (llama_decode(c, b)) { fprintf(stderr, "llama_decode failed\n"); return 1; }
        }
        const float * logits = llama_get_logits_ith(c, -1);
        int best = 0;
        for (int i = 1; i < V; i++)
            if (logits[i] > logits[best]) best = i;
        memcpy(cached, ids, sizeof(llama_token) * T);
        n_cached = T;
        printf("prompt %d: %d tokens, %d reused from the previous prompt, first token %d after %.3f s\n", k + 1, T,
               keep, best, now_s() - t0);
        fflush(stdout);
    }
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

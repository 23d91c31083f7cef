// llama_timer: llama.cpp's own prefill and decode speed at a chosen context depth, measured inside
// one process the way snapdoc-bench longctx measures snapdoc (model load excluded), so the two can
// be put side by side on the same GGUF. Built against the prebuilt libllama of the llama-oracle
// work folder by scripts/build-llama-timer.sh (not part of the CMake build: it is a baseline tool).
//
//   llama_timer MODEL --tokens N [--gen M] [--fa on|off] [--kv f16|f32] [--threads T] [--batch B]
//               [--repeat R]
//
// Prefill: N pseudo-random token ids (seeded, the same stream every run) in batches of B, timed
// from the first llama_decode to the logits of the last position. Decode: M greedy steps, one token
// per llama_decode, starting at depth N (so the attention reads an N-token cache). Prints one line
// per repeat: "prefill_s P prefill_tps X decode_s D decode_tps Y".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "llama.h"

static void quiet_log(enum ggml_log_level level, const char* text, void* user) {
    (void)user;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The CPU backend lives in a plug-in next to libllama; load plug-ins from there.
static void load_backends(void) {
    Dl_info info;
    if (dladdr((void*)llama_backend_init, &info) && info.dli_fname) {
        char* copy = strdup(info.dli_fname);
        ggml_backend_load_all_from_path(dirname(copy));
        free(copy);
    } else {
        ggml_backend_load_all();
    }
    llama_backend_init();
}

static int greedy_pick(const float* logits, int n_vocab) {
    int best = 0;
    for (int i = 1; i < n_vocab; ++i)
        if (logits[i] > logits[best]) best = i;
    return best;
}

static void usage(void) {
    fprintf(stderr,
            "usage: llama_timer MODEL --tokens N [--gen M] [--fa on|off] [--kv f16|f32] [--threads T] [--batch B] "
            "[--repeat R]\n");
    exit(2);
}

int main(int argc, char** argv) {
    if (argc < 2) usage();
    const char* model_path = argv[1];
    int tokens = 0, gen = 32, threads = 2, batch = 512, repeat = 1, flash = 0, kv_f32 = 1;
    for (int i = 2; i < argc; ++i) {
        const char* flag = argv[i];
        if (i + 1 >= argc) usage();
        const char* value = argv[++i];
        if (!strcmp(flag, "--tokens")) tokens = atoi(value);
        else if (!strcmp(flag, "--gen")) gen = atoi(value);
        else if (!strcmp(flag, "--threads")) threads = atoi(value);
        else if (!strcmp(flag, "--batch")) batch = atoi(value);
        else if (!strcmp(flag, "--repeat")) repeat = atoi(value);
        else if (!strcmp(flag, "--fa")) flash = !strcmp(value, "on");
        else if (!strcmp(flag, "--kv")) kv_f32 = !strcmp(value, "f32");
        else usage();
    }
    if (tokens < 1 || gen < 0 || threads < 1 || batch < 1 || repeat < 1) usage();

    llama_log_set(quiet_log, NULL);
    load_backends();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model* model = llama_model_load_from_file(model_path, mp);
    if (!model) {
        fprintf(stderr, "llama_timer: cannot load %s\n", model_path);
        return 3;
    }
    const struct llama_vocab* vocab = llama_model_get_vocab(model);
    const int n_vocab = llama_vocab_n_tokens(vocab);

    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(tokens + gen + 16);
    cp.n_batch = (uint32_t)batch;
    cp.n_ubatch = (uint32_t)batch;
    cp.n_seq_max = 1;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.flash_attn_type = flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.type_k = kv_f32 ? GGML_TYPE_F32 : GGML_TYPE_F16;
    cp.type_v = kv_f32 ? GGML_TYPE_F32 : GGML_TYPE_F16;
    cp.no_perf = true;
    struct llama_context* ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "llama_timer: cannot create a context of %d tokens\n", tokens + gen + 16);
        return 3;
    }

    // Ids 3.. (skipping the usual control ids at the start of a vocabulary), a fixed LCG stream.
    llama_token* ids = malloc(sizeof(llama_token) * (size_t)tokens);
    uint64_t state = 42;
    for (int i = 0; i < tokens; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ids[i] = (llama_token)(3 + (state >> 33) % (uint64_t)(n_vocab - 3));
    }

    for (int r = 0; r < repeat; ++r) {
        llama_memory_clear(llama_get_memory(ctx), true);
        const double t0 = now_s();
        for (int at = 0; at < tokens; at += batch) {
            const int n = tokens - at < batch ? tokens - at : batch;
            if (llama_decode(ctx, llama_batch_get_one(ids + at, n)) != 0) {
                fprintf(stderr, "llama_timer: llama_decode failed during prefill at %d\n", at);
                return 4;
            }
        }
        llama_token next = greedy_pick(llama_get_logits_ith(ctx, -1), n_vocab);
        const double t1 = now_s();
        for (int g = 0; g < gen; ++g) {
            if (llama_decode(ctx, llama_batch_get_one(&next, 1)) != 0) {
                fprintf(stderr, "llama_timer: llama_decode failed at decode step %d\n", g);
                return 4;
            }
            next = greedy_pick(llama_get_logits_ith(ctx, -1), n_vocab);
        }
        const double t2 = now_s();
        printf("prefill_s %.4f prefill_tps %.2f decode_s %.4f decode_tps %.2f\n", t1 - t0, tokens / (t1 - t0), t2 - t1,
               gen > 0 ? gen / (t2 - t1) : 0.0);
        fflush(stdout);
    }
    free(ids);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

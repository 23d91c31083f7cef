// snapdoc-bench: performance numbers (never pass/fail). See benches.h for the subcommands.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "bench/benches.h"

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help")) {
        std::fputs(
            "usage: snapdoc-bench COMMAND [flags]\n"
            "  tokenizer --tokenizer FILE [--tokenizer FILE2 ...] --text FILE [--tokens N] [--repeat R]\n"
            "            (FILE: SentencePiece .model, tokenizer.json, or a .gguf's vocabulary)\n"
            "  model -m MODEL [--prompt-tokens N] [--gen-tokens N] [--threads N] [--repeat R] [--device cpu|cuda]\n"
            "        [--precise-roles \"none;all;qkv,down\"]  (CPU: each mix of precise matmul roles in turn)\n"
            "  synthetic --shape NAME [--dtype f32|f16|bf16|q8_0] [--out FILE] [model flags]\n"
            "  snapkv [--shape NAME | -m MODEL] [--prompt-tokens N] [--budget B] [--window W] [--contexts a,b]\n"
            "  greedy -m MODEL (--ids \"1 2 3\" | --ids-file F) [-n N] [--threads N] [--exact-prefill]\n"
            "  roofline -m MODEL [--threads N] [--context C] [--seconds S]\n"
            "  attention [--shapes demo,125m (or 1b, 7b, qwen1.5b)] [--contexts 8192,32768] [--rows 512] [--threads 2] [--no-baseline]\n"
            "            [--trials N] [--layers N] [--kv-f32] [--window N]\n"
            "  gemm [--rows 512] [--threads 2] [--trials 3]\n"
            "  qgemm [--rows 512] [--threads 2] [--trials 3] [--types Q4_K,Q6_K,Q8_0] [--planes 1,2,wide] [--levels avx2,...]\n"
            "  longctx -m MODEL [--contexts 8192,32768] [--budget 1024] [--gen-tokens 64] [--no-token-major]\n"
            "  decode-matmuls -m MODEL [--tokens 100] [--threads N]\n"
            "  kvcache -m MODEL --text FILE --cache-dir DIR [--tokens 8192,32768,100000] [--threads N]\n"
            "  model-hash [--mib 1024] [--dir DIR] [--trials 3]\n"
            "  cuda-longctx [--shape mistral-7b-bf16|llama3.1-8b-q4km|tiny-bf16|tiny-q4km] [--context 100000]\n"
            "            [--budget 2048] [--gen-tokens 32] [--device cuda] [--measure prefill,decode,resnap,staged,fit]\n"
            "            [--prefill-seconds 300] [--staged-seconds S] [--fit-seconds 20] [--fit-max-tokens N] [--results FILE]\n",
            argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "tokenizer") return snapdoc::bench::bench_tokenizer(argc, argv);
        if (cmd == "model") return snapdoc::bench::bench_model(argc, argv);
        if (cmd == "synthetic") return snapdoc::bench::bench_synthetic(argc, argv);
        if (cmd == "snapkv") return snapdoc::bench::bench_snapkv(argc, argv);
        if (cmd == "greedy") return snapdoc::bench::bench_greedy(argc, argv);
        if (cmd == "quant") return snapdoc::bench::bench_quant(argc, argv);
        if (cmd == "decode-matmuls") return snapdoc::bench::bench_decode_matmuls(argc, argv);
        if (cmd == "roofline") return snapdoc::bench::bench_roofline(argc, argv);
        if (cmd == "attention") return snapdoc::bench::bench_attention(argc, argv);
        if (cmd == "gemm") return snapdoc::bench::bench_gemm(argc, argv);
        if (cmd == "qgemm") return snapdoc::bench::bench_qgemm(argc, argv);
        if (cmd == "longctx") return snapdoc::bench::bench_longctx(argc, argv);
        if (cmd == "kvcache") return snapdoc::bench::bench_kv_cache(argc, argv);
        if (cmd == "model-hash") return snapdoc::bench::bench_model_hash(argc, argv);
        if (cmd == "cuda-longctx") return snapdoc::bench::bench_cuda_longctx(argc, argv);
        std::fprintf(stderr, "snapdoc-bench: unknown command '%s'\n", cmd.c_str());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "snapdoc-bench %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}

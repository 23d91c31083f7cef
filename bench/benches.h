// Each benchmark is a subcommand of snapdoc-bench; it prints numbers (never pass/fail).
#pragma once

namespace snapdoc::bench {

// snapdoc-bench tokenizer --tokenizer FILE [--tokenizer FILE2 ...] --text FILE [--tokens N] [--repeat R]
int bench_tokenizer(int argc, char** argv);
// snapdoc-bench model -m MODEL [--prompt-tokens N] [--gen-tokens N] [--threads N] [--repeat R]
int bench_model(int argc, char** argv);
// snapdoc-bench synthetic --shape NAME [--dtype f16] [--out FILE] [same flags as model]
int bench_synthetic(int argc, char** argv);
// snapdoc-bench snapkv [--shape NAME | -m MODEL] [--prompt-tokens N] [--budget B] [--window W] [--contexts a,b,c]
//                     [--memory token-major|resnap|oneshot]   (one prefill path per process, for peak RSS)
int bench_snapkv(int argc, char** argv);
// snapdoc-bench quant [--rows 4096] [--cols 4096] [--threads 1,2] [--types Q4_K,Q6_K] [--seconds 0.15] [--trials 5]
int bench_quant(int argc, char** argv);
// snapdoc-bench decode-matmuls -m MODEL [--tokens 100] [--threads N]: one token's weight matmuls only,
// the decode loops' two row schedules alternating, against the XOR stream over the model's mapping.
int bench_decode_matmuls(int argc, char** argv);
// snapdoc-bench greedy -m MODEL (--ids "1 2 3" | --ids-file F) [-n N] [--threads N] [--exact-prefill] [--kv-f32]
//   the same work as llama_oracle's greedy, for timing both engines as whole processes
int bench_greedy(int argc, char** argv);
// snapdoc-bench roofline -m MODEL [--threads N] [--context C] [--seconds S]
//   read bandwidth and the bytes a decoded token streams from the file -> decode tok/s bound
int bench_roofline(int argc, char** argv);
// snapdoc-bench attention [--shapes demo,125m,1b,7b] [--contexts 8192,32768] [--rows 512] [--threads 2] [--trials 2]
//                         [--window 32] [--isa auto|avx512|avx2|portable] [--kv-f32] [--no-baseline]   prefill attention GFLOP/s, old vs tiled, vs the sgemm ceiling
int bench_attention(int argc, char** argv);
// snapdoc-bench gemm [--rows 512] [--threads 2] [--trials 3]   prefill GEMM GFLOP/s, ours vs OpenBLAS
int bench_gemm(int argc, char** argv);
// snapdoc-bench qgemm [--rows 512] [--threads 2] [--trials 3] [--types Q4_K,Q6_K,Q8_0] [--planes 1,2] [--levels avx2,...]
//   quantized prefill matmul GOP/s at Llama-3.2-1B shapes: integer GEMM per kernel level vs exact f32
int bench_qgemm(int argc, char** argv);
// snapdoc-bench longctx -m MODEL [--contexts 8192,32768] [--budget 1024] [--window 32] [--gen-tokens 64] [--kv-f32]
//                      [--threads N] [--no-token-major]   prefill and decode tok/s at long context, full vs SnapKV
int bench_longctx(int argc, char** argv);
// snapdoc-bench kvcache -m MODEL --text FILE --cache-dir DIR [--tokens 8192,32768,100000] [--threads N]
//   reopening a document from the on-disk K/V cache (mapped, read) vs prefilling it
int bench_kv_cache(int argc, char** argv);
// snapdoc-bench model-hash [--mib 1024] [--dir DIR] [--trials 3]
//   the K/V cache's whole-model hash at first open (warm, cold) vs later opens (stat + memo)
int bench_model_hash(int argc, char** argv);
// snapdoc-bench cuda-longctx [--shape mistral-7b-bf16|llama3.1-8b-q4km|tiny-bf16|tiny-q4km] [--context 100000]
//     [--budget 2048] [--window 32] [--question 24] [--gen-tokens 32] [--device cuda] [--layers N] [--chunk 512]
//     [--measure prefill,decode,resnap,staged,fit] [--prefill-seconds 300] [--staged-seconds S (the prefill's)]
//     [--fit-seconds 20] [--fit-max-tokens N] [--results FILE]   the issue-13 GPU table on random weights made in memory (appended to FILE)
int bench_cuda_longctx(int argc, char** argv);

}  // namespace snapdoc::bench

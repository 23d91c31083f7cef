// Each benchmark is a subcommand of snapdoc-bench; it prints numbers (never pass/fail).
#pragma once

namespace snapdoc::bench {

// snapdoc-bench tokenizer --tokenizer FILE --text FILE [--tokens N] [--repeat R]
int bench_tokenizer(int argc, char** argv);
// snapdoc-bench model -m MODEL [--prompt-tokens N] [--gen-tokens N] [--threads N] [--repeat R]
int bench_model(int argc, char** argv);
// snapdoc-bench synthetic --shape NAME [--dtype f16] [--out FILE] [same flags as model]
int bench_synthetic(int argc, char** argv);
// snapdoc-bench snapkv [--shape NAME | -m MODEL] [--prompt-tokens N] [--budget B] [--window W] [--contexts a,b,c]
//                     [--memory token-major|resnap|oneshot]   (one prefill path per process, for peak RSS)
int bench_snapkv(int argc, char** argv);

}  // namespace snapdoc::bench

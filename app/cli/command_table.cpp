#include "app/cli/command_table.h"

#include "app/cli/commands.h"

namespace snapdoc::cli {

namespace {

constexpr Command kCommands[] = {
    {"generate", cmd_generate,
     "  generate -m MODEL -p PROMPT [-n N] [--temp T] [--top-k K] [--top-p P] [--min-p P]\n"
     "           [--repeat-penalty R] [--seed S] [--threads N] [--no-bos] [--ignore-eos] [--print-ids]\n"
     "                 generate text; only the generated text goes to stdout, stats to stderr;\n"
     "                 stops on any end-of-generation id of the model (eos/eot/eom) unless --ignore-eos\n"},
    {"tokenize", cmd_tokenize, "  tokenize -m MODEL -p TEXT [--bos]     print token ids, space-separated\n"},
    {"eval", cmd_eval,
     "  eval -m MODEL --ids \"1 2 3\" --logits-out FILE [--ctx N]\n"
     "                 write every position's logits as little-endian f32 [T, vocab]\n"},
    {"info", cmd_info, "  info -m MODEL  architecture, shapes, dtype, parameters, memory, tokenizer\n"},
    {"ask", cmd_ask,
     "  ask -m MODEL (--doc FILE)... (-q|--question Q)... [--budget 1024] [--window 32] [--kernel 7]\n"
     "      [--pool max|avg] [--gqa kv-head|query-head] [--policy uniform|pyramid|adaptive] [--full]\n"
     "      [--template NAME] [--system TEXT] [-n 256] [--temp 0] [--top-k 40] [--top-p 0.95] [--seed 0]\n"
     "      [--json OUT] [--conversation] [--history-keep 2048] [--no-citations]\n"
     "      [--cache-dir DIR | --no-cache] [--cache-cap-mb 4096]\n"
     "                 answer each question over one document prefill (re-snapping per question);\n"
     "                 --conversation: the questions are turns of one conversation;\n"
     "                 --doc: text, .md, .pdf (text layer), .docx, .odt or .epub; several --doc:\n"
     "                 one conversation over all of them, citations name their document\n"
     "  ask --remote URL [--api-key KEY] [--ca-cert FILE | --insecure] [--model NAME] (--doc FILE)...\n"
     "      (-q|--question Q)... [--system TEXT] [-n 256] [--temp 0] [--top-k K] [--top-p P] [--seed S]\n"
     "      [--json OUT] [--conversation] [--no-citations] [--connect-timeout 10] [--stall-timeout 300]\n"
     "                 the same on a remote engine: a snapdoc-server (document sessions, citations),\n"
     "                 or vLLM, llama-server, Ollama, LM Studio, any OpenAI-compatible server (the\n"
     "                 document in the prompt, refused when it does not fit the model's context)\n"},
    {"inspect", cmd_inspect,
     "  inspect -m MODEL (--doc FILE --question Q | --ids \"...\") [compression flags] --json OUT\n"
     "                 prefill and select only; write each head's kept positions and pooled scores\n"},
    {"prompt", cmd_prompt,
     "  prompt -m MODEL --doc FILE -q Q [--template NAME] [--system TEXT]\n"
     "                 print the prompt's token ids (document part, question part)\n"},
    {"eval-niah", cmd_eval_niah,
     "  eval-niah -m MODEL [--lengths 512,1024] [--depths 0,10,...,100] [--trials 4]\n"
     "      [--budgets full,64,128,256,10%] [--window W --kernel K --pool P --gqa G --policy P]\n"
     "      [--facts-per-1k 10] [-n 24] [--template NAME] [--seed S] [--csv OUT] [--trials-csv OUT]\n"
     "      [--png OUT.png] [--docs-out DIR] [--quiet]\n"
     "                 needle-in-a-haystack accuracy per length x depth, full KV vs SnapKV budgets;\n"
     "                 one heatmap per setting (OUT-full.png, OUT-b128.png, ...)\n"},
    {"eval-multi", cmd_eval_multi,
     "  eval-multi -m MODEL [--length 1024] [--questions 4] [--docs 25] [--budgets 10%]\n"
     "      [--window W --kernel K --pool P --gqa G --policy P] [--facts-per-1k 10] [-n 24]\n"
     "      [--template NAME] [--seed S] [--csv OUT] [--quiet]\n"
     "                 several questions per document: re-snap vs compress-once vs query-agnostic\n"},
    {"make-sample", cmd_make_sample,
     "  make-sample -m MODEL --out FILE [--tokens 100000] [--questions 5] [--facts-per-1k 2] [--seed 7]\n"
     "                 write a generated report and FILE's .questions.tsv (the demo's long sample)\n"},
    {"pull", cmd_pull,
     "  pull REPO[:QUANT] | pull REPO FILE [--hf-token T] [--hf-endpoint URL]\n"
     "                 download a GGUF (or shard set) from the Hugging Face hub into the models folder;\n"
     "                 progress on stderr, the local path on stdout; Ctrl-C pauses, a rerun resumes\n"},
    {"models", cmd_models,
     "  models [--catalogue [--tokens 100000 | --doc FILE] [--budget 1024]]\n"
     "                 the models folder's GGUF files with their sizes; --catalogue: the catalogue with\n"
     "                 a fit estimate for a document of that length on this machine, the pick marked *\n"
     "  models --remote URL [--api-key KEY] [--ca-cert FILE | --insecure]\n"
     "                 the remote endpoint's engine and models, with each model's context\n"},
};

}  // namespace

std::span<const Command> commands() {
    return kCommands;
}

const Command* find_command(std::string_view name) {
    for (const Command& c : kCommands)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace snapdoc::cli

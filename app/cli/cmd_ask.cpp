// snapdoc-cli ask: one document prefill, then every --question answered by re-snapping; with
// --conversation the questions are successive turns of one conversation. Citations follow each answer.
// --doc may be given several times: the documents share one conversation (app/common/document_set.h),
// and each citation names its document.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/kv_cache_flags.h"
#include "app/cli/ask_json.h"
#include "app/cli/document_set_flags.h"
#include "app/cli/model_setup.h"
#include "app/cli/question_flags.h"
#include "app/cli/ocr_flags.h"
#include "app/cli/prefill_notice.h"
#include "app/cli/remote_commands.h"
#include "app/cli/snapkv_flags.h"
#include "app/common/document_pages.h"
#include "app/common/document_set_load.h"
#include "app/documents/document_reader.h"
#include "engine/common/error.h"
#include "engine/common/memory_stats.h"
#include "engine/model/model_summary.h"
#include "engine/session/run_context.h"
#include "engine/session/context_check.h"
#include "engine/session/citations.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

int cmd_ask(int argc, char** argv) {
    if (has_remote_flag(argc, argv)) return cmd_ask_remote(argc, argv);
    auto flags = model_flags();
    const auto kvf = snapkv_flags();
    flags.insert(flags.end(), kvf.begin(), kvf.end());
    const auto cachef = kv_cache_flags();
    flags.insert(flags.end(), cachef.begin(), cachef.end());
    const auto ocrf = ocr_flags();
    flags.insert(flags.end(), ocrf.begin(), ocrf.end());
    flags.insert(flags.end(), {{{"--doc"}, true, true}, {{"-q", "--question"}, true, true}, {{"--template"}}, {{"--system"}},
                               {{"-n", "--n-predict"}}, {{"--temp"}}, {{"--top-k"}}, {{"--top-p"}}, {{"--seed"}},
                               {{"--json"}}, {{"--ignore-context"}, false}, {{"--conversation"}, false},
                               {{"--no-citations"}, false}, {{"--history-keep"}}});
    const Args args(flags, argc, argv, 2);
    const std::vector<std::string> doc_paths = args.all("doc");
    auto questions = questions_from(args);
    const SnapKvConfig snap = snapkv_config_from(args);
    AskOptions opts;
    opts.snapkv = snap;
    opts.max_new_tokens = n_predict_flag(args, 256);
    opts.sampling.temperature = args.real("temp", 0.0f);
    opts.sampling.top_k = args.integer("top-k", 40);
    opts.sampling.top_p = args.real("top-p", 0.95f);
    opts.sampling.seed = static_cast<uint64_t>(args.integer64("seed", 0));
    opts.sampling.validate();
    const bool conversation = args.has("conversation");
    opts.citations = !args.has("no-citations");
    opts.history_keep_tokens = args.integer("history-keep", opts.history_keep_tokens);
    if (opts.history_keep_tokens < -1) throw Error("--history-keep must be -1 (keep all turns whole) or >= 0");
    // Ctrl-C from here on is reported, not the default kill: reading and tokenizing a long document
    // and loading the model take seconds, and an interrupt there stops before the prefill.
    const auto& cancel = install_interrupt_flag();
    opts.cancel = &cancel;
    // Every document is read (and a bad one refused, named) before the model is loaded.
    const std::vector<SetDocument> docs = documents_for_cli(args, &cancel);

    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/true, /*need_backend=*/false);
    const ChatTemplateKind kind = choose_chat_template(lm.model->chat_template, args.str("template"));
    if (args.str("template").empty() && kind == ChatTemplateKind::Plain && !lm.model->chat_template.empty())
        std::fprintf(stderr, "warning: %s (--template NAME chooses one)\n",
                     detect_chat_template(lm.model->chat_template).reason.c_str());
    // Tokenized and checked against the context before any prefill (a too-long document used to be
    // refused only after minutes of prefill).
    const bool ignore_context = args.has("ignore-context");
    opts.ignore_context = ignore_context;
    const DocumentSetPart set_part = build_document_set_part(kind, *lm.tokenizer, args.str("system"), docs);
    const std::vector<int32_t>& doc_part = set_part.ids;
    const bool several = docs.size() > 1;
    std::size_t longest_question = 0, all_questions = 0;
    for (const auto& q : questions) {
        const std::size_t n = build_question_part(kind, *lm.tokenizer, q).size();
        longest_question = std::max(longest_question, n);
        all_questions += n;
    }
    // The context this chat runs with (LongRoPE's short or long factors: document_run_context). A
    // conversation needs every question and answer (plus the template's tokens of each turn).
    const int64_t needed = static_cast<int64_t>(doc_part.size()) +
                           (conversation ? static_cast<int64_t>(all_questions) +
                                               static_cast<int64_t>(questions.size()) * (opts.max_new_tokens + 64)
                                         : static_cast<int64_t>(longest_question) + opts.max_new_tokens);
    const int run_context = document_run_context(lm.model->config.rope_scaling, needed);
    if (run_context > 0)
        std::fprintf(stderr,
                     "note: LongRoPE short factors: this chat needs at most %lld tokens, so it runs with a "
                     "%d-token context\n",
                     static_cast<long long>(needed), run_context);
    lm.backend = make_cli_backend(args, *lm.model, run_context);
    // The CLI's checks keep within the run context; the estimate above is generous (64 template
    // tokens per turn, every answer at -n), so the engine's own checks at the model's context agree.
    const int ctx = run_context > 0 ? run_context : lm.backend->config().context_length;
    DocumentChat chat(*lm.backend, *lm.tokenizer, kind);
    const auto kv_cache = attach_kv_cache(args, chat, lm.model->path, run_context);
    if (cancel.load()) throw Cancelled();
    try {
        check_context_room(static_cast<int64_t>(doc_part.size() + longest_question), opts.max_new_tokens, ctx,
                           several ? "documents + question + answer" : "document + question + answer",
                           ignore_context);
    } catch (const Error& e) {
        if (!several) throw;
        throw Error(std::string(e.what()) + "; the documents: " + document_shares_text(docs, set_part));
    }
    if (!chat.kv_cache_has(doc_part, args.str("system"))) announce_prefill(*lm.backend, doc_part);
    const DocumentSetLoad loaded =
        load_document_set(chat, *lm.backend, *lm.tokenizer, kind, kv_cache.get(),
                          kv_cache ? kv_cache->model_identity(lm.model->path) : ModelIdentity{}, run_context, set_part,
                          args.str("system"), &cancel);
    const int reused_rows = loaded.reused_rows;
    if (reused_rows > 0)
        std::fprintf(stderr,
                     "K/V cache: documents 1-%zu (%d tokens) restored from %s in %.3f s; prefilled only the other "
                     "%d tokens in %.2f s\n",
                     loaded.from_documents, reused_rows, loaded.file.string().c_str(), loaded.restore_seconds,
                     static_cast<int>(doc_part.size()) - reused_rows, chat.cache_report().prefill_seconds);
    const int doc_tokens = static_cast<int>(doc_part.size());
    report_kv_cache(chat);
    // A citation's document and, in a PDF, its page (no page map is built for a document without pages).
    const DocumentSetCitations sources(*lm.tokenizer, set_part, docs);
    if (several) std::fprintf(stderr, "documents: %s\n", document_shares_text(docs, set_part).c_str());
    if (!chat.served_from_cache())
        std::fprintf(stderr, "document: %d tokens (template %s), prefilled in %.2f s (%.1f tok/s, layer-major)\n",
                     doc_tokens - reused_rows, std::string(chat_template_name(kind)).c_str(),
                     chat.cache_report().prefill_seconds,
                     (doc_tokens - reused_rows) / std::max(1e-9, chat.cache_report().prefill_seconds));

    nlohmann::json listed = nlohmann::json::array();
    for (std::size_t d = 0; d < docs.size(); ++d) {
        nlohmann::json j = {{"document", docs[d].name}, {"path", doc_paths[d]}, {"tokens", set_part.tokens_of(d)}};
        if (!docs[d].page_starts.empty()) j["pages"] = docs[d].page_starts.size();
        listed.push_back(std::move(j));
    }
    nlohmann::json out = {{"document", doc_paths[0]},
                          {"documents", listed},
                          {"document_tokens", doc_tokens},
                          {"reused_document_tokens", reused_rows},
                          {"template", chat_template_name(kind)},
                          {"document_seconds", chat.document_seconds()},
                          {"served_from_kv_cache", chat.served_from_cache()},
                          {"compression", snap.enabled ? "snapkv" : "full"},
                          {"budget", snap.budget},
                          {"window", snap.window},
                          {"kernel", snap.kernel},
                          {"pool", pooling_name(snap.pooling)},
                          {"gqa", gqa_mode_name(snap.gqa)},
                          {"policy", budget_policy_name(snap.policy)},
                          {"conversation", conversation},
                          {"answers", nlohmann::json::array()}};
    if (several) out.erase("document");  // "documents" lists them; "document" stays for one, as before
    // Every answered turn reaches --json, also when a later one fails (the error is recorded too).
    try {
        for (std::size_t i = 0; i < questions.size(); ++i) {
            if (conversation && i > 0) {
                // The context is checked by ask, which leaves out the oldest turns that do not fit.
                opts.history.push_back(
                    {questions[i - 1], out["answers"].back()["answer"].get<std::string>()});
            } else {
                check_context_room(chat.prompt_tokens_for(questions[i]), opts.max_new_tokens, ctx,
                                   "document + question + answer", ignore_context);
            }
            opts.on_text = [](const std::string& t) {
                std::fwrite(t.data(), 1, t.size(), stdout);
                std::fflush(stdout);
            };
            const AskResult r = chat.ask(questions[i], opts);
            std::fputc('\n', stdout);
            // Sources: a few lines per answer, the passage's page (a PDF), document tokens and its text.
            nlohmann::json citations = nlohmann::json::array();
            for (std::size_t c = 0; c < r.citations.size(); ++c) {
                const Citation& cit = r.citations[c];
                const std::string text = chat.document_excerpt(cit.first_token, cit.last_token);
                const DocumentSetCitations::Source src = sources.locate(cit);
                const int page = src.page;
                std::string where = several ? docs[src.document].name + ", " : std::string();
                if (page > 0) where += "page " + std::to_string(page) + ", ";
                std::printf("  [%zu] %stokens %d-%d (%.0f%%): %s\n", c + 1, where.c_str(), cit.first_token,
                            cit.last_token, 100.0 * cit.weight, text.c_str());
                nlohmann::json j = {{"first_token", cit.first_token},
                                    {"last_token", cit.last_token},
                                    {"weight", cit.weight},
                                    {"text", chat.document_excerpt(cit.first_token, cit.last_token, 2000)}};
                if (several) {  // one document's citations stay as they were
                    j["document"] = docs[src.document].name;
                    j["document_index"] = src.document + 1;
                }
                if (page > 0) j["page"] = page;  // 1-based in its document; left out for one without pages
                citations.push_back(std::move(j));
            }
            std::fflush(stdout);
            if (conversation) {
                if (r.dropped_turns > 0)
                    std::fprintf(stderr,
                                 "turn %zu: the oldest %d of %zu turns are left out of the prompt to fit the "
                                 "context\n",
                                 i + 1, r.dropped_turns, opts.history.size());
                std::fprintf(stderr,
                             "turn %zu: %d history tokens, %d tokens reused, %d run through the layers\n",
                             i + 1, r.history_tokens, r.reused_tokens, r.forwarded_tokens);
            }
            const auto& g = r.generation;
            const double decode_tps =
                g.tokens.size() > 1 ? (g.tokens.size() - 1) / std::max(1e-9, g.decode_seconds) : 0.0;
            std::fprintf(stderr,
                         "question %zu: prompt %d tokens (%d question) | kept %lld of %lld KV entries (%s) | "
                         "KV %s full vs %s "
                         "compressed (%.1fx) | question prefill %.3f s, select %.1f ms | %zu tokens at %.1f "
                         "tok/s | stop %s\n",
                         i + 1, g.prompt_tokens, r.question_tokens,
                         static_cast<long long>(r.selection->kept_entries()),
                         static_cast<long long>(r.selection->full_entries(lm.model->config.n_kv_heads)),
                         r.selection->compressed ? "compressed" : "not compressed",
                         format_bytes(g.kv_bytes_full).c_str(), format_bytes(g.kv_bytes_compressed).c_str(),
                         static_cast<double>(g.kv_bytes_full) / std::max<int64_t>(1, g.kv_bytes_compressed),
                         r.question_seconds, r.select_seconds * 1e3, g.tokens.size(), decode_tps,
                         stop_reason_name(g.stop));
            out["answers"].push_back({{"question", questions[i]},
                                      {"answer", r.answer},
                                      {"prompt_tokens", g.prompt_tokens},
                                      {"question_tokens", r.question_tokens},
                                      {"generated_tokens", g.tokens.size()},
                                      {"kept_entries", r.selection->kept_entries()},
                                      {"compressed", r.selection->compressed},
                                      {"kv_bytes_full", g.kv_bytes_full},
                                      {"kv_bytes_compressed", g.kv_bytes_compressed},
                                      {"question_seconds", r.question_seconds},
                                      {"select_seconds", r.select_seconds},
                                      {"decode_seconds", g.decode_seconds},
                                      {"stop", stop_reason_name(g.stop)},
                                      {"history_tokens", r.history_tokens},
                                      {"dropped_turns", r.dropped_turns},
                                      {"reused_tokens", r.reused_tokens},
                                      {"forwarded_tokens", r.forwarded_tokens},
                                      {"citation_seconds", r.citation_seconds},
                                      {"citations", citations}});
            if (g.stop == StopReason::Cancelled) break;
        }
    } catch (const std::exception& e) {
        write_ask_json_after(e, args, out);
        throw;
    }
    std::fprintf(stderr, "peak RSS %s\n", format_bytes(peak_rss_bytes()).c_str());
    write_ask_json(args, out);
    return cancel.load() ? 130 : 0;
}

}  // namespace snapdoc::cli

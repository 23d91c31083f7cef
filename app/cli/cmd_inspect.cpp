// snapdoc-cli inspect: prefill and select only; writes what every head kept and the pooled scores.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "app/cli/ocr_flags.h"
#include "app/cli/prefill_notice.h"
#include "app/cli/snapkv_flags.h"
#include "app/documents/document_reader.h"
#include "app/common/selection_json.h"
#include "engine/common/atomic_file.h"
#include "engine/common/error.h"
#include "engine/session/context_check.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

namespace {

// The writer is shared with the app's "Export selection…" (app/common/selection_json).
// Plus, for a model that names its heads, "head_roles": per layer the query heads' role names.
nlohmann::json selection_json(const Selection& sel, const DocumentSession& session, const Model& model) {
    nlohmann::json j = snapdoc::selection_json(sel, session.full_bytes(sel.prompt_len), session.compressed_bytes(sel));
    if (!model.head_roles.empty()) {
        const auto per_layer = static_cast<std::ptrdiff_t>(model.config.n_heads);
        nlohmann::json roles = nlohmann::json::array();
        for (auto it = model.head_roles.begin(); it != model.head_roles.end(); it += per_layer)
            roles.push_back(std::vector<std::string>(it, it + per_layer));
        j["head_roles"] = std::move(roles);
    }
    return j;
}

}  // namespace

int cmd_inspect(int argc, char** argv) {
    auto flags = model_flags();
    const auto kvf = snapkv_flags();
    flags.insert(flags.end(), kvf.begin(), kvf.end());
    const auto ocrf = ocr_flags();
    flags.insert(flags.end(), ocrf.begin(), ocrf.end());
    flags.insert(flags.end(),
                 {{{"--doc"}}, {{"-q", "--question"}}, {{"--ids"}}, {{"--template"}}, {{"--system"}}, {{"--json"}},
                  {{"--ignore-context"}, false}});
    const Args args(flags, argc, argv, 2);
    const std::string json_path = args.required("json");
    const SnapKvConfig snap = snapkv_config_from(args);
    const bool by_ids = args.has("ids");
    if (by_ids == (args.has("doc") || args.has("question")))
        throw Error("give either --doc FILE --question Q, or --ids \"...\"");

    LoadedModel lm = load_for_cli_interruptible(args, /*need_tokenizer=*/!by_ids, /*need_backend=*/true);
    const ModelConfig& cfg = lm.model->config;
    const int ctx = lm.backend->config().context_length;
    const bool ignore_context = args.has("ignore-context");
    // Ctrl-C stops the prefill; main() reports it.
    const std::atomic<bool>* cancel = &install_interrupt_flag();
    std::shared_ptr<const Selection> sel;
    std::unique_ptr<DocumentSession> session;
    if (by_ids) {
        // The ids are the whole prompt: no template, no BOS. The last min(W, L-1) tokens play the
        // question; any split gives the same result (tested), this one puts the window in the question.
        const auto ids = parse_int_list(args.str("ids"), "--ids");
        if (ids.size() < 2) throw Error("--ids needs at least 2 tokens");
        const int L = static_cast<int>(ids.size());
        const int q = std::min(snap.window, L - 1);
        check_context_room(L, 0, ctx, "the --ids", ignore_context);
        session = std::make_unique<DocumentSession>(*lm.backend);
        announce_prefill(*lm.backend, std::span(ids).first(L - q));
        session->prefill_document(std::span(ids).first(L - q), {}, cancel);
        session->set_question(std::span(ids).last(q), snap.window, cancel);
        sel = session->select(snap);
        nlohmann::json j = selection_json(*sel, *session, *lm.model);
        AtomicFileWriter f(json_path);
        f.write(j.dump() + "\n");
        f.commit();
    } else {
        const std::string document = read_document_for_cli(args.required("doc"), args, cancel).text;
        const ChatTemplateKind kind = choose_chat_template(lm.model->chat_template, args.str("template"));
        DocumentChat chat(*lm.backend, *lm.tokenizer, kind);
        const std::string question = args.required("question");
        const std::vector<int32_t> doc_part = build_document_part(kind, *lm.tokenizer, args.str("system"), document);
        const std::vector<int32_t> question_part = build_question_part(kind, *lm.tokenizer, question);
        check_context_room(static_cast<int64_t>(doc_part.size() + question_part.size()), 0, ctx,
                           "document + question", ignore_context);
        announce_prefill(*lm.backend, doc_part);
        chat.load_document_tokens(doc_part, {}, cancel);
        chat.session().set_question(question_part, snap.window, cancel);
        sel = chat.session().select(snap);
        nlohmann::json j = selection_json(*sel, chat.session(), *lm.model);
        AtomicFileWriter f(json_path);
        f.write(j.dump() + "\n");
        f.commit();
    }
    std::fprintf(stderr, "prompt %d tokens, window %d, %s: kept %lld of %lld KV entries -> %s\n", sel->prompt_len,
                 sel->window, sel->compressed ? "compressed" : "not compressed",
                 static_cast<long long>(sel->kept_entries()), static_cast<long long>(sel->full_entries(cfg.n_kv_heads)),
                 json_path.c_str());
    return 0;
}

}  // namespace snapdoc::cli

// snapdoc-cli prompt: the token ids the engine builds for a question about a document (document part,
// then question part) — for checking a model's prompt format, e.g. against a training pipeline.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "app/cli/ocr_flags.h"
#include "app/documents/document_reader.h"
#include "engine/session/document_chat.h"

namespace snapdoc::cli {

int cmd_prompt(int argc, char** argv) {
    auto flags = model_flags();
    flags.insert(flags.end(), {{{"--doc"}}, {{"-q", "--question"}}, {{"--template"}}, {{"--system"}}});
    const auto ocrf = ocr_flags();
    flags.insert(flags.end(), ocrf.begin(), ocrf.end());
    const Args args(flags, argc, argv, 2);
    const std::string document = read_document_for_cli(args.required("doc"), args).text;
    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/true, /*need_backend=*/false);
    const ChatTemplateKind kind = choose_chat_template(lm.model->chat_template, args.str("template"));
    const DocumentPrompt p =
        build_document_prompt(kind, *lm.tokenizer, args.str("system"), document, args.required("question"));
    std::printf("template %s\ndocument_part", std::string(chat_template_name(kind)).c_str());
    for (int32_t id : p.document_part) std::printf(" %d", id);
    std::printf("\nquestion_part");
    for (int32_t id : p.question_part) std::printf(" %d", id);
    std::printf("\n");
    return 0;
}

}  // namespace snapdoc::cli

#include "app/cli/question_flags.h"

#include <cstdio>

#include "engine/common/error.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc::cli {

std::vector<std::string> questions_from(const Args& args) {
    auto questions = args.all("question");
    if (questions.empty()) throw Error("give at least one --question");
    for (std::size_t i = 0; i < questions.size(); ++i)
        if (!utf8::is_valid(questions[i])) {
            questions[i] = utf8::sanitize(questions[i]);
            std::fprintf(stderr, "warning: question %zu is not valid UTF-8; its invalid bytes are replaced by U+FFFD\n",
                         i + 1);
        }
    return questions;
}

}  // namespace snapdoc::cli

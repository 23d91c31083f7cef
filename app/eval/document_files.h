// Generated documents written out as files a person (or the app) can open: the text, and next to it
// `<stem>.questions.tsv` with one "question<TAB>expected value" line per asked fact (the format of
// resources/samples/demo-report.questions.tsv, which the app shows as suggested questions).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/eval/haystack.h"

namespace snapdoc::eval {

// "dir/report.txt" -> "dir/report.questions.tsv".
std::filesystem::path questions_path(const std::filesystem::path& document);

// Writes `text` (plus a final newline) to `path` and the questions of `asked` beside it, each
// atomically; creates the parent folder. Throws Error when a file cannot be written.
void write_document_files(const std::filesystem::path& path, const std::string& text, const std::vector<Fact>& asked);

// A long sample document for the demo: `asked` facts at evenly spread depths ((i + 0.5) / asked),
// asked in document order, among distractor facts (`facts_per_1k` in all per 1000 tokens, at least
// `asked`), about `target_tokens` long.
struct SampleDocument {
    Document document;
    std::vector<Fact> asked;
};
SampleDocument sample_document(Rng& rng, int target_tokens, const TokenCounter& count, int asked, int facts_per_1k);

}  // namespace snapdoc::eval

#include "app/eval/document_files.h"

#include <algorithm>
#include <cmath>
#include <system_error>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc::eval {

std::filesystem::path questions_path(const std::filesystem::path& document) {
    std::filesystem::path p = document;
    p.replace_extension(".questions.tsv");
    return p;
}

void write_document_files(const std::filesystem::path& path, const std::string& text, const std::vector<Fact>& asked) {
    if (path.has_parent_path()) {
        std::error_code ec;
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) throw Error("cannot create folder " + path.parent_path().string() + ": " + ec.message());
    }
    AtomicFileWriter doc(path);
    doc.write(text);
    if (text.empty() || text.back() != '\n') doc.write(std::string("\n"));
    doc.commit();
    std::string tsv;
    for (const Fact& f : asked) tsv += f.question() + "\t" + f.value + "\n";
    AtomicFileWriter q(questions_path(path));
    q.write(tsv);
    q.commit();
}

SampleDocument sample_document(Rng& rng, int target_tokens, const TokenCounter& count, int asked, int facts_per_1k) {
    if (asked < 1) throw Error("sample_document: ask at least one question");
    const int total = std::max(asked, static_cast<int>(std::lround(target_tokens * facts_per_1k / 1000.0)));
    std::vector<Fact> facts = make_facts(rng, total, 0.6);
    std::vector<double> depths;
    for (int i = 0; i < total; ++i) depths.push_back(i < asked ? (i + 0.5) / asked : rng.real());
    SampleDocument out;
    out.asked.assign(facts.begin(), facts.begin() + asked);
    out.document = build_document(rng, target_tokens, count, facts, depths);
    return out;
}

}  // namespace snapdoc::eval

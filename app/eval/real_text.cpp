#include "app/eval/real_text.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "engine/common/error.h"
#include "engine/common/trim.h"

namespace snapdoc::eval {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Blank-line separated paragraphs, trimmed, without empty ones and without the engine's question
// prefix (the demo model reads "Question:" as the start of the question). A paragraph longer than
// kMaxParagraph bytes (a file with no blank lines) is cut at line ends, so that a document's length
// can be met to within a paragraph.
constexpr std::size_t kMaxParagraph = 1500;
// What a paragraph break adds to a document's length beside its paragraphs' own counts ("\n\n" is two
// byte tokens with the demo tokenizer).
constexpr int kBreakTokens = 2;

void add_paragraph(std::vector<std::string>& out, std::string_view p) {
    while (p.size() > kMaxParagraph) {
        std::size_t cut = p.rfind('\n', kMaxParagraph);
        if (cut == std::string_view::npos || cut == 0) cut = kMaxParagraph;
        add_paragraph(out, p.substr(0, cut));
        p = p.substr(cut);
    }
    std::string t(trim_whitespace(p));
    if (!t.empty() && t.find("Question:") == std::string::npos) out.push_back(std::move(t));
}

std::vector<std::string> paragraphs_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find("\n\n", start);
        if (end == std::string::npos) end = text.size();
        add_paragraph(out, std::string_view(text).substr(start, end - start));
        start = end + 2;
    }
    return out;
}

// Regular files matching `dir/*/name` (name non-empty) or `dir/*suffix`, sorted, at most `limit`
// of them spread evenly over the sorted list.
std::vector<fs::path> list_files(const fs::path& dir, const std::string& name, const std::string& suffix,
                                 int limit) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const fs::path p = name.empty() ? e.path() : e.path() / name;
        if (!suffix.empty() && !p.filename().string().ends_with(suffix)) continue;
        if (fs::is_regular_file(p, ec)) out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    if (static_cast<int>(out.size()) <= limit) return out;
    // Every k-th name, so that the chosen files spread over the whole listing.
    std::vector<fs::path> spread;
    for (int i = 0; i < limit; ++i) spread.push_back(out[static_cast<std::size_t>(i) * out.size() / static_cast<std::size_t>(limit)]);
    return spread;
}

void add_source(std::vector<TextSource>& out, const fs::path& path) {
    TextSource s = read_text_source(path);
    if (!s.paragraphs.empty()) out.push_back(std::move(s));
}

}  // namespace

TextSource read_text_source(const std::filesystem::path& path) { return {path, paragraphs_of(read_file(path))}; }

TextSource text_source(const std::filesystem::path& path, const std::string& text) { return {path, paragraphs_of(text)}; }

std::vector<TextSource> debian_text_sources(int max_copyright, int max_python) {
    std::vector<TextSource> out;
    for (const fs::path& p : list_files("/usr/share/common-licenses", "", "", 100)) add_source(out, p);
    for (const fs::path& p : list_files("/usr/share/doc", "copyright", "", max_copyright)) add_source(out, p);
    std::error_code ec;
    std::vector<fs::path> python_dirs;
    for (const auto& e : fs::directory_iterator("/usr/lib", ec))
        if (e.path().filename().string().starts_with("python3.") && fs::is_directory(e.path(), ec))
            python_dirs.push_back(e.path());
    std::sort(python_dirs.begin(), python_dirs.end());
    if (!python_dirs.empty())
        for (const fs::path& p : list_files(python_dirs.back(), "", ".py", max_python)) add_source(out, p);
    return out;
}

Document real_text_document(Rng& rng, const std::vector<TextSource>& sources, int target_tokens,
                            const TokenCounter& count, const std::vector<Fact>& facts,
                            const std::vector<double>& depths) {
    if (sources.empty()) throw Error("real-text haystack: no source texts");
    if (facts.size() != depths.size()) throw Error("real-text haystack: one depth per fact");
    std::vector<std::string> body;
    int used = 0;
    for (const Fact& f : facts) used += count(f.sentence()) + kBreakTokens;
    while (used < target_tokens) {
        const TextSource& s = rng.pick(sources);
        const int n = static_cast<int>(s.paragraphs.size());
        int i = rng.uniform(n);
        for (int run = rng.range(8, 40); run > 0 && i < n && used < target_tokens; --run, ++i) {
            used += count(s.paragraphs[static_cast<std::size_t>(i)]) + kBreakTokens;
            body.push_back(s.paragraphs[static_cast<std::size_t>(i)]);
        }
    }
    // Insert from the deepest fact up, so that earlier insertions do not shift later depths.
    std::vector<std::size_t> order(facts.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return depths[a] > depths[b]; });
    Document doc;
    for (std::size_t k : order) {
        const auto idx = static_cast<std::size_t>(std::clamp(depths[k], 0.0, 1.0) * static_cast<double>(body.size()) + 0.5);
        body.insert(body.begin() + static_cast<std::ptrdiff_t>(std::min(idx, body.size())), facts[k].sentence());
    }
    std::vector<std::size_t> asc(order.rbegin(), order.rend());
    for (std::size_t k : asc) {
        doc.facts.push_back(facts[k]);
        doc.depths.push_back(depths[k]);
    }
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (i > 0) doc.text += "\n\n";
        doc.text += body[i];
    }
    doc.estimated_tokens = used;
    return doc;
}

}  // namespace snapdoc::eval

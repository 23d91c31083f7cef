#include "tests/support/paged_report.h"

#include <algorithm>
#include <fstream>

namespace snapdoc::testing {

namespace {

// The sample report's sentences without its "... for the ..." facts, and without characters a
// PDF string would need escaped.
std::vector<std::string> filler_sentences(const std::filesystem::path& sample_report) {
    std::vector<std::string> out;
    std::ifstream in(sample_report);
    for (std::string line; std::getline(in, line);) {
        std::size_t from = 0;
        while (from < line.size()) {
            std::size_t end = line.find(". ", from);
            end = end == std::string::npos ? line.size() : end + 1;
            std::string s = line.substr(from, end - from);
            from = end + 1;
            if (s.size() > 8 && s.back() == '.' && s.find(" for the ") == std::string::npos &&
                s.find_first_of("()\\") == std::string::npos)
                out.push_back(s);
        }
    }
    return out;
}

}  // namespace

PagedReport paged_report(const std::filesystem::path& sample_report) {
    PagedReport r;
    const std::vector<std::string> filler = filler_sentences(sample_report);
    r.pages.resize(3);
    for (std::size_t i = 0; i < 36 && i < filler.size(); ++i) r.pages[i / 14].push_back(filler[i]);
    r.pages[2].insert(r.pages[2].begin() + std::min<std::ptrdiff_t>(4, r.pages[2].size()), r.fact);
    return r;
}

std::string PagedReport::plain_text() const {
    std::string out;
    for (const auto& page : pages)
        for (const auto& line : page) out += line + "\n";
    return out;
}

}  // namespace snapdoc::testing

#include "app/common/document_set.h"

#include <algorithm>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/common/trim.h"

namespace snapdoc {

namespace {

std::string_view checked_text(const SetDocument& doc, std::size_t index) {
    const std::string_view text = trim_whitespace(doc.text);
    if (text.empty()) throw Error("document " + std::to_string(index + 1) + " (" + doc.name + ") is empty");
    return text;
}

}  // namespace

std::string document_title(std::size_t index, std::string_view name) {
    std::string title = "Document " + std::to_string(index + 1) + ": ";
    for (char c : name) title += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    return title;
}

DocumentSetPart build_document_set_part(ChatTemplateKind kind, const Tokenizer& tok, std::string_view system_prompt,
                                        std::span<const SetDocument> docs) {
    if (docs.empty()) throw Error("no document given");
    DocumentSetPart part;
    if (docs.size() == 1) {
        // Exactly the one-document prompt of before: no title, same ids, same K/V cache files.
        part.ids = build_document_part(kind, tok, system_prompt, docs[0].text);
        part.starts = {0};
        part.ends = {static_cast<int>(part.ids.size())};
        return part;
    }
    for (std::size_t i = 0; i < docs.size(); ++i) {
        const std::string block = document_title(i, docs[i].name) + "\n\n" + std::string(checked_text(docs[i], i));
        part.starts.push_back(static_cast<int>(part.ids.size()));
        // The first block ends with the document part's own "\n\n" (build_document_part adds it).
        const std::vector<int32_t> ids = i == 0 ? build_document_part(kind, tok, system_prompt, block)
                                                : encode_text_after_newline(tok, block + "\n\n");
        part.ids.insert(part.ids.end(), ids.begin(), ids.end());
    }
    for (std::size_t i = 0; i < docs.size(); ++i)
        part.ends.push_back(i + 1 < docs.size() ? part.starts[i + 1] : static_cast<int>(part.ids.size()));
    return part;
}

std::string document_set_text(std::span<const SetDocument> docs) {
    if (docs.empty()) throw Error("no document given");
    if (docs.size() == 1) return std::string(checked_text(docs[0], 0));
    std::string out;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        if (i > 0) out += "\n\n";
        out += document_title(i, docs[i].name) + "\n\n" + std::string(checked_text(docs[i], i));
    }
    return out;
}

std::string document_shares_text(std::span<const SetDocument> docs, const DocumentSetPart& part) {
    std::string out;
    const double total = std::max<double>(1, static_cast<double>(part.ids.size()));
    for (std::size_t i = 0; i < docs.size() && i < part.starts.size(); ++i) {
        char share[32];
        std::snprintf(share, sizeof share, "%.0f%%", 100.0 * part.tokens_of(i) / total);
        if (i > 0) out += ", ";
        out += docs[i].name + " " + std::to_string(part.tokens_of(i)) + " tokens (" + share + ")";
    }
    return out;
}

DocumentSetCitations::DocumentSetCitations(const Tokenizer& tok, const DocumentSetPart& part,
                                           std::span<const SetDocument> docs)
    : starts_(part.starts) {
    for (std::size_t i = 0; i < docs.size() && i < part.starts.size(); ++i) {
        // Each document's own block (its title, or the template opening, read as text that is not
        // the document's): CitationPages aligns the block's pieces with its text from the end.
        const std::span<const int32_t> block =
            std::span(part.ids).subspan(static_cast<std::size_t>(part.starts[i]),
                                        static_cast<std::size_t>(part.tokens_of(i)));
        pages_.emplace_back(tok, block, docs[i].text, docs[i].page_starts);
    }
}

DocumentSetCitations::Source DocumentSetCitations::locate(const Citation& citation) const {
    Source s;
    if (starts_.empty()) return s;
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), citation.first_token);
    s.document = std::max(0, static_cast<int>(it - starts_.begin()) - 1);
    Citation local = citation;
    local.first_token -= starts_[s.document];
    local.last_token -= starts_[s.document];
    s.page = pages_[s.document].page_of(local);
    return s;
}

}  // namespace snapdoc

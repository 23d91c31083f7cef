// Several documents in one conversation (issue 41 item 5), for the CLI, the server and the app: how
// the documents are laid out in the prompt, and which document (and page) a citation falls in.
// Qt-free, in app/common, so that every front end lays documents out the same way (and so shares
// K/V cache files and prefix reuse).
//
// Layout. One document is laid out exactly as before (build_document_part: no title), so existing
// prompts and K/V cache files do not change. Several documents, in the order given, each under its
// title (the file name):
//
//     {template opening}Document 1: A.txt\n\n{A}\n\nDocument 2: B.pdf\n\n{B}\n\n
//
// then the question part as for one document. The first block goes through build_document_part
// (which adds its "\n\n"), every later block "Document k: {name}\n\n{text}\n\n" is encoded on its
// own as a continuation after a newline (encode_text_after_newline). So the ids of [A, B] are an
// exact prefix of those of [A, B, C]: a session or K/V cache file of [A, B] holds the first rows of
// [A, B, C], and only C (and what follows) has to be prefilled (DocumentChat::load_document_tokens_from).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/common/document_pages.h"
#include "engine/session/citations.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc {

// One document of a conversation, as read (documents::ExtractedDocument's text and page starts).
struct SetDocument {
    std::string name;                      // its title: the file name ("B.pdf"), or an upload's name
    std::string text;                      // UTF-8
    std::vector<std::size_t> page_starts;  // byte offsets into `text` of its pages (empty: no pages)
};

// "Document 2: B.pdf" (`index` 0-based). Control characters of the name become spaces, so a
// title is always one line.
std::string document_title(std::size_t index, std::string_view name);

struct DocumentSetPart {
    std::vector<int32_t> ids;  // the document part of the prompt (what DocumentChat loads)
    // Per document: the index in ids where its block begins (the first document's is 0: it owns
    // the template opening too) and where it ends (the next one's start; the last's is ids.size()).
    std::vector<int> starts, ends;
    int tokens_of(std::size_t i) const { return ends[i] - starts[i]; }
};

// The document part for `docs` (at least one). Throws Error naming the document ("document 2
// (B.pdf) is empty") for an empty text, and what build_document_part throws.
DocumentSetPart build_document_set_part(ChatTemplateKind kind, const Tokenizer& tok, std::string_view system_prompt,
                                        std::span<const SetDocument> docs);

// The same layout as text, for an engine that applies its own chat template (ask --remote with a
// plain OpenAI server): one document's text as it is, several as their titled blocks joined by a
// blank line. Throws Error naming an empty document.
std::string document_set_text(std::span<const SetDocument> docs);

// "A.txt 1200 tokens (60%), B.pdf 800 tokens (40%)": each document's share of the document part,
// for a refusal that says which document takes the room.
std::string document_shares_text(std::span<const SetDocument> docs, const DocumentSetPart& part);

// Where a citation lies: which document (0-based) and which page of it (1-based; 0 when that
// document has no pages). Built once per loaded document set.
class DocumentSetCitations {
public:
    DocumentSetCitations() = default;
    DocumentSetCitations(const Tokenizer& tok, const DocumentSetPart& part, std::span<const SetDocument> docs);

    struct Source {
        int document = 0;  // 0-based index into the documents
        int page = 0;      // 1-based within that document, 0 without pages
    };
    Source locate(const Citation& citation) const;
    std::size_t documents() const { return starts_.size(); }

private:
    std::vector<int> starts_;
    std::vector<CitationPages> pages_;  // per document, over its own block of ids
};

}  // namespace snapdoc

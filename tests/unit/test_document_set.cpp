// Several documents in one conversation (app/common/document_set.h): for every chat template the
// document part of [A, B] is an exact prefix of [A, B, C]'s (so their K/V can be reused), one
// document is laid out exactly as before, each block carries its title, and a citation is placed
// in the right document and, for a paged one, on the right page of it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/common/document_set.h"
#include "engine/common/error.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/error_text.h"
#include "tests/support/spm_trainer.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using K = ChatTemplateKind;

class DocumentSetLayout : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new testing::TempDir("snapdoc-document-set");
        plain_ = load({});
        chat_ = load({"<|im_start|>", "<|im_end|>"});
        inst_ = load({"[INST]", "[/INST]"});
        llama3_ = load({"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"});
        qwen_ = load({"<|im_start|>", "<|im_end|>", "<think>", "</think>"});
        phi3_ = load({"<|system|>", "<|user|>", "<|assistant|>", "<|end|>"});
        v7_ = load({"[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"});
    }
    static void TearDownTestSuite() {
        for (Tokenizer* t : {plain_, chat_, inst_, llama3_, qwen_, phi3_, v7_}) delete t;
        delete dir_;
    }
    static Tokenizer* load(const std::vector<std::string>& controls) {
        const auto sub = dir_->path() / ("m" + std::to_string(++models_));
        return new Tokenizer(Tokenizer::from_file(train_tiny_sentencepiece(sub, 400, true, controls).string()));
    }
    // The tokenizer each template kind needs (its control pieces).
    static const Tokenizer& tok_for(K kind) {
        switch (kind) {
            case K::Plain: return *plain_;
            case K::Llama2:
            case K::Mistral: return *inst_;
            case K::ChatML:
            case K::Qwen25: return *chat_;
            case K::Zephyr: return *plain_;
            case K::Llama3:
            case K::Llama31: return *llama3_;
            case K::Qwen3: return *qwen_;
            case K::Phi3: return *phi3_;
            case K::MistralV7: return *v7_;
        }
        return *plain_;
    }
    static std::vector<K> kinds() {
        std::vector<K> out;
        for (std::string_view name : chat_template_names()) out.push_back(parse_chat_template_name(name));
        return out;
    }
    static std::string text_of(const Tokenizer& tok, const std::vector<int32_t>& ids, int a, int b) {
        return tok.decode(std::vector<int32_t>(ids.begin() + a, ids.begin() + b));
    }

    const std::vector<SetDocument> docs_ = {
        {"A.txt", "The harbour office opens at nine.\nThe north gate code is 7391.\n", {}},
        {"B.pdf", "Page one of the farm records.\n\nPage two lists the goats.\n\nThe green office batch is 7003.", {}},
        {"C.md", "# Notes\n\nThe mill closes on Fridays.", {}},
    };

    static testing::TempDir* dir_;
    static inline int models_ = 0;
    static Tokenizer *plain_, *chat_, *inst_, *llama3_, *qwen_, *phi3_, *v7_;
};

testing::TempDir* DocumentSetLayout::dir_ = nullptr;
Tokenizer *DocumentSetLayout::plain_ = nullptr, *DocumentSetLayout::chat_ = nullptr, *DocumentSetLayout::inst_ = nullptr,
          *DocumentSetLayout::llama3_ = nullptr, *DocumentSetLayout::qwen_ = nullptr,
          *DocumentSetLayout::phi3_ = nullptr, *DocumentSetLayout::v7_ = nullptr;

TEST_F(DocumentSetLayout, TwoDocumentsAreAnExactPrefixOfThreeForEveryTemplate) {
    const std::span<const SetDocument> all(docs_);
    for (K kind : kinds()) {
        for (const std::string system : {"", "Answer briefly."}) {
            SCOPED_TRACE(std::string(chat_template_name(kind)) + " system '" + system + "'");
            const Tokenizer& tok = tok_for(kind);
            const DocumentSetPart two = build_document_set_part(kind, tok, system, all.first(2));
            const DocumentSetPart three = build_document_set_part(kind, tok, system, all);
            ASSERT_EQ(two.starts.size(), 2u);
            ASSERT_EQ(three.starts.size(), 3u);
            ASSERT_LT(two.ids.size(), three.ids.size());
            EXPECT_TRUE(std::equal(two.ids.begin(), two.ids.end(), three.ids.begin()))
                << "[A, B] is not a prefix of [A, B, C]";
            // C begins exactly where [A, B] ends, and each block is its own document under its title.
            EXPECT_EQ(three.starts[2], static_cast<int>(two.ids.size()));
            EXPECT_EQ(three.ends.back(), static_cast<int>(three.ids.size()));
            for (std::size_t i = 0; i < 3; ++i) {
                const std::string block = text_of(tok, three.ids, three.starts[i], three.ends[i]);
                EXPECT_NE(block.find("Document " + std::to_string(i + 1) + ": " + docs_[i].name), std::string::npos)
                    << block;
                EXPECT_NE(block.find(docs_[i].text.substr(4, 20)), std::string::npos) << block;
                for (std::size_t j = 0; j < 3; ++j) {
                    if (j != i) EXPECT_EQ(block.find(docs_[j].name), std::string::npos) << block;
                }
            }
            // The question part follows every document part the same way: the whole prompt of [A, B]
            // is [A, B]'s part then the question, as for one document.
            const DocumentPrompt one = build_document_prompt(kind, tok, system, docs_[0].text, "Which code?");
            EXPECT_EQ(build_document_part(kind, tok, system, docs_[0].text), one.document_part);
        }
    }
}

TEST_F(DocumentSetLayout, OneDocumentIsLaidOutExactlyAsBefore) {
    for (K kind : kinds()) {
        SCOPED_TRACE(std::string(chat_template_name(kind)));
        const Tokenizer& tok = tok_for(kind);
        const DocumentSetPart one = build_document_set_part(kind, tok, "", std::span(docs_).first(1));
        EXPECT_EQ(one.ids, build_document_part(kind, tok, "", docs_[0].text));
        EXPECT_EQ(one.starts, std::vector<int>{0});
        EXPECT_EQ(one.ends, std::vector<int>{static_cast<int>(one.ids.size())});
    }
    EXPECT_EQ(document_set_text(std::span(docs_).first(1)), "The harbour office opens at nine.\nThe north gate code is 7391.");
}

TEST_F(DocumentSetLayout, TextLayoutTitlesEachDocumentInOrder) {
    const std::string text = document_set_text(docs_);
    EXPECT_EQ(text.rfind("Document 1: A.txt\n\nThe harbour office", 0), 0u) << text;
    const auto b = text.find("\n\nDocument 2: B.pdf\n\nPage one"), c = text.find("\n\nDocument 3: C.md\n\n# Notes");
    EXPECT_NE(b, std::string::npos) << text;
    EXPECT_NE(c, std::string::npos) << text;
    EXPECT_LT(b, c);
    // A name cannot break the title's line.
    EXPECT_EQ(document_title(1, "evil\nname.txt"), "Document 2: evil name.txt");
}

TEST_F(DocumentSetLayout, AnEmptyDocumentIsRefusedByNumberAndName) {
    std::vector<SetDocument> docs = docs_;
    docs[1].text = " \n\t ";
    for (const std::string& e : {testing::error_text([&] { build_document_set_part(K::ChatML, *chat_, "", docs); }),
                                 testing::error_text([&] { (void)document_set_text(docs); })})
        EXPECT_NE(e.find("document 2 (B.pdf) is empty"), std::string::npos) << e;
}

TEST_F(DocumentSetLayout, SharesNameEachDocumentsTokens) {
    const DocumentSetPart part = build_document_set_part(K::ChatML, *chat_, "", docs_);
    const std::string shares = document_shares_text(docs_, part);
    for (std::size_t i = 0; i < 3; ++i)
        EXPECT_NE(shares.find(docs_[i].name + " " + std::to_string(part.tokens_of(i)) + " tokens ("), std::string::npos)
            << shares;
    EXPECT_EQ(part.tokens_of(0) + part.tokens_of(1) + part.tokens_of(2), static_cast<int>(part.ids.size()));
}

TEST_F(DocumentSetLayout, CitationsNameTheirDocumentAndItsOwnPage) {
    std::vector<SetDocument> docs = docs_;
    // B has three pages: where each page's text begins (byte offsets), as the PDF reader gives them.
    const std::string& b = docs[1].text;
    docs[1].page_starts = {0, b.find("Page two"), b.find("The green office")};
    const Tokenizer& tok = *chat_;
    const DocumentSetPart part = build_document_set_part(K::ChatML, tok, "", docs);
    const DocumentSetCitations sources(tok, part, docs);
    ASSERT_EQ(sources.documents(), 3u);
    // The token positions of a phrase: the first block position whose decoded text from the block
    // start contains it.
    const auto position_of = [&](std::size_t doc, const std::string& phrase) {
        for (int p = part.starts[doc]; p < part.ends[doc]; ++p)
            if (text_of(tok, part.ids, part.starts[doc], p + 1).find(phrase) != std::string::npos) return p;
        return -1;
    };
    const auto locate = [&](int p) { return sources.locate(Citation{p, p + 2, 0.5}); };
    const int fact = position_of(1, "7003");
    ASSERT_GE(fact, 0);
    EXPECT_EQ(locate(fact).document, 1);
    EXPECT_EQ(locate(fact).page, 3);
    const int goats = position_of(1, "goats");
    ASSERT_GE(goats, 0);
    EXPECT_EQ(locate(goats).document, 1);
    EXPECT_EQ(locate(goats).page, 2);
    const int gate = position_of(0, "7391");
    ASSERT_GE(gate, 0);
    EXPECT_EQ(locate(gate).document, 0);
    EXPECT_EQ(locate(gate).page, 0);  // A has no pages
    const int mill = position_of(2, "Fridays");
    ASSERT_GE(mill, 0);
    EXPECT_EQ(locate(mill).document, 2);
    EXPECT_EQ(locate(mill).page, 0);
}

}  // namespace
}  // namespace snapdoc

// Prompt positions <-> document text: synthetic piece lists (template tokens, dummy-prefix space,
// multi-byte characters split into byte tokens, collapsed whitespace, a mismatch) and the real
// stories260K tokenizer with every chat template.
#include <QtTest>
#include <string>
#include <vector>

#include "app/common/token_text_map.h"
#include "engine/model/model.h"
#include "engine/tokenizer/chat_template.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/ui/support/ui_test_support.h"

using snapdoc::map_tokens_to_text;
using snapdoc::TokenTextMap;

namespace {
QString slice(const QString& text, const TokenTextMap& m, int p) {
    return m.begin[p] < 0 ? QString() : text.mid(m.begin[p], m.end[p] - m.begin[p]);
}
}  // namespace

class TestTokenTextMap : public QObject {
    Q_OBJECT
private slots:
    void plain_prompt_with_bos_and_trailing_newlines() {
        const std::string doc = "  Hello world\n";
        const TokenTextMap m = map_tokens_to_text({"", " Hello", " wor", "ld", "\n\n"}, doc);
        QVERIFY(m.exact);
        QCOMPARE(m.size(), 5);
        QCOMPARE(m.first_text, 1);
        QCOMPARE(m.last_text, 3);
        QCOMPARE(m.begin[0], -1);  // BOS
        QCOMPARE(m.begin[4], -1);  // the template's "\n\n"
        const QString text = QString::fromStdString(doc);
        QCOMPARE(slice(text, m, 1), QString("Hello"));  // the dummy-prefix space is not in the text
        QCOMPARE(slice(text, m, 2), QString(" wor"));
        QCOMPARE(slice(text, m, 3), QString("ld"));
        QCOMPARE(m.position_at(0), 1);
        QCOMPARE(m.position_at(2), 1);
        QCOMPARE(m.position_at(7), 2);
        QCOMPARE(m.position_at(12), 3);
        QCOMPARE(m.position_at(100), 3);
        QCOMPARE(m.text_range(1, 4), std::make_pair(2, 13));
        QCOMPARE(m.text_range(0, 1), std::make_pair(-1, -1));
    }

    void template_opening_is_not_text() {
        const std::string doc = "Some text";
        const TokenTextMap m = map_tokens_to_text({"", " [INST]", " Some", " text", "\n\n"}, doc);
        QVERIFY(m.exact);
        QCOMPARE(m.begin[1], -1);
        QCOMPARE(m.first_text, 2);
        QCOMPARE(slice(QString::fromStdString(doc), m, 2), QString("Some"));
        QCOMPARE(slice(QString::fromStdString(doc), m, 3), QString(" text"));
    }

    void utf16_offsets_for_multibyte_and_byte_tokens() {
        // "é" (2 bytes) split into two byte tokens; "😀" (4 bytes, 2 UTF-16 units) as one piece.
        const std::string doc = "h\xc3\xa9llo \xf0\x9f\x98\x80 x";
        const TokenTextMap m =
            map_tokens_to_text({" h", "\xc3", "\xa9", "llo", " \xf0\x9f\x98\x80", " x"}, doc);
        QVERIFY(m.exact);
        const QString text = QString::fromStdString(doc);
        QCOMPARE(text.size(), 10);
        QCOMPARE(slice(text, m, 0), QString("h"));
        QCOMPARE(slice(text, m, 1), QString::fromUtf8("\xc3\xa9"));  // a half character shows the whole one
        QCOMPARE(slice(text, m, 2), QString::fromUtf8("\xc3\xa9"));
        QCOMPARE(slice(text, m, 3), QString("llo"));
        QCOMPARE(slice(text, m, 4), QString::fromUtf8(" \xf0\x9f\x98\x80"));
        QCOMPARE(slice(text, m, 5), QString(" x"));
    }

    void whitespace_removed_by_the_normalizer() {
        const std::string doc = "a  b\t\tc";
        const TokenTextMap m = map_tokens_to_text({" a", " b", " c"}, doc);
        QVERIFY(m.exact);
        const QString text = QString::fromStdString(doc);
        QCOMPARE(slice(text, m, 0), QString("a"));
        QVERIFY(slice(text, m, 1).endsWith("b"));
        QVERIFY(slice(text, m, 2).endsWith("c"));
        for (int p = 1; p < 3; ++p) QVERIFY(m.begin[p] >= m.end[p - 1]);
    }

    void unrelated_pieces_fall_back_to_proportional() {
        const std::string doc(1000, 'x');
        std::vector<std::string> pieces(100, "zz");
        const TokenTextMap m = map_tokens_to_text(pieces, doc);
        QVERIFY(!m.exact);
        QCOMPARE(m.first_text, 0);
        QCOMPARE(m.last_text, 99);
        for (int p = 1; p < 100; ++p) QVERIFY(m.begin[p] >= m.begin[p - 1]);
        QVERIFY(m.end[99] <= 1000);
    }

    void empty_inputs() {
        QCOMPARE(map_tokens_to_text({}, "abc").first_text, -1);
        QCOMPARE(map_tokens_to_text({"a"}, "").first_text, -1);
        QCOMPARE(map_tokens_to_text({"a"}, "").position_at(0), -1);
    }

    void real_tokenizer_every_template() {
        SNAPDOC_REQUIRE_TINY_MODEL();
        const snapdoc::Model model = snapdoc::load_model(snapdoc::test::tiny_model_path().toStdString());
        const snapdoc::Tokenizer tok = snapdoc::Tokenizer::from_model(model);
        const std::string doc =
            "\n  Once upon a time, Lily saw a big dog.  It was happy!\nThe café had 12 cakes — "
            "and \xe2\x80\x9cquotes\xe2\x80\x9d, emoji \xf0\x9f\x90\xb6 too.\n\n";
        const QString text = QString::fromStdString(doc);
        for (const char* name : {"plain", "llama2", "mistral"}) {
            const auto kind = snapdoc::parse_chat_template_name(name);
            const auto part = snapdoc::build_document_part(kind, tok, "", doc);
            std::vector<std::string> pieces;
            for (int32_t id : part) pieces.push_back(tok.piece(id));
            const TokenTextMap m = map_tokens_to_text(pieces, doc);
            QVERIFY2(m.exact, name);
            QVERIFY(m.first_text >= 1);  // BOS at least
            const auto [first, last] = m.text_range(m.first_text, m.last_text + 1);
            QCOMPARE(first, static_cast<int>(text.indexOf('O')));  // the trimmed document, exactly
            QCOMPARE(last, static_cast<int>(text.lastIndexOf('.') + 1));
            for (int p = m.first_text; p <= m.last_text; ++p) {
                const QString piece = QString::fromStdString(pieces[p]);
                const QString s = slice(text, m, p);
                const bool byte_piece =
                    pieces[p].size() == 1 && static_cast<unsigned char>(pieces[p][0]) >= 0x80;
                const bool same_char =
                    p > m.first_text && m.begin[p] == m.begin[p - 1] && m.end[p] == m.end[p - 1];
                // In order, never overlapping (the two halves of a character split into byte
                // tokens both show that character).
                if (p > m.first_text) QVERIFY(m.begin[p] >= m.end[p - 1] || same_char);
                if (byte_piece || same_char) continue;
                // The first token's piece carries the tokenizer's dummy-prefix space.
                const QString want = p == m.first_text && piece.startsWith(' ') ? piece.mid(1) : piece;
                QVERIFY2(
                    s == want,
                    qPrintable(
                        QString("%1: position %2: piece '%3', text '%4'").arg(name).arg(p).arg(piece, s)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestTokenTextMap)
#include "test_token_text_map.moc"

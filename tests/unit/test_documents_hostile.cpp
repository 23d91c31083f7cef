// app/documents against hostile files: each gives one clear snapdoc::Error naming the problem and
// nothing else (no crash, no hang, no file written, nothing read from outside the archive).
#include <gtest/gtest.h>

#include "app/documents/document_reader.h"
#include "app/documents/zip_archive.h"
#include "engine/common/error.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

using testing::ZipEntry;

// The Error's message, or a failure when extraction succeeds or throws something else.
std::string refusal(const std::string& bytes, const std::string& format) {
    try {
        documents::extract_document(bytes, format, "document x." + format);
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a snapdoc::Error: " << e.what();
        return {};
    }
    ADD_FAILURE() << "the hostile ." << format << " was read";
    return {};
}

#define EXPECT_REFUSED(bytes, format, words)                                  \
    do {                                                                      \
        const std::string why = refusal(bytes, format);                       \
        EXPECT_NE(why.find(words), std::string::npos) << why;                 \
        EXPECT_NE(why.find("document x." format), std::string::npos) << why;  \
    } while (0)

std::string paragraph(const std::string& text) {
    return "<w:p><w:r><w:t>" + text + "</w:t></w:r></w:p>";
}

TEST(DocumentHostile, NotAZipArchive) {
    EXPECT_REFUSED(std::string("just some text, not a zip"), "docx", "not a readable ZIP archive");
    EXPECT_REFUSED(std::string("%PDF-1.4 broken"), "pdf", "not a readable PDF");
    EXPECT_REFUSED(std::string(), "odt", "is empty");
}

TEST(DocumentHostile, MissingMainPart) {
    EXPECT_REFUSED(testing::build_zip({{"[Content_Types].xml", "<Types/>"}}), "docx", "no word/document.xml");
    EXPECT_REFUSED(testing::build_zip({{"mimetype", "application/vnd.oasis.opendocument.text", true}}), "odt",
                   "no content.xml");
    EXPECT_REFUSED(testing::build_zip({{"mimetype", "application/epub+zip", true}}), "epub",
                   "no META-INF/container.xml");
}

TEST(DocumentHostile, EntriesThatClimbOutOrAreAbsolute) {
    EXPECT_REFUSED(testing::build_docx(paragraph("x"), {{"../evil.txt", "boo"}}), "docx", "unsafe name");
    EXPECT_REFUSED(testing::build_docx(paragraph("x"), {{"word/../../evil.txt", "boo"}}), "docx", "unsafe name");
    EXPECT_REFUSED(testing::build_docx(paragraph("x"), {{"/etc/evil", "boo"}}), "docx", "unsafe name");
}

TEST(DocumentHostile, ZipBombIsStoppedWhileInflating) {
    // 80 MiB of zeros compress to ~80 KB; the header says so, and is refused before inflating.
    const std::string zeros(std::size_t{80} << 20, '0');
    EXPECT_REFUSED(testing::build_docx(paragraph("x"), {{"word/styles.xml", zeros}}), "docx", "MiB uncompressed");
    // Past the first MiB, more than 200x its compressed size is a bomb even under the size caps.
    const std::string two_mib = "<w:p><w:r><w:t>" + std::string(std::size_t{2} << 20, 'a') + "</w:t></w:r></w:p>";
    EXPECT_REFUSED(testing::build_docx(two_mib), "docx", "times its compressed size");
}

TEST(DocumentHostile, AHeaderThatLiesAboutTheSizeIsCaughtByCounting) {
    // A stored entry of 3 MiB whose headers claim 100 bytes: the real bytes are counted as read.
    std::string zip = testing::build_zip({{"big.xml", std::string(std::size_t{3} << 20, 'x'), true}});
    testing::set_claimed_sizes(zip, 100);
    documents::ZipLimits limits;
    limits.max_entry_bytes = std::size_t{1} << 20;
    try {
        documents::ZipArchive archive(zip, "document x.docx", limits);
        archive.read("big.xml");
        ADD_FAILURE() << "the lying entry was read whole";
    } catch (const Error& e) {
        // libzip may notice the mismatch itself (a damaged entry) or the count stops it first.
        const std::string why = e.what();
        EXPECT_TRUE(why.find("inflates past") != std::string::npos || why.find("damaged") != std::string::npos ||
                    why.find("not a readable ZIP") != std::string::npos)
            << why;
    }
}

TEST(DocumentHostile, TwoGigabyteEntryClaim) {
    std::string zip = testing::build_zip({{"[Content_Types].xml", "<Types/>", true},
                                          {"word/document.xml", "<w:document/>", true}});
    testing::set_claimed_sizes(zip, 0x80000000u);
    const std::string why = refusal(zip, "docx");
    EXPECT_TRUE(why.find("claims 2048 MiB") != std::string::npos || why.find("not a readable ZIP") != std::string::npos)
        << why;
}

TEST(DocumentHostile, EncryptedEntries) {
    ZipEntry doc{"word/document.xml", "<w:document><w:body>" + paragraph("secret") + "</w:body></w:document>"};
    doc.password = "hunter2";
    EXPECT_REFUSED(testing::build_zip({{"[Content_Types].xml", "<Types/>"}, doc}), "docx", "is encrypted");
    EXPECT_REFUSED(testing::build_zip({{"mimetype", "application/vnd.oasis.opendocument.text", true},
                                       {"content.xml", "garbage"},
                                       {"META-INF/manifest.xml", "<manifest><encryption-data/></manifest>"}}),
                   "odt", "is encrypted");
}

TEST(DocumentHostile, DeeplyNestedXml) {
    std::string deep;
    for (int i = 0; i < 230; ++i) deep += "<w:sdt>";
    for (int i = 0; i < 230; ++i) deep += "</w:sdt>";
    EXPECT_REFUSED(testing::build_docx(deep), "docx", "deep");
    // Past libxml2's own limit (256) it stops parsing; under 1 MiB, so the ratio cap stays out of it.
    std::string deeper;
    for (int i = 0; i < 20000; ++i) deeper += "<w:sdt>";
    for (int i = 0; i < 20000; ++i) deeper += "</w:sdt>";
    const std::string why = refusal(testing::build_docx(deeper), "docx");
    EXPECT_TRUE(why.find("deep") != std::string::npos || why.find("depth") != std::string::npos) << why;
}

TEST(DocumentHostile, EntitiesAreNeitherExpandedNorFetched) {
    const std::string xxe =
        "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>";
    EXPECT_REFUSED(testing::build_zip({{"word/document.xml", xxe}}), "docx", "entities");
    std::string laughs = "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"lol\">";
    for (char c = 'b'; c <= 'j'; ++c) {
        std::string ten;
        for (int i = 0; i < 10; ++i) ten += std::string("&") + static_cast<char>(c - 1) + ";";
        laughs += std::string("<!ENTITY ") + c + " \"" + ten + "\">";
    }
    laughs += "]><w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>&j;</w:t></w:r></w:p></w:body></w:document>";
    const std::string why = refusal(testing::build_zip({{"word/document.xml", laughs}}), "docx");
    EXPECT_FALSE(why.empty());
}

TEST(DocumentHostile, TextThatIsNotUtf8) {
    EXPECT_REFUSED(testing::build_docx(paragraph("caf\xe9 au lait")), "docx", "not well-formed XML");
    const std::string content =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content xmlns:office=\"o\" xmlns:text=\"t\">"
        "<office:body><office:text><text:p>\xff\xfe</text:p></office:text></office:body></office:document-content>";
    EXPECT_REFUSED(testing::build_zip({{"content.xml", content}}), "odt", "not well-formed XML");
    const std::string container =
        "<?xml version=\"1.0\"?><container><rootfiles><rootfile full-path=\"content.opf\"/></rootfiles></container>";
    const std::string opf =
        "<?xml version=\"1.0\"?><package><manifest><item id=\"a\" href=\"a.xhtml\" "
        "media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"a\"/></spine></package>";
    EXPECT_REFUSED(testing::build_zip({{"META-INF/container.xml", container}, {"content.opf", opf},
                                       {"a.xhtml", "<html><body><p>caf\xe9</p></body></html>"}}),
                   "epub", "not valid UTF-8");
}

TEST(DocumentHostile, EpubSpineOutsideTheArchiveAndEmptyDocuments) {
    const std::string container =
        "<?xml version=\"1.0\"?><container><rootfiles><rootfile full-path=\"content.opf\"/></rootfiles></container>";
    const std::string opf =
        "<?xml version=\"1.0\"?><package><manifest><item id=\"a\" href=\"../../etc/passwd\" "
        "media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"a\"/></spine></package>";
    EXPECT_REFUSED(testing::build_zip({{"META-INF/container.xml", container}, {"content.opf", opf}}), "epub",
                   "points outside the archive");
    EXPECT_REFUSED(testing::build_docx(""), "docx", "has no text");
    EXPECT_REFUSED(testing::build_pdf({{}}), "pdf", "no text layer");
}

}  // namespace
}  // namespace snapdoc

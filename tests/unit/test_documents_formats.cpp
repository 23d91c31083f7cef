// app/documents: DOCX, ODT, EPUB and PDF files generated here are read into the expected text, in
// reading order, with headings, lists, tables and notes written the Markdown way.
#include <gtest/gtest.h>

#include <fstream>

#include "app/documents/document_reader.h"
#include "app/documents/zip_archive.h"
#include "engine/common/error.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

using documents::extract_document;
using testing::ZipEntry;

const char* kWordNs = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";

std::string w_p(const std::string& text, const std::string& ppr = "") {
    return "<w:p>" + (ppr.empty() ? "" : "<w:pPr>" + ppr + "</w:pPr>") + "<w:r><w:t xml:space=\"preserve\">" + text +
           "</w:t></w:r></w:p>";
}

TEST(DocumentFormats, DocxHeadingsParagraphsListsTablesAndFootnotesInOrder) {
    const std::string styles = std::string("<?xml version=\"1.0\"?><w:styles ") + kWordNs +
                               "><w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style>"
                               "<w:style w:type=\"paragraph\" w:styleId=\"Titel\"><w:name w:val=\"Title\"/></w:style></w:styles>";
    const std::string footnotes = std::string("<?xml version=\"1.0\"?><w:footnotes ") + kWordNs +
                                  "><w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>"
                                  "<w:footnote w:id=\"1\">" + w_p("Kept in the safe.") + "</w:footnote></w:footnotes>";
    const std::string body =
        w_p("Harbour Report", "<w:pStyle w:val=\"Titel\"/>") + w_p("Access", "<w:pStyle w:val=\"Heading1\"/>") +
        "<w:p><w:r><w:t>The access code is </w:t></w:r><w:r><w:t>7391.</w:t></w:r>"
        "<w:r><w:footnoteReference w:id=\"1\"/></w:r><w:r><w:delText>deleted</w:delText></w:r></w:p>" +
        w_p("First item", "<w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr>") +
        w_p("Nested item", "<w:numPr><w:ilvl w:val=\"1\"/><w:numId w:val=\"1\"/></w:numPr>") +
        "<w:tbl><w:tr><w:tc>" + w_p("Office") + "</w:tc><w:tc>" + w_p("Batch") + "</w:tc></w:tr><w:tr><w:tc>" +
        w_p("Green") + "</w:tc><w:tc>" + w_p("4410") + "</w:tc></w:tr></w:tbl>" + w_p("After the table.");
    const std::string docx = testing::build_docx(
        body, {{"word/styles.xml", styles}, {"word/footnotes.xml", footnotes},
               {"docProps/core.xml", "<?xml version=\"1.0\"?><cp:coreProperties "
                                     "xmlns:cp=\"urn:cp\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
                                     "<dc:title>The Harbour</dc:title></cp:coreProperties>"}});
    const auto d = extract_document(docx, "docx", "test.docx");
    EXPECT_EQ(d.format, "docx");
    EXPECT_EQ(d.title, "The Harbour");
    EXPECT_EQ(d.text,
              "# Harbour Report\n\n# Access\n\nThe access code is 7391.[1]\n\n- First item\n  - Nested item\n\n"
              "| Office | Batch |\n| Green | 4410 |\n\nAfter the table.\n\n## Notes\n\n[1] Kept in the safe.\n");
}

TEST(DocumentFormats, OdtHeadingsListsTablesAndNotesInOrder) {
    const std::string content =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content "
        "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
        "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" "
        "xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\"><office:body><office:text>"
        "<text:sequence-decls/><text:h text:outline-level=\"1\">Harbour Report</text:h>"
        "<text:p>The code<text:s text:c=\"2\"/>is <text:span>7391</text:span>.<text:note text:note-class=\"footnote\">"
        "<text:note-citation>1</text:note-citation><text:note-body><text:p>Kept in the safe.</text:p></text:note-body>"
        "</text:note></text:p>"
        "<text:list><text:list-item><text:p>First item</text:p><text:list><text:list-item><text:p>Nested item</text:p>"
        "</text:list-item></text:list></text:list-item></text:list>"
        "<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>Office</text:p></table:table-cell>"
        "<table:table-cell><text:p>Batch</text:p></table:table-cell></table:table-row></table:table-header-rows>"
        "<table:table-row><table:table-cell><text:p>Green</text:p></table:table-cell><table:table-cell><text:p>4410</text:p>"
        "</table:table-cell></table:table-row></table:table>"
        "<text:section><text:h text:outline-level=\"2\">Later</text:h><text:p>Last words.</text:p></text:section>"
        "</office:text></office:body></office:document-content>";
    const std::string odt = testing::build_zip({{"mimetype", "application/vnd.oasis.opendocument.text", true},
                                                {"content.xml", content}});
    const auto d = extract_document(odt, "odt", "test.odt");
    EXPECT_EQ(d.title, "Harbour Report");
    EXPECT_EQ(d.text,
              "# Harbour Report\n\nThe code is 7391.[1]\n\n- First item\n  - Nested item\n\n| Office | Batch |\n"
              "| Green | 4410 |\n\n## Later\n\nLast words.\n\n## Notes\n\n[1] Kept in the safe.\n");
}

std::string xhtml(const std::string& title, const std::string& body) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"
           "<head><title>" + title + "</title><style>p { color: red }</style></head><body>" + body + "</body></html>";
}

std::vector<ZipEntry> epub_entries(const std::string& opf_extra_manifest = "", const std::string& spine = "") {
    const std::string opf =
        "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\">"
        "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>The Lighthouse</dc:title></metadata>"
        "<manifest><item id=\"c2\" href=\"text/chapter%202.xhtml\" media-type=\"application/xhtml+xml\"/>"
        "<item id=\"c1\" href=\"text/chapter1.xhtml\" media-type=\"application/xhtml+xml\"/>"
        "<item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>" + opf_extra_manifest +
        "</manifest><spine>" + (spine.empty() ? "<itemref idref=\"c1\"/><itemref idref=\"c2\"/>" : spine) +
        "</spine></package>";
    return {{"mimetype", "application/epub+zip", true},
            {"META-INF/container.xml",
             "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
             "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>"
             "</rootfiles></container>"},
            {"OEBPS/content.opf", opf},
            {"OEBPS/text/chapter1.xhtml",
             xhtml("One", "<nav><ol><li>Contents</li></ol></nav><h1>Chapter One</h1><p>The keeper&#8217;s code is "
                          "<b>7391</b>.</p><ul><li>First item<ul><li>Nested item</li></ul></li></ul>"
                          "<table><tr><th>Office</th><th>Batch</th></tr><tr><td>Green</td><td>4410</td></tr></table>"
                          "<script>var x = 1;</script>")},
            {"OEBPS/text/chapter 2.xhtml", xhtml("Chapter Two", "<div>Loose text<p>A paragraph.</p></div>")}};
}

TEST(DocumentFormats, EpubFollowsTheSpineWithChapterTitles) {
    const auto d = extract_document(testing::build_zip(epub_entries()), "epub", "test.epub");
    EXPECT_EQ(d.title, "The Lighthouse");
    EXPECT_EQ(d.text,
              "# Chapter One\n\nThe keeper\xe2\x80\x99s code is 7391.\n\n- First item\n  - Nested item\n\n"
              "| Office | Batch |\n| Green | 4410 |\n\n# Chapter Two\n\nLoose text\n\nA paragraph.\n");
}

// A web page for the CLI and the server: the same blocks as an EPUB chapter, no tags, scripts,
// styles or navigation; bytes that are not UTF-8 are refused, not read as Latin-1.
TEST(DocumentFormats, HtmlPagesAreReadAsTheirTextWithStructure) {
    const std::string page =
        "<!DOCTYPE html><html><head><title>Harbour Notes</title><script>var code = 1;</script></head><body>"
        "<nav><a href=\"/\">Home</a></nav><h1>Harbour</h1><p>The access code is <b>7391</b>.<p>Unclosed "
        "paragraph<ul><li>One<li>Two</ul><table><tr><td>Green<td>4410</table></body></html>";
    const auto d = extract_document(page, "html", "test.html");
    EXPECT_EQ(d.format, "html");
    EXPECT_EQ(d.title, "Harbour Notes");
    EXPECT_EQ(d.text, "# Harbour\n\nThe access code is 7391.\n\nUnclosed paragraph\n\n- One\n- Two\n\n| Green | 4410 |\n");
    EXPECT_EQ(documents::structured_format("page.HTM"), "html");
    EXPECT_THROW(extract_document("<p>caf\xe9</p>", "html", "latin1.html"), Error);
}

TEST(DocumentFormats, PdfKeepsEachPagesText) {
    const std::string pdf = testing::build_pdf({{"Harbour Report", "The access code is 7391."}, {"Page two says 4410."}},
                                               "The Harbour");
    const auto d = extract_document(pdf, "pdf", "test.pdf");
    EXPECT_EQ(d.title, "The Harbour");
    ASSERT_EQ(d.page_starts.size(), 2u);
    EXPECT_EQ(d.page_starts[0], 0u);
    EXPECT_NE(d.text.find("Harbour Report"), std::string::npos) << d.text;
    EXPECT_NE(d.text.find("The access code is 7391."), std::string::npos) << d.text;
    EXPECT_LT(d.text.find("7391"), d.page_starts[1]);
    EXPECT_EQ(d.text.substr(d.page_starts[1], 19), "Page two says 4410.") << d.text;
}

TEST(DocumentFormats, ReadDocumentDispatchesOnTheSuffixAndReadsTextAsBefore) {
    testing::TempDir dir;
    std::ofstream(dir / "a.DOCX", std::ios::binary) << testing::build_docx(w_p("Hello from Word."));
    std::ofstream(dir / "b.md") << "# Title\n\nText.\n";
    EXPECT_EQ(documents::read_document(dir / "a.DOCX").text, "Hello from Word.\n");
    const auto md = documents::read_document(dir / "b.md");
    EXPECT_EQ(md.format, "md");
    EXPECT_EQ(md.text, "# Title\n\nText.\n");
    EXPECT_EQ(documents::structured_format("x/report.Pdf"), "pdf");
    EXPECT_EQ(documents::structured_format("notes.txt"), "");
}

TEST(DocumentFormats, ArchivePathsResolveInsideTheArchiveOnly) {
    EXPECT_EQ(documents::resolve_archive_path("OEBPS/", "text/a%20b.xhtml#x"), "OEBPS/text/a b.xhtml");
    EXPECT_EQ(documents::resolve_archive_path("OEBPS/text/", "../img/./c.xhtml"), "OEBPS/img/c.xhtml");
    EXPECT_EQ(documents::resolve_archive_path("OEBPS/", "../../etc/passwd"), std::nullopt);
    EXPECT_EQ(documents::resolve_archive_path("", "/etc/passwd"), std::nullopt);
    EXPECT_EQ(documents::resolve_archive_path("", "http://example.com/x.html"), std::nullopt);
}

}  // namespace
}  // namespace snapdoc

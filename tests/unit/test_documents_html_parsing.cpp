// HTML5 parsing of web pages and EPUB chapters (app/documents/html_page.h, gumbo): what an HTML5
// parser reads that libxml2's HTML4 parser did not (unclosed <p>/<li>, <template>, misnested
// tags, foster-parented table text, entities, <br>), the page's boilerplate left out, charsets,
// and hostile pages: deep nesting, invalid UTF-8, NUL bytes, a page over the size limit. Each is a
// bounded text or one clear Error. The clocks in here are hang guards far above the cost (well
// under a second each here) and far below the unbounded parse (64 s for 100,000 nested <div>s).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "app/common/document_text.h"
#include "app/documents/document_reader.h"
#include "app/documents/html_nesting_bound.h"
#include "engine/common/error.h"
#include "tests/support/zip_builder.h"

namespace snapdoc {
namespace {

using documents::extract_document;

std::string text_of(const std::string& html) {
    return extract_document(html, "html", "page.html").text;
}

std::string refusal(const std::string& bytes, const std::string& format = "html") {
    try {
        extract_document(bytes, format, "page." + format);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    out.reserve(s.size() * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

// Seconds `f` takes; the hang guards below compare it with a bound far above the real cost.
template <typename F>
double seconds(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(HtmlParsing, ImpliedEndTagsCloseParagraphsListItemsAndCells) {
    EXPECT_EQ(text_of("<p>one<p>two<div>three</div>"), "one\n\ntwo\n\nthree\n");
    EXPECT_EQ(text_of("<ul><li>a<li>b<ul><li>b1<li>b2</ul><li>c</ul>"), "- a\n- b\n  - b1\n  - b2\n- c\n");
    EXPECT_EQ(text_of("<dl><dt>term<dd>meaning</dl>"), "term\n\nmeaning\n");
    EXPECT_EQ(text_of("<table><tr><th>Office<th>Batch<tr><td>Green<td>4410</table>"),
              "| Office | Batch |\n| Green | 4410 |\n");
}

TEST(HtmlParsing, TemplatesAreInertAndMisnestedTagsKeepTheirText) {
    EXPECT_EQ(text_of("<template><p>hidden</p></template><p>shown</p>"), "shown\n");
    // The adoption agency: "<b>bold <i>both</b> italic</i>" is bold, both, italic, in that order.
    EXPECT_EQ(text_of("<p><b>bold <i>both</b> italic</i> after</p>"), "bold both italic after\n");
    // Text inside a table but outside a cell is foster-parented before the table.
    EXPECT_EQ(text_of("<table><tr><td>cell</td></tr>loose words</table>"), "loose words\n\n| cell |\n");
    // A block inside a paragraph closes it; the stray </p> makes an empty paragraph, not text.
    EXPECT_EQ(text_of("<p>first<h2>Section</h2>second</p>"), "first\n\n## Section\n\nsecond\n");
}

TEST(HtmlParsing, EntitiesAndLineBreaks) {
    EXPECT_EQ(text_of("<p>Fish&nbsp;&amp;&nbsp;chips &lt;3 &copy 2024 &#8212; &#x41;&notit;</p>"),
              "Fish & chips <3 \xc2\xa9 2024 \xe2\x80\x94 A\xc2\xacit;\n");
    EXPECT_EQ(text_of("<p>one<br>two<br/>three</br>four</p>"), "one two three four\n");
}

TEST(HtmlParsing, BoilerplateIsLeftOutAndArticleHeadersStay) {
    const std::string page =
        "<html><head><title>T</title><style>p{}</style></head><body><header>Site banner</header>"
        "<div role=\"navigation\">Breadcrumbs</div><nav>Menu</nav><div role='search'>Search</div>"
        "<main><article><header><p>Byline stays.</p></header><h1>Title<a class=\"headerlink\" href=\"#t\">\xc2\xb6</a>"
        "</h1><p>Body.</p><script>var x = '<p>code</p>';</script><noscript>Enable JS</noscript></article></main>"
        "<svg><text>drawn</text></svg><footer>Copyright</footer></body></html>";
    EXPECT_EQ(text_of(page), "Byline stays.\n\n# Title\n\nBody.\n");
}

TEST(HtmlParsing, CharsetsAreDecodedOrRefused) {
    EXPECT_EQ(text_of("<meta charset=\"iso-8859-1\"><p>Caf\xe9 cr\xe8me</p>"), "Caf\xc3\xa9 cr\xc3\xa8me\n");
    EXPECT_EQ(text_of("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">"
                      "<p>\x93quoted\x94</p>"),
              "\xe2\x80\x9cquoted\xe2\x80\x9d\n");
    EXPECT_EQ(text_of(std::string("\xff\xfe<\0p\0>\0h\0i\0", 12)), "hi\n");  // UTF-16LE with its BOM
    EXPECT_EQ(text_of("\xef\xbb\xbf<p>bom</p>"), "bom\n");
    EXPECT_NE(refusal("<p>caf\xe9</p>").find("is not valid UTF-8 text"), std::string::npos);
    EXPECT_NE(refusal("<meta charset=\"utf-8\"><p>\xc3\x28</p>").find("is not valid UTF-8 text"), std::string::npos);
    EXPECT_NE(refusal("<meta charset=\"windows-1252\"><p>\x81</p>").find("is not valid windows-1252 text"),
              std::string::npos);
    EXPECT_NE(refusal("<meta charset=\"x-no-such-charset\"><p>a</p>").find("cannot decode"), std::string::npos);
    EXPECT_NE(refusal(std::string("<p>\0</p>", 8)).find("looks binary"), std::string::npos);
    EXPECT_NE(refusal("<html><body><p> &nbsp; </p><script>x()</script></body></html>").find("has no text"),
              std::string::npos);
}

TEST(HtmlParsing, DeepNestingIsBoundedWithItsText) {
    std::string text;
    const double s = seconds([&] {
        text = text_of("<title>Deep</title>" + repeat("<div>", 100000) + "needle words" + repeat("</div>", 100000) +
                       "<p>after</p>");
    });
    EXPECT_LT(s, 30.0);
    EXPECT_EQ(text, "needle words\n\nafter\n");
    // Unclosed formatting elements (unbounded, gumbo had not finished 100,000 <b>s after 120 s),
    // spans, tables, XHTML-style "<div/>" (which opens a div in HTML), lists in items, selects.
    for (const std::string& open : {std::string("<b>"), std::string("<span>"), std::string("<table><tr><td>"),
                                    std::string("<div/>"), std::string("<li><ul>"), std::string("<p><b id=x>"),
                                    std::string("<select><option>"), std::string("<a><div>")}) {
        std::string got;
        const double t = seconds([&] { got = text_of(repeat(open, 100000) + "deepest"); });
        EXPECT_LT(t, 30.0) << open;
        EXPECT_NE(got.find("deepest"), std::string::npos) << open;
    }
    // End tags that HTML ignores (a </div> cannot close past a table cell) do not let a page
    // slip past the bound: a bounded text or the depth refusal, quickly, either way.
    std::string why;
    const double t = seconds([&] {
        try {
            why = text_of(repeat("<div><table><tr><td></div>", 50000) + "x");
        } catch (const Error& e) {
            why = e.what();
        }
    });
    EXPECT_LT(t, 30.0);
    EXPECT_TRUE(why.find("| x |") != std::string::npos || why.find("nests elements more than") != std::string::npos)
        << why.substr(0, 200);
}

TEST(HtmlParsing, NestingBoundLeavesOrdinaryPagesAlone) {
    const std::string page =
        "<!DOCTYPE html><html><head><title>a < b</title><style>p > b { color: red }</style>"
        "<script>if (a < b && c > d) document.write('<div>');</script></head><body><!-- a <div> -->"
        "<h1 class=\"x>y\">Head</h1><p don't>One <b>bold</b><br>line<img src=x.png/></p><div/>"
        "<ul><li>a<li>b</ul><table><tr><td>1<td>2</table> 3 &lt; 4</body></html>";
    const documents::BoundedHtml b = documents::bound_html_nesting(page);
    EXPECT_EQ(b.html, page);
    EXPECT_EQ(b.dropped_tags, 0);
    EXPECT_LE(b.max_depth_seen, 6);
    const documents::BoundedHtml deep = documents::bound_html_nesting(repeat("<div>", 1000) + "x" + repeat("</div>", 1000));
    EXPECT_EQ(deep.max_depth_seen, 1000);
    EXPECT_EQ(deep.dropped_tags, 2 * (1000 - documents::kMaxHtmlNesting));
    EXPECT_EQ(documents::bound_html_nesting(deep.html).max_depth_seen, documents::kMaxHtmlNesting);
    // XHTML: "<x/>" is an empty element, written out so HTML5 reads it so.
    EXPECT_EQ(documents::bound_html_nesting("<title/><a id=\"p\"/>t", 256, true).html,
              "<title/></title><a id=\"p\"/></a>t");
}

TEST(HtmlParsing, HugePagesAreRefusedAndLargeOnesRead) {
    const std::string huge(static_cast<std::size_t>(kMaxDocumentBytes) + 1, 'a');
    EXPECT_NE(refusal(huge).find("the limit for a web page is 64 MiB"), std::string::npos);
    std::string text;
    const double s = seconds([&] { text = text_of(repeat("<p>Paragraph with some words.</p>\n", 200000)); });
    EXPECT_LT(s, 60.0);
    EXPECT_EQ(text.size(), std::string("Paragraph with some words.\n\n").size() * 200000 - 1);
}

// EPUB chapters are XHTML through the same HTML5 path: a malformed chapter (unclosed tags, an
// HTML entity XML does not define, "<title/>", "<a/>") still reads.
TEST(HtmlParsing, MalformedEpubChaptersRead) {
    const std::string opf =
        "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\"><metadata><dc:title "
        "xmlns:dc=\"http://purl.org/dc/elements/1.1/\">Book</dc:title></metadata><manifest>"
        "<item id=\"a\" href=\"a.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>"
        "<spine><itemref idref=\"a\"/></spine></package>";
    const std::string chapter =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title/>"
        "</head><body><h1>Chapter&nbsp;One</h1><p><a id=\"p1\"/>The code is <b>7391<p>Next paragraph"
        "<ul><li>one<li>two</body></html>";
    const std::string epub = testing::build_zip(
        {{"mimetype", "application/epub+zip", true},
         {"META-INF/container.xml",
          "<?xml version=\"1.0\"?><container><rootfiles><rootfile full-path=\"content.opf\"/></rootfiles></container>"},
         {"content.opf", opf},
         {"a.xhtml", chapter}});
    const auto d = extract_document(epub, "epub", "book.epub");
    EXPECT_EQ(d.title, "Book");
    EXPECT_EQ(d.text, "# Chapter One\n\nThe code is 7391\n\nNext paragraph\n\n- one\n- two\n");
}

}  // namespace
}  // namespace snapdoc

// DOCX (Office Open XML): word/document.xml's body in order. Headings come from the paragraph's
// style (styles.xml's "heading N"/"Title" names, or an outline level), lists from numbering
// properties, tables row by row, footnotes and endnotes as "[n]" marks with their text at the end.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "app/documents/format_readers.h"
#include "app/documents/safe_xml.h"
#include "app/documents/structured_text.h"
#include "app/documents/zip_archive.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

// styleId -> heading level (0 = title, shown as level 1); styles that are not headings are absent.
std::map<std::string, int> heading_styles(ZipArchive& zip, const std::string& what) {
    std::map<std::string, int> out;
    const auto xml = zip.read_if_present("word/styles.xml");
    if (!xml) return out;
    const XmlDoc doc = parse_xml(*xml, what + ": word/styles.xml");
    for (const xmlNode* s = xmlDocGetRootElement(doc.get())->children; s; s = s->next) {
        if (!is_element(s, "style")) continue;
        const std::string id = attribute(s, "styleId");
        std::string name = attribute(first_child(s, "name"), "val");
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (name == "title") out[id] = 1;
        else if (name.rfind("heading ", 0) == 0 && name.size() == 9 && name[8] >= '1' && name[8] <= '9')
            out[id] = std::min(name[8] - '0', 6);
        else if (const xmlNode* lvl = first_child(first_child(s, "pPr"), "outlineLvl"))
            out[id] = std::min(std::atoi(attribute(lvl, "val").c_str()) + 1, 6);
    }
    return out;
}

// The paragraph's visible text: runs, tabs and breaks, note marks; not deleted text or field codes
// (those are w:delText and w:instrText, which this never collects).
void run_text(const xmlNode* n, std::string& out) {
    for (const xmlNode* c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (is_element(c, "t")) out += text_content(c);
        else if (is_element(c, "tab") || is_element(c, "br") || is_element(c, "cr")) out += ' ';
        else if (is_element(c, "footnoteReference") || is_element(c, "endnoteReference"))
            out += "[" + std::string(is_element(c, "endnoteReference") ? "e" : "") + attribute(c, "id") + "]";
        else if (is_element(c, "pPr") || is_element(c, "rPr") || is_element(c, "del")) continue;
        else if (is_element(c, "p")) {  // a table cell's or a note's paragraphs, one space apart
            run_text(c, out);
            out += ' ';
        }
        else run_text(c, out);  // w:r, w:hyperlink, w:ins, w:smartTag, w:fldSimple, w:sdt...
    }
}

struct Body {
    const std::map<std::string, int>& headings;
    StructuredText& out;

    void paragraph(const xmlNode* p) {
        std::string text;
        run_text(p, text);
        const xmlNode* ppr = first_child(p, "pPr");
        const std::string style = attribute(first_child(ppr, "pStyle"), "val");
        if (const auto h = headings.find(style); h != headings.end()) return out.heading(h->second, text);
        if (const xmlNode* lvl = first_child(ppr, "outlineLvl"))
            return out.heading(std::min(std::atoi(attribute(lvl, "val").c_str()) + 1, 6), text);
        if (const xmlNode* num = first_child(ppr, "numPr"))
            return out.list_item(std::atoi(attribute(first_child(num, "ilvl"), "val").c_str()), text);
        out.paragraph(text);
    }

    void table(const xmlNode* tbl) {
        for (const xmlNode* tr = tbl->children; tr; tr = tr->next) {
            if (!is_element(tr, "tr")) continue;
            std::vector<std::string> cells;
            for (const xmlNode* tc = tr->children; tc; tc = tc->next) {
                if (!is_element(tc, "tc")) continue;
                std::string cell;
                run_text(tc, cell);  // a cell's paragraphs (and nested tables) on one line
                cells.push_back(cell);
            }
            out.table_row(cells);
        }
    }

    void blocks(const xmlNode* parent) {
        for (const xmlNode* c = parent->children; c; c = c->next) {
            if (is_element(c, "p")) paragraph(c);
            else if (is_element(c, "tbl")) table(c);
            else if (is_element(c, "sdt") || is_element(c, "sdtContent") || is_element(c, "customXml") ||
                     is_element(c, "ins"))
                blocks(c);
        }
    }
};

void notes(ZipArchive& zip, const std::string& part, const char* element, const std::string& prefix,
           StructuredText& out, const std::string& what) {
    const auto xml = zip.read_if_present(part);
    if (!xml) return;
    const XmlDoc doc = parse_xml(*xml, what + ": " + part);
    for (const xmlNode* n = xmlDocGetRootElement(doc.get())->children; n; n = n->next) {
        if (!is_element(n, element)) continue;
        const std::string type = attribute(n, "type");
        if (!type.empty() && type != "normal") continue;  // the separator lines Word stores as notes
        std::string text;
        run_text(n, text);
        out.note(prefix + attribute(n, "id"), text);
    }
}

std::string core_title(ZipArchive& zip, const std::string& what) {
    const auto xml = zip.read_if_present("docProps/core.xml");
    if (!xml) return {};
    const XmlDoc doc = parse_xml(*xml, what + ": docProps/core.xml");
    return collapse_whitespace(text_content(first_child(xmlDocGetRootElement(doc.get()), "title")));
}

}  // namespace

ExtractedDocument read_docx(std::string_view bytes, const std::string& what) {
    ZipArchive zip(bytes, what);
    if (!zip.contains("word/document.xml"))
        throw Error(what + " has no word/document.xml: it is not a Word document (or it is damaged)");
    const auto headings = heading_styles(zip, what);
    const XmlDoc doc = parse_xml(zip.read("word/document.xml"), what + ": word/document.xml");
    const xmlNode* body = first_child(xmlDocGetRootElement(doc.get()), "body");
    if (!body) throw Error(what + ": word/document.xml has no body");
    StructuredText out;
    Body{headings, out}.blocks(body);
    notes(zip, "word/footnotes.xml", "footnote", "", out, what);
    notes(zip, "word/endnotes.xml", "endnote", "e", out, what);
    return out.finish_document("docx", core_title(zip, what));
}

}  // namespace snapdoc::documents

// ODT (OpenDocument Text): content.xml's office:text in order. text:h carries its outline level,
// lists nest, tables come row by row, and notes (text:note) leave their citation mark in the text
// and their body at the end.
#include <cstdlib>

#include "app/documents/format_readers.h"
#include "app/documents/safe_xml.h"
#include "app/documents/structured_text.h"
#include "app/documents/zip_archive.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

struct Content {
    StructuredText& out;

    // Inline text of a paragraph or heading: spans, links, spaces (text:s with text:c), tabs,
    // line breaks; a note leaves "[citation]" and its body goes to the notes.
    void inline_text(const xmlNode* n, std::string& text) {
        for (const xmlNode* c = n->children; c; c = c->next) {
            if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
                if (c->content) text += reinterpret_cast<const char*>(c->content);
            } else if (is_element(c, "s")) {
                const int count = std::atoi(attribute(c, "c").c_str());
                text += std::string(static_cast<std::size_t>(count > 1 && count < 1000 ? count : 1), ' ');
            } else if (is_element(c, "tab") || is_element(c, "line-break")) {
                text += ' ';
            } else if (is_element(c, "note")) {
                const std::string label = collapse_whitespace(text_content(first_child(c, "note-citation")));
                std::string body;
                if (const xmlNode* b = first_child(c, "note-body")) inline_text(b, body);
                text += "[" + label + "]";
                out.note(label, body);
            } else if (is_element(c, "annotation") || is_element(c, "note-citation") || is_element(c, "tracked-changes")) {
                continue;  // comments and change records are not the document's text
            } else if (c->type == XML_ELEMENT_NODE) {
                inline_text(c, text);  // text:span, text:a, text:p inside a note or cell...
                if (is_element(c, "p") || is_element(c, "h")) text += ' ';
            }
        }
    }

    std::string text_of(const xmlNode* n) {
        std::string t;
        inline_text(n, t);
        return t;
    }

    void list(const xmlNode* l, int depth) {
        for (const xmlNode* item = l->children; item; item = item->next) {
            if (!is_element(item, "list-item") && !is_element(item, "list-header")) continue;
            for (const xmlNode* c = item->children; c; c = c->next) {
                if (is_element(c, "p") || is_element(c, "h")) out.list_item(depth, text_of(c));
                else if (is_element(c, "list")) list(c, depth + 1);
            }
        }
    }

    void rows(const xmlNode* parent) {
        for (const xmlNode* r = parent->children; r; r = r->next) {
            if (is_element(r, "table-row")) {
                std::vector<std::string> cells;
                for (const xmlNode* cell = r->children; cell; cell = cell->next)
                    if (is_element(cell, "table-cell")) cells.push_back(text_of(cell));
                out.table_row(cells);
            } else if (is_element(r, "table-header-rows") || is_element(r, "table-rows") ||
                       is_element(r, "table-row-group")) {
                rows(r);
            }
        }
    }

    void blocks(const xmlNode* parent) {
        for (const xmlNode* c = parent->children; c; c = c->next) {
            if (is_element(c, "h")) {
                const int level = std::atoi(attribute(c, "outline-level").c_str());
                out.heading(level > 0 ? level : 1, text_of(c));
            } else if (is_element(c, "p")) {
                out.paragraph(text_of(c));
            } else if (is_element(c, "list")) {
                list(c, 0);
            } else if (is_element(c, "table")) {
                rows(c);
            } else if (is_element(c, "section") || is_element(c, "index-body") || is_element(c, "table-of-content") ||
                       is_element(c, "illustration-index") || is_element(c, "alphabetical-index")) {
                blocks(c);
            }
        }
    }
};

std::string meta_title(ZipArchive& zip, const std::string& what) {
    const auto xml = zip.read_if_present("meta.xml");
    if (!xml) return {};
    const XmlDoc doc = parse_xml(*xml, what + ": meta.xml");
    return collapse_whitespace(text_content(find_descendant(xmlDocGetRootElement(doc.get()), "title")));
}

}  // namespace

ExtractedDocument read_odt(std::string_view bytes, const std::string& what) {
    ZipArchive zip(bytes, what);
    if (!zip.contains("content.xml"))
        throw Error(what + " has no content.xml: it is not an OpenDocument file (or it is damaged)");
    // A password-protected ODT keeps its parts encrypted by ODF's own scheme, not ZIP's.
    if (const auto manifest = zip.read_if_present("META-INF/manifest.xml");
        manifest && manifest->find("encryption-data") != std::string::npos)
        throw Error(what + " is encrypted (password-protected); save it without a password and open it again");
    if (const auto mime = zip.read_if_present("mimetype");
        mime && mime->rfind("application/vnd.oasis.opendocument.text", 0) != 0)
        throw Error(what + " is an OpenDocument file but not a text document (" + mime->substr(0, 80) + ")");
    const XmlDoc doc = parse_xml(zip.read("content.xml"), what + ": content.xml");
    const xmlNode* text = first_child(first_child(xmlDocGetRootElement(doc.get()), "body"), "text");
    if (!text) throw Error(what + ": content.xml has no office:text body");
    StructuredText out;
    Content{out}.blocks(text);
    return out.finish_document("odt", meta_title(zip, what));
}

}  // namespace snapdoc::documents

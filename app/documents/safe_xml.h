// Parsing untrusted XML (DOCX, ODT, EPUB's container and package) with libxml2 safely: no entity substitution (no XXE, no billion
// laughs: a document that declares entities is refused), no DTD loading, no network, and a cap on
// the element depth, so a hostile file gives one clear Error and nothing else.
#pragma once

#include <libxml/tree.h>

#include <memory>
#include <string>
#include <string_view>

namespace snapdoc::documents {

inline constexpr int kMaxXmlDepth = 200;

struct XmlDocFree {
    void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using XmlDoc = std::unique_ptr<xmlDoc, XmlDocFree>;

// `what` names the part in messages ("document x.docx: word/document.xml").
XmlDoc parse_xml(std::string_view bytes, const std::string& what);
// (HTML and EPUB's XHTML chapters go through gumbo instead: html_page.h.)

// Helpers for walking a parsed tree by local names (namespace prefixes differ between producers).
bool is_element(const xmlNode* n, const char* local_name);
std::string attribute(const xmlNode* n, const char* local_name);  // "" if absent, any namespace
const xmlNode* first_child(const xmlNode* n, const char* local_name);
const xmlNode* find_descendant(const xmlNode* n, const char* local_name);  // depth-first
std::string text_content(const xmlNode* n);  // every text below n, concatenated

}  // namespace snapdoc::documents

// Test data: a PDF file from its numbered objects (object i+1 is objects[i], object 1 the
// catalog), with a correct cross-reference table, for the generated PDFs of the document tests.
// Header-only: the typed-text and the scanned-page builders each compile into different targets.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace snapdoc::testing {

// `trailer_extra` goes into the trailer dictionary after /Root, e.g. "/Info 4 0 R".
inline std::string assemble_pdf(const std::vector<std::string>& objects, const std::string& trailer_extra = "") {
    std::string pdf = "%PDF-1.4\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t o : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", o);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R" +
           (trailer_extra.empty() ? "" : " " + trailer_extra) + " >>\nstartxref\n" + std::to_string(xref) +
           "\n%%EOF\n";
    return pdf;
}

}  // namespace snapdoc::testing
